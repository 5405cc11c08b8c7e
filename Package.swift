// swift-tools-version:6.0
import PackageDescription

// Read top to bottom, the targets are the path a frame takes: captured,
// converted, encoded, packetized, protected, sent; then the recovery
// machines, the control protocol and the share that wires them; then the
// project's own receiver and the two programs.
let package = Package(
    name: "screenshare",
    products: [
        .executable(name: "screenshare", targets: ["screenshare"]),
        .executable(name: "screen-receiver", targets: ["screen-receiver"]),
    ],
    targets: [
        // One target per C library; each is imported by exactly one Swift module.
        // x264 and PipeWire without pkg-config: their cflags carry -DX264_API_IMPORTS (for Windows
        // DLLs) and -D_REENTRANT, which SwiftPM drops with a warning on every build. x264.h is on
        // the default path; PipeWire's two include directories are given to its one importer.
        .systemLibrary(name: "CX264", providers: [.apt(["libx264-dev"])]),
        .systemLibrary(name: "CVPX", pkgConfig: "vpx", providers: [.apt(["libvpx-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "CYUV", providers: [.apt(["libyuv-dev"])]),
        .systemLibrary(name: "CAVCodec", pkgConfig: "libavcodec", providers: [.apt(["libavcodec-dev"])]),
        .systemLibrary(name: "CXCB", pkgConfig: "xcb", providers: [.apt(["libxcb1-dev"])]),
        .systemLibrary(name: "CPipeWire", providers: [.apt(["libpipewire-0.3-dev"])]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CMemfd"),

        .target(name: "Media", dependencies: ["CMemfd"]),
        .target(name: "Events", dependencies: ["CMalloc"]),
        .target(name: "YUV", dependencies: ["CYUV", "Media"]),
        .target(name: "Capture", dependencies: ["Media"]),
        .target(name: "Synthetic", dependencies: ["Media", "Capture"]),
        .target(name: "CaptureX11", dependencies: ["CXCB", "Media", "YUV", "Capture"]),
        .target(name: "CapturePipeWire", dependencies: ["CPipeWire", "CDBus", "Media", "YUV", "Capture"],
                swiftSettings: [.unsafeFlags(["-Xcc", "-I/usr/include/pipewire-0.3", "-Xcc", "-I/usr/include/spa-0.2"])]),
        .target(name: "Encoding", dependencies: ["Media"]),
        .target(name: "Encoders", dependencies: ["CX264", "CVPX", "Media", "Encoding", "YUV"]),
        .target(name: "RTP", dependencies: ["Media"]),
        .target(name: "Congestion", dependencies: ["Media", "RTP"]),
        .target(name: "SRTP", dependencies: ["CSRTP"]),
        .target(name: "Transport", dependencies: ["Media"]),
        .target(name: "ControlProtocol", dependencies: ["Events", "Encoding", "RTP", "SRTP", "Transport"]),
        .target(name: "Sending", dependencies: ["Events", "Media", "YUV", "Capture", "Encoding", "Encoders", "RTP", "Congestion", "SRTP", "Transport", "ControlProtocol"]),
        .target(name: "Recovery", dependencies: ["Media"]),
        .target(name: "ScreenShare", dependencies: [
            "Events", "Media", "Capture", "Synthetic", "CaptureX11", "CapturePipeWire", "Encoding", "RTP", "SRTP",
            "Transport", "ControlProtocol", "Sending", "Recovery",
        ]),
        .target(name: "Decoders", dependencies: ["CAVCodec", "CVPX", "Media", "YUV"]),
        .target(name: "Receiving", dependencies: ["Events", "Media", "YUV", "Synthetic", "Decoders", "RTP", "SRTP", "Transport", "Recovery"]),
        .target(name: "TestSupport", dependencies: ["Media", "CapturePipeWire"]),
        .executableTarget(name: "screenshare", dependencies: ["ScreenShare", "Events"]),
        .executableTarget(name: "screen-receiver", dependencies: ["Receiving", "Events", "Transport"]),
        .executableTarget(name: "pipewire-test-producer", dependencies: ["CapturePipeWire"], path: "Tools/pipewire-test-producer"),
        .executableTarget(name: "portal-stand-in", dependencies: ["TestSupport"], path: "Tools/portal-stand-in"),

        .testTarget(name: "MediaTests", dependencies: ["Media"]),
        .testTarget(name: "RTPTests", dependencies: ["RTP", "SRTP", "Transport", "Media"]),
        .testTarget(name: "RecoveryTests", dependencies: ["Recovery", "Media"]),
        .testTarget(name: "CongestionTests", dependencies: ["Congestion", "RTP", "Media"]),
        .testTarget(name: "EncodingTests", dependencies: ["Encoding", "Media"]),
        .testTarget(name: "CodecsTests", dependencies: ["Encoders", "Decoders", "Encoding", "YUV", "Synthetic", "TestSupport", "Media"]),
        .testTarget(name: "EndToEndTests", dependencies: ["Media"]),
        .testTarget(name: "ScreenShareTests", dependencies: ["ScreenShare", "ControlProtocol", "Sending", "Synthetic", "Events", "Encoding", "RTP", "Congestion", "Transport", "SRTP", "Media"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "Media"]),
        .testTarget(name: "CapturePipeWireTests", dependencies: ["CapturePipeWire", "Capture", "TestSupport", "Media"]),
        .testTarget(name: "CaptureX11Tests", dependencies: ["CaptureX11", "Capture", "Media"]),
        .testTarget(name: "ReceivingTests", dependencies: ["Receiving", "Synthetic", "YUV", "Encoders", "Decoders", "Encoding", "RTP", "SRTP", "Transport", "Events", "Media"]),
    ]
)
