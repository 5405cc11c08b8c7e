// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "screenshare",
    products: [
        .executable(name: "screenshare", targets: ["screenshare"]),
        .executable(name: "screen-receiver", targets: ["screen-receiver"]),
    ],
    targets: [
        // One target per C library; each is imported by exactly one Swift module.
        .systemLibrary(name: "CX264", pkgConfig: "x264", providers: [.apt(["libx264-dev"])]),
        .systemLibrary(name: "CVPX", pkgConfig: "vpx", providers: [.apt(["libvpx-dev"])]),
        .systemLibrary(name: "CSRTP", pkgConfig: "libsrtp2", providers: [.apt(["libsrtp2-dev"])]),
        .systemLibrary(name: "CYUV", providers: [.apt(["libyuv-dev"])]),
        .systemLibrary(name: "CAVCodec", pkgConfig: "libavcodec", providers: [.apt(["libavcodec-dev"])]),
        .systemLibrary(name: "CXCB", pkgConfig: "xcb", providers: [.apt(["libxcb1-dev"])]),
        .systemLibrary(name: "CPipeWire", pkgConfig: "libpipewire-0.3", providers: [.apt(["libpipewire-0.3-dev"])]),
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),

        // The path a frame takes.
        .target(name: "Media"),
        .target(name: "Events"),
        .target(name: "YUV", dependencies: ["CYUV", "Media"]),
        .target(name: "Capture", dependencies: ["CXCB", "CPipeWire", "CDBus", "Media", "YUV"]),
        .target(name: "Encoding", dependencies: ["Media"]),
        .target(name: "Codecs", dependencies: ["CX264", "CVPX", "CAVCodec", "Media", "Encoding", "YUV"]),
        .target(name: "RTP", dependencies: ["CSRTP", "Media"]),
        .target(name: "Recovery", dependencies: ["Media"]),
        .target(name: "Congestion", dependencies: ["Media", "RTP"]),
        .target(name: "ScreenShare", dependencies: ["Events", "Media", "YUV", "Capture", "Encoding", "Codecs", "RTP", "Recovery"]),
        .target(name: "Receiving", dependencies: ["Events", "Media", "YUV", "Capture", "Codecs", "RTP", "Recovery"]),
        .executableTarget(name: "screenshare", dependencies: ["ScreenShare", "Events"]),
        .executableTarget(name: "screen-receiver", dependencies: ["Receiving", "Events"], path: "Tools/screen-receiver"),
        .executableTarget(name: "pipewire-test-producer", dependencies: ["Capture"], path: "Tools/pipewire-test-producer"),
        .executableTarget(name: "portal-stand-in", dependencies: ["Capture"], path: "Tools/portal-stand-in"),

        .testTarget(name: "MediaTests", dependencies: ["Media"]),
        .testTarget(name: "RTPTests", dependencies: ["RTP"]),
        .testTarget(name: "RecoveryTests", dependencies: ["Recovery", "Media"]),
        .testTarget(name: "CongestionTests", dependencies: ["Congestion", "RTP", "Media"]),
        .testTarget(name: "EncodingTests", dependencies: ["Encoding", "Media"]),
        .testTarget(name: "CodecsTests", dependencies: ["Codecs", "Encoding", "YUV", "Capture"]),
        .testTarget(name: "EndToEndTests", dependencies: ["Media"]),
        .testTarget(name: "ScreenShareTests", dependencies: ["ScreenShare", "Events", "Encoding", "RTP", "Media"]),
        .testTarget(name: "CapturePipeWireTests", dependencies: ["Capture", "Media"]),
        .testTarget(name: "CaptureX11Tests", dependencies: ["Capture", "Media"]),
        .testTarget(name: "ReceivingTests", dependencies: ["Receiving", "Capture", "YUV", "Codecs", "Encoding", "Media"]),
    ]
)
