// The Capture module.
