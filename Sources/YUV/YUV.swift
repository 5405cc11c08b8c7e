// The YUV module.
