"""The interop checks behind Tools/interop: screenshare's `share` against
real peers, one module a peer family (gstreamer, ffprobe, web via Janus and
Chromium), each check in a network namespace of its own."""
