import Media
import RTP
import Testing
@testable import Receiving

/// The receiver's transport-wide feedback from the packets it saw.
struct TransportWideReporterTests {
    static let sequence = TransportSequenceNumber(extensionID: 5)!

    static func packet(_ number: UInt16) -> [UInt8] {
        var stream = OutgoingRTPStream(ssrc: 7, payloadType: 96, firstSequence: number, timestampBase: 0,
                                       extensions: HeaderExtensionMap(absoluteSendTimeID: 3, transportSequenceNumber: sequence)!)
        var bytes: [UInt8] = []
        _ = stream.startPacket(marker: false, timestamp: 0, into: &bytes)
        bytes.withUnsafeMutableBytes { HeaderExtensionMap(absoluteSendTimeID: 3, transportSequenceNumber: sequence)!.stamp($0, at: .zero, transportSequenceNumber: number) }
        return bytes + [1, 2, 3]
    }

    static func results(_ feedback: [TransportFeedback]) -> [(UInt16, Bool)] {
        feedback.flatMap { $0.packetResults.map { ($0.sequenceNumber, $0.arrival != nil) } }
    }

    @Test func gapsAreLost_reorderedPacketsFound_duplicatesOnce_acrossTheWrap() {
        // 65534, 1, 65535 (late), 1 again, 2 arrive; 0 never does.
        var reporter = TransportWideReporter(sequence: Self.sequence, senderSSRC: 9)
        for (i, n) in [65534, 1, 65535, 1, 2].enumerated() {
            Self.packet(UInt16(n)).withUnsafeBytes { reporter.packetArrived($0, at: .zero + .milliseconds(Int64(10 * i))) }
        }
        let feedback = reporter.feedback(mediaSSRC: 7)
        #expect(feedback.first?.mediaSSRC == 7 && feedback.first?.senderSSRC == 9)
        let results = Self.results(feedback)
        #expect(results.map(\.0) == [65534, 65535, 0, 1, 2])
        #expect(results.map(\.1) == [true, true, false, true, true])
        // The next feedback goes on from 3: 3 lost, 4 arrived; 0, late, stays lost.
        for n in [0, 4] { Self.packet(UInt16(n)).withUnsafeBytes { reporter.packetArrived($0, at: .zero + .milliseconds(80)) } }
        let next = Self.results(reporter.feedback(mediaSSRC: 7))
        #expect(next.map(\.0) == [3, 4] && next.map(\.1) == [false, true])
        #expect(reporter.feedback(mediaSSRC: 7).isEmpty)
    }

    @Test func inUseOnlyWhilePacketsCarryTheExtension() {
        var reporter = TransportWideReporter(sequence: Self.sequence, senderSSRC: 9)
        var plain: [UInt8] = []
        RTPHeader(payloadType: 96, sequenceNumber: 1, timestamp: 0, ssrc: 7).marshal(into: &plain)
        plain.withUnsafeBytes { reporter.packetArrived($0, at: .seconds(1)) }
        #expect(!reporter.inUse(at: .seconds(1)))
        Self.packet(10).withUnsafeBytes { reporter.packetArrived($0, at: .seconds(2)) }
        #expect(reporter.inUse(at: .seconds(3.9)))
        #expect(!reporter.inUse(at: .seconds(4.1)))
    }

    @Test func aJumpToNewNumbering_isNotReportedAsThousandsLost() {
        var reporter = TransportWideReporter(sequence: Self.sequence, senderSSRC: 9)
        Self.packet(100).withUnsafeBytes { reporter.packetArrived($0, at: .zero) }
        _ = reporter.feedback(mediaSSRC: 7)
        Self.packet(30_000).withUnsafeBytes { reporter.packetArrived($0, at: .zero + .milliseconds(50)) }
        #expect(Self.results(reporter.feedback(mediaSSRC: 7)).map(\.0) == [30_000])
    }
}
