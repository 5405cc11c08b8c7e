import Testing
@testable import RTP

struct H264PacketizerTests {
    static let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x1F]
    static let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]

    static func payloads(_ accessUnit: [UInt8], max: Int = 1200) -> [([UInt8], Bool)] {
        var packetizer = H264Packetizer(maxPayloadSize: max)
        var out: [([UInt8], Bool)] = []
        packetizer.packetize(accessUnit) { payload, last in out.append((Array(payload), last)) }
        return out
    }

    @Test func spsAndPPS_goAsOneSTAPA() {
        let au: [UInt8] = [0, 0, 0, 1] + Self.sps + [0, 0, 1] + Self.pps
        let out = Self.payloads(au)
        #expect(out.count == 1)
        #expect(out[0].0 == [
            0x78,                          // F=0, NRI=3, type=24 (STAP-A)
            0x00, 0x04, 0x67, 0x42, 0xC0, 0x1F,  // size=4, SPS
            0x00, 0x04, 0x68, 0xCE, 0x3C, 0x80,  // size=4, PPS
        ])
        #expect(out[0].1)
    }

    @Test func smallNAL_goesAsSingleNALUnit() {
        let out = Self.payloads([0, 0, 0, 1, 0x41, 0x9A, 0x02])
        #expect(out.map(\.0) == [[0x41, 0x9A, 0x02]])
        #expect(out[0].1)
    }

    @Test func largeNAL_goesAsFUAStartMiddleEnd() {
        // An IDR slice of 1 header byte + 10 bytes, with 6-byte payloads: 4 data bytes each.
        let idr: [UInt8] = [0x65] + Array(1...10)
        let out = Self.payloads(Self.sps.prefix(0) + [0, 0, 0, 1] + idr, max: 6)
        #expect(out.map(\.0) == [
            [0x7C, 0x85, 1, 2, 3, 4],  // FU indicator NRI=3 type=28; S=1, type=5
            [0x7C, 0x05, 5, 6, 7, 8],  // no S or E
            [0x7C, 0x45, 9, 10],       // E=1
        ])
        #expect(out.map(\.1) == [false, false, true])
    }

    @Test func keyframe_parameterSetsThenFragments_markerOnlyOnLast() {
        let idr: [UInt8] = [0x65] + [UInt8](repeating: 0xAA, count: 3000)
        let au = [0, 0, 0, 1] + Self.sps + [0, 0, 0, 1] + Self.pps + [0, 0, 0, 1] + idr
        let out = Self.payloads(au)
        #expect(out[0].0[0] & 0x1F == 24)
        #expect(out.dropFirst().allSatisfy { $0.0[0] & 0x1F == 28 })
        #expect(out.map(\.1) == Array(repeating: false, count: out.count - 1) + [true])
        #expect(out.allSatisfy { $0.0.count <= 1200 })
    }

    @Test func containsIDR_andSPS() {
        let au: [UInt8] = [0, 0, 0, 1] + Self.sps + [0, 0, 1] + Self.pps + [0, 0, 1, 0x65, 0x88]
        #expect(AnnexB.containsIDR(au))
        #expect(!AnnexB.containsIDR([0, 0, 0, 1, 0x41, 0x9A]))
        #expect(AnnexB.sequenceParameterSet(in: au) == Self.sps)
        #expect(AnnexB.sequenceParameterSet(in: [0, 0, 1, 0x41]) == nil)
    }

    @Test func partsOfAnAccessUnit_leaveAsTheyCome_markerOnlyAtTheEnd() {
        // SPS + PPS + a small slice, then a slice needing three FU-A fragments: two parts of one frame.
        var packetizer = H264Packetizer(maxPayloadSize: 6)
        var out: [([UInt8], Bool)] = []
        let first: [UInt8] = [0, 0, 0, 1] + Self.sps + [0, 0, 1] + Self.pps + [0, 0, 1, 0x65, 0xB8]
        packetizer.packetize(first, endsAccessUnit: false) { payload, last in out.append((Array(payload), last)) }
        // The first part has left whole before the second is given, none of it marked.
        #expect(out.count == 3)
        #expect(out.allSatisfy { !$0.1 })
        #expect(out.last!.0 == [0x65, 0xB8])
        let second: [UInt8] = [0, 0, 1, 0x65] + Array(1...10)
        packetizer.packetize(second, endsAccessUnit: true) { payload, last in out.append((Array(payload), last)) }
        #expect(out.count == 6)
        #expect(out.map(\.1) == [false, false, false, false, false, true])
        #expect(out[5].0 == [0x7C, 0x45, 9, 10])
    }
}
