// The Codecs module.
