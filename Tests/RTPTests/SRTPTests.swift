#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import RTP
import SRTP

struct SRTPTests {
    static func key(_ profile: SRTPProfile, seed: UInt8 = 1) -> [UInt8] {
        (0..<profile.keyLength).map { UInt8(truncatingIfNeeded: Int($0) * 7 + Int(seed)) }
    }

    static func rtpPacket(sequenceNumber: UInt16) -> [UInt8] {
        var out: [UInt8] = []
        RTPPacket.marshal(
            header: RTPHeader(marker: true, payloadType: 96, sequenceNumber: sequenceNumber, timestamp: 1234, ssrc: 0xCAFE),
            payload: (0..<100).map { UInt8($0) }, into: &out)
        return out
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtp_roundTrips(profile: SRTPProfile) throws {
        let sender = try SRTPSession(profile: profile, masterKey: Self.key(profile), direction: .sender)
        let receiver = try SRTPSession(profile: profile, masterKey: Self.key(profile), direction: .receiver)
        let plain = Self.rtpPacket(sequenceNumber: 1)
        var buffer = plain + [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
        let protectedLength = try sender.protectRTP(&buffer, length: plain.count)
        #expect(protectedLength == plain.count + profile.rtpTrailerLength)
        #expect(buffer[0..<12] == plain[0..<12])
        #expect(buffer[12..<plain.count] != plain[12...])
        let plainLength = try receiver.unprotectRTP(&buffer, length: protectedLength)
        #expect(Array(buffer[0..<plainLength]) == plain)
    }

    @Test(arguments: SRTPProfile.allCases)
    func rtcp_roundTrips(profile: SRTPProfile) throws {
        let sender = try SRTPSession(profile: profile, masterKey: Self.key(profile), direction: .sender)
        let receiver = try SRTPSession(profile: profile, masterKey: Self.key(profile), direction: .receiver)
        let plain = try PictureLossIndication(senderSSRC: 0xCAFE, mediaSSRC: 2).marshal()
        var buffer = plain + [UInt8](repeating: 0, count: profile.rtcpTrailerLength)
        let protectedLength = try sender.protectRTCP(&buffer, length: plain.count)
        #expect(protectedLength == plain.count + profile.rtcpTrailerLength)
        let plainLength = try receiver.unprotectRTCP(&buffer, length: protectedLength)
        #expect(Array(buffer[0..<plainLength]) == plain)
    }

    @Test(arguments: SRTPProfile.allCases)
    func retransmissionOfTheIdenticalBytes_isProtectedIdentically_andReadWhereTheFirstWasLost(profile: SRTPProfile) throws {
        // A NACKed packet is sent again as the identical bytes (docs/behaviour.md §7.6): the
        // sender's SRTP must take the same index again and give the same bytes out (same
        // keystream, same tag: nothing new under one nonce), and a receiver that lost the first
        // copy reads the second; one that had it refuses the repeat.
        let sender = try SRTPSession(profile: profile, masterKey: Self.key(profile), direction: .sender)
        let plain = Self.rtpPacket(sequenceNumber: 9)
        var sent: [[UInt8]] = []
        for _ in 0..<2 {
            var buffer = plain + [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
            let length = try sender.protectRTP(&buffer, length: plain.count)
            sent.append(Array(buffer[0..<length]))
        }
        #expect(sent[0] == sent[1], "the retransmission is the bytes first sent")
        let lostTheFirst = try SRTPSession(profile: profile, masterKey: Self.key(profile), direction: .receiver)
        var second = sent[1] + [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
        let length = try lostTheFirst.unprotectRTP(&second, length: sent[1].count)
        #expect(Array(second[0..<length]) == plain)
        let hadTheFirst = try SRTPSession(profile: profile, masterKey: Self.key(profile), direction: .receiver)
        var first = sent[0]
        _ = try hadTheFirst.unprotectRTP(&first, length: first.count)
        var repeated = sent[1]
        #expect(throws: SRTPError.replayed) { try hadTheFirst.unprotectRTP(&repeated, length: repeated.count) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func tamperedPacket_rejected(profile: SRTPProfile) throws {
        let sender = try SRTPSession(profile: profile, masterKey: Self.key(profile), direction: .sender)
        let receiver = try SRTPSession(profile: profile, masterKey: Self.key(profile), direction: .receiver)
        let plain = Self.rtpPacket(sequenceNumber: 1)
        var buffer = plain + [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
        let length = try sender.protectRTP(&buffer, length: plain.count)
        buffer[20] ^= 0x01
        #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotectRTP(&buffer, length: length) }
    }

    @Test(arguments: SRTPProfile.allCases)
    func wrongKey_rejected(profile: SRTPProfile) throws {
        let sender = try SRTPSession(profile: profile, masterKey: Self.key(profile), direction: .sender)
        let receiver = try SRTPSession(profile: profile, masterKey: Self.key(profile, seed: 2), direction: .receiver)
        let plain = Self.rtpPacket(sequenceNumber: 1)
        var buffer = plain + [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
        let length = try sender.protectRTP(&buffer, length: plain.count)
        #expect(throws: SRTPError.authenticationFailed) { try receiver.unprotectRTP(&buffer, length: length) }
    }

    @Test func replayedPacket_rejected() throws {
        let sender = try SRTPSession(key: try SRTPKey(profile: .aeadAes128Gcm, bytes: Self.key(.aeadAes128Gcm)), direction: .sender)
        let receiver = try SRTPSession(profile: .aeadAes128Gcm, masterKey: Self.key(.aeadAes128Gcm), direction: .receiver)
        let plain = Self.rtpPacket(sequenceNumber: 1)
        var buffer = plain + [UInt8](repeating: 0, count: SRTPSession.maximumTrailerLength)
        let length = try sender.protectRTP(&buffer, length: plain.count)
        var copy = buffer
        _ = try receiver.unprotectRTP(&buffer, length: length)
        #expect(throws: SRTPError.replayed) { try receiver.unprotectRTP(&copy, length: length) }
    }

    @Test func noRoomForTag_throws() throws {
        let sender = try SRTPSession(profile: .aes128CmHmacSha1_80, masterKey: Self.key(.aes128CmHmacSha1_80), direction: .sender)
        var buffer = Self.rtpPacket(sequenceNumber: 1)
        let count = buffer.count
        #expect(throws: SRTPError.bufferTooSmall(needed: count + 10, capacity: count)) {
            try sender.protectRTP(&buffer, length: count)
        }
    }

    @Test func badKeyLength_errorNamesLengthNotKey() {
        let key: [UInt8] = Array(repeating: 0xAB, count: 16)
        do {
            _ = try SRTPSession(profile: .aes128CmHmacSha1_80, masterKey: key, direction: .sender)
            Issue.record("a 16-byte key was accepted")
        } catch {
            #expect(error == .invalidKeyLength(profile: .aes128CmHmacSha1_80, expected: 30, got: 16))
            let text = "\(error) \(String(reflecting: error))"
            #expect(text.contains("30"))
            #expect(!text.lowercased().contains("abab"))
            #expect(!text.contains(Base64.encode(key)))
            #expect(!text.contains("171"))
        }
    }

    @Test func base64_andHex() {
        #expect(Base64.encode([]) == "")
        #expect(Base64.encode(Array("f".utf8)) == "Zg==")
        #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64.decode("Zm8=") == Array("fo".utf8))
        #expect(Base64.decode("Zg==") == Array("f".utf8))
        #expect(Base64.decode("Zm9vYmFy") == Array("foobar".utf8))
        #expect(Base64.decode("Zm9") == nil)
        #expect(Base64.decode("Z=9v") == nil)
        #expect(Base64.decode("Zm9v!mFy") == nil)
        let bytes = (0...255).map { UInt8($0) }
        #expect(Base64.decode(Base64.encode(bytes)) == bytes)
        #expect(Hex.encode([0x00, 0x0F, 0xA5, 0xFF]) == "000fa5ff")
    }

    @Test func key_parsesInlineSDESAndRedactsDescription() throws {
        let raw = Self.key(.aes128CmHmacSha1_80)
        let text = "inline:" + Base64.encode(raw) + "|2^31|1:1\n"
        let key = try SRTPKey(base64: text, profile: .aes128CmHmacSha1_80)
        #expect(key.bytes == raw)
        #expect(key.base64 == Base64.encode(raw))
        #expect(key.hex == Hex.encode(raw))
        let shown = "\(key) \(String(reflecting: key)) \(String(describing: Mirror(reflecting: key).children.map(\.value)))"
        #expect(!shown.contains(key.base64))
        #expect(!shown.contains(key.hex))
        #expect(!shown.contains("\(raw[0]), \(raw[1])"))
    }

    @Test func key_rejectsWrongLengthAndBadBase64() {
        #expect(throws: SRTPError.invalidKeyLength(profile: .aeadAes128Gcm, expected: 28, got: 30)) {
            try SRTPKey(base64: Base64.encode(Self.key(.aes128CmHmacSha1_80)), profile: .aeadAes128Gcm)
        }
        #expect(throws: SRTPError.invalidKeyEncoding) { try SRTPKey(base64: "not base64!", profile: .aeadAes128Gcm) }
    }

    @Test func keyFile_readsOneLine() throws {
        let path = "/tmp/rtp-tests-key-\(getpid())"
        let raw = Self.key(.aeadAes128Gcm, seed: 9)
        let line = Base64.encode(raw) + "\n"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(descriptor >= 0)
        _ = line.utf8CString.withUnsafeBytes { write(descriptor, $0.baseAddress, line.utf8.count) }
        close(descriptor)
        defer { unlink(path) }
        let key = try SRTPKey(contentsOfFile: path, profile: .aeadAes128Gcm)
        #expect(key.bytes == raw)
        #expect(throws: SRTPError.self) { try SRTPKey(contentsOfFile: path + "-missing", profile: .aeadAes128Gcm) }
    }

    /// A key file others may read, or one another user owns (reached through a symlink or not), is refused
    /// with the reason; a FIFO or a directory is refused without blocking (docs/behaviour.md §7.2).
    @Test func keyFile_refusedUnlessPrivateAndOurs() throws {
        let directory = "/tmp/rtp-tests-keys-\(getpid())"
        mkdir(directory, 0o700)
        defer { _ = try? FileManager.default.removeItem(atPath: directory) }
        let line = Base64.encode(Self.key(.aes128CmHmacSha1_80)) + "\n"
        func write(_ name: String, mode: mode_t) -> String {
            let path = "\(directory)/\(name)"
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, mode)
            _ = line.withCString { Glibc.write(descriptor, $0, strlen($0)) }
            close(descriptor)
            chmod(path, mode)
            return path
        }
        func refusal(_ path: String) -> String? {
            do {
                _ = try SRTPKey(contentsOfFile: path, profile: .aes128CmHmacSha1_80)
                return nil
            } catch {
                return "\(error)"
            }
        }
        let mine = write("mine", mode: 0o600)
        #expect(refusal(mine) == nil)
        symlink(mine, "\(directory)/link-to-mine")
        #expect(refusal("\(directory)/link-to-mine") == nil)

        let shared = refusal(write("group-readable", mode: 0o640))
        #expect(shared?.contains("mode 640 gives its group access") == true, "\(shared ?? "accepted")")
        let world = refusal(write("world-readable", mode: 0o604))
        #expect(world?.contains("mode 604 gives other users access") == true, "\(world ?? "accepted")")

        let theirs = write("theirs", mode: 0o600)
        let nobody: uid_t = 65534
        chown(theirs, nobody, gid_t(nobody))
        symlink(theirs, "\(directory)/link-to-theirs")
        for path in [theirs, "\(directory)/link-to-theirs"] {
            let refused = refusal(path)
            #expect(refused?.contains("belongs to user \(nobody)") == true, "\(path): \(refused ?? "accepted")")
            #expect(refused?.contains(Base64.encode(Self.key(.aes128CmHmacSha1_80))) == false)
        }

        mkfifo("\(directory)/fifo", 0o600)
        #expect(refusal("\(directory)/fifo")?.contains("not a regular file") == true)
        #expect(refusal(directory)?.contains("not a regular file") == true)
    }
}
