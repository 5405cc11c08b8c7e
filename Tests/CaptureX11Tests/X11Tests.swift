import Testing

/// Every X11 test starts its own Xvfb; they run one at a time so that
/// tick-counting assertions are not skewed by a second server on two cores.
@Suite(.serialized)
struct X11Tests {}

/// Colours the tests paint with, as 0xRRGGBB.
enum Colour {
    static let slate: UInt32 = 0x33_66_99
    static let orange: UInt32 = 0xFF_88_00
    static let green: UInt32 = 0x22_AA_44
    static let navy: UInt32 = 0x00_00_80

    /// Each of red, green and blue within `tolerance` steps.
    static func near(_ a: UInt32, _ b: UInt32, tolerance: Int = 3) -> Bool {
        [0, 8, 16].allSatisfy { shift in abs(Int((a >> shift) & 0xFF) - Int((b >> shift) & 0xFF)) <= tolerance }
    }
}
