// The Encoding module.
