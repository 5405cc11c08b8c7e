// The Receiving module.
