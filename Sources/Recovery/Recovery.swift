// The Recovery module.
