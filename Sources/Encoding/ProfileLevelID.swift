import Foundation

/// The H.264 `profile-level-id` of an SDP offer (RFC 6184 §8.1): profile_idc,
/// the constraint flags byte and level_idc, as six hex digits.
public struct ProfileLevelID: Sendable, Hashable, CustomStringConvertible {
    public enum Profile: String, Sendable {
        case constrainedBaseline = "baseline"
        case main
        case high
    }

    public let profileIDC: UInt8
    public let constraints: UInt8
    public let levelIDC: UInt8

    /// What Chromium offers first: Constrained Baseline, level 3.1.
    public static let chromiumDefault = ProfileLevelID(profileIDC: 0x42, constraints: 0xE0, levelIDC: 31)

    public init(profileIDC: UInt8, constraints: UInt8, levelIDC: UInt8) {
        self.profileIDC = profileIDC
        self.constraints = constraints
        self.levelIDC = levelIDC
    }

    public init?(hex: String) {
        guard hex.count == 6, let value = UInt32(hex, radix: 16) else { return nil }
        profileIDC = UInt8(value >> 16)
        constraints = UInt8((value >> 8) & 0xFF)
        levelIDC = UInt8(value & 0xFF)
    }

    public var description: String {
        String(format: "%02x%02x%02x", profileIDC, constraints, levelIDC)
    }

    /// The profile x264 is told to encode. Baseline offers are encoded as
    /// Constrained Baseline, which every Baseline decoder takes.
    public var profile: Profile {
        switch profileIDC {
        case 0x4D: .main
        case 0x64: .high
        default: .constrainedBaseline
        }
    }

    /// level_idc 11 with constraint_set3 in Baseline means level 1b; treat it as 1.1.
    public var level: H264Level {
        H264Level.with(idc: Int(levelIDC)) ?? H264Level.all.last { $0.idc <= Int(levelIDC) } ?? H264Level.all[0]
    }

    /// The same profile with another level, for an SDP that states the level really sent.
    public func with(level: H264Level) -> ProfileLevelID {
        ProfileLevelID(profileIDC: profileIDC, constraints: constraints, levelIDC: UInt8(level.idc))
    }
}
