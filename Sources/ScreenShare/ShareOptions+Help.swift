import Events

extension ShareOptions {
    /// `screenshare share --help`: every option `parse` reads, with its default.
    public static let help = CommandHelp(
        usage: "screenshare share --to HOST:PORT (--srtp-key-file KEY | --insecure-rtp) [options]",
        summary: "Sends one screen to one receiver as SRTP, printing two status lines a second; lines on stdin change it live.",
        options: [
            .init("source", "SOURCE", "what to share: synthetic, x11[:DISPLAY], pipewire[:NODE] or portal", default: "synthetic"),
            .init("monitor", "NAME", "with x11: one RandR monitor, by name (screenshare sources lists them)", default: "the whole screen"),
            .init("window", "ID", "with x11: one window, by id such as 0x400001, followed as it moves", default: "the whole screen"),
            .init("region", "WxH+X+Y", "with x11: a fixed rectangle of the screen", default: "the whole screen"),
            .init("portal-window", nil, "with portal: ask for a window rather than a monitor", default: "off"),
            .init("restore-token-file", "FILE", "with portal: where the restore token that skips the picker is kept (mode 0600)",
                  default: "$XDG_STATE_HOME/screenshare/restore-token"),
            .init("pipewire-link", nil, "with pipewire or portal: link to the node ourselves, for a PipeWire without a session manager",
                  default: "off"),
            .init("size", "WxH", "with synthetic: the generated screen's size", default: "1920x1080"),
            .init("scenario", "demo|motion|still", "with synthetic: what the generated screen does", default: "demo"),
            .init("fps", "N", "frames a second, 1 to 30", default: "30"),
            .init("to", "HOST:PORT", "where RTP goes (and RTCP, muxed)", default: "required"),
            .init("rtcp-to", "HOST:PORT", "send RTCP to its own port, still from the RTP socket", default: "muxed with RTP"),
            .init("bind", "HOST:PORT", "the local address RTP leaves from and RTCP is read on",
                  default: "an ephemeral port, on loopback for a loopback receiver"),
            .init("srtp-key-file", "KEY", "a file of yours, readable by you alone, holding base64 of the SRTP master key and salt (30 bytes; 28 for gcm)",
                  default: "required, unless --insecure-rtp"),
            .init("srtp-profile", "aes|gcm", "AES_CM_128_HMAC_SHA1_80 or AEAD_AES_128_GCM", default: "aes"),
            .init("insecure-rtp", nil, "plain RTP instead of SRTP, to loopback addresses only (--to, --rtcp-to, stdin's destination)", default: "off"),
            .init("accept-plain-rtcp", nil, "also take unprotected RTCP feedback (Janus sends it plain)", default: "off"),
            .init("policy", "balanced|detail|motion", "what gives way on a short link: the size, the frame rate, or the size above 1280",
                  default: "balanced"),
            .init("bitrate-max", "RATE", "the most the share sends, such as 4M or 1500k, from 50k to 100M", default: "4M"),
            .init("ssrc", "N", "the stream's SSRC, 1 to 4294967295", default: "random"),
            .init("payload-type", "N", "the RTP payload type, 0 to 63 or 96 to 127", default: "96"),
            .init("h264-level", "LEVEL", "an H.264 level every policy keeps to, such as 3.1", default: "none; Motion keeps 3.1"),
            .init("profile-level-id", "HEX", "the receiver's H.264 profile-level-id", default: "42e01f"),
            .init("sdp", "FILE", "write an SDP that GStreamer or ffmpeg can open (mode 0600: it holds the key)", default: "none"),
            .init("duration", "SECONDS", "stop after this long, at most a week (RTCP BYE is sent)", default: "until SIGINT or SIGTERM"),
            .init("json", nil, "status and every event as JSON lines on stdout", default: "off: readable lines on stderr"),
            .init("log-level", "debug|info|warning|error", "how much is logged", default: "info"),
            .init("fault", "KIND:S", "for tests: encoder-stops:S, encoder-hangs:S or capture-stops:S breaks the sender S seconds in",
                  default: "none"),
        ])
}
