import Synthetic
import Encoders
import Decoders
import Encoding
import Glibc
import Synchronization
import Testing

/// x264's slices handed on as each is finished, put back in decoding order:
/// what the sender packetizes before the frame is whole. With one thread
/// (1080p30 and less) x264 hands each on from the encoding call as it ends
/// the slice's NAL unit; with two, from whichever slice thread finished it.
struct H264SliceStreamingTests {
    struct Part {
        var bytes: [UInt8]
        var endsFrame: Bool
        var isKeyframe: Bool
        /// Handed on from a thread other than the one that called encode.
        var fromSliceThread: Bool
    }

    /// The NAL units of an Annex-B part: (type, the bytes after the header).
    static func units(_ part: [UInt8]) -> [(type: UInt8, body: ArraySlice<UInt8>)] {
        var starts: [Int] = []
        var i = 0
        while i + 2 < part.count {
            if part[i] == 0, part[i + 1] == 0, part[i + 2] == 1 {
                starts.append(i + 3)
                i += 3
            } else {
                i += 1
            }
        }
        return starts.enumerated().map { index, start in
            var end = index + 1 < starts.count ? starts[index + 1] - 3 : part.count
            if end > start, part[end - 1] == 0, index + 1 < starts.count { end -= 1 }
            return (part[start] & 0x1F, part[(start + 1)..<end])
        }
    }

    /// first_mb_in_slice, the slice header's first field: ue(v) (H.264 §7.3.3, §9.1).
    static func firstMacroblock(_ body: ArraySlice<UInt8>) -> Int {
        var bit = 0
        func next() -> Int {
            let byte = body[body.startIndex + bit / 8]
            defer { bit += 1 }
            return Int(byte >> (7 - UInt8(bit % 8))) & 1
        }
        var zeros = 0
        while next() == 0 { zeros += 1 }
        var value = 1
        for _ in 0..<zeros { value = value << 1 | next() }
        return value - 1
    }

    @Test(arguments: [1, 2])
    func slicesComeInMacroblockOrder_headersWithTheFirst_theEndOnlyOnTheLast(threads: Int) throws {
        let (width, height) = (1920, 1080)
        let pictures = SyntheticPictures(width: width, height: height)
        let encoder = try H264Encoder(settings: EncoderSettings(width: width, height: height, fps: 30, bitrate: 4_000_000,
                                                                threads: threads))
        let decoder = try H264Decoder()
        for n in 0..<6 {
            let parts = Mutex<[Part]>([])
            let caller = pthread_self()
            let ts = UInt32(n * 3000)
            let frame = try #require(try encoder.encode(pictures.render(n), rtpTimestamp: ts, pts: Int64(ts), keyframe: n == 0) {
                part, endsFrame, isKeyframe in
                let other = pthread_equal(pthread_self(), caller) == 0
                parts.withLock { $0.append(Part(bytes: Array(part), endsFrame: endsFrame, isKeyframe: isKeyframe, fromSliceThread: other)) }
            })
            let all = parts.withLock { $0 }
            // One part a slice; only the last ends the frame; together they are the frame.
            #expect(all.count == H264Encoder.slicesPerFrame)
            #expect(all.map(\.endsFrame) == Array(repeating: false, count: all.count - 1) + [true])
            #expect(all.flatMap(\.bytes) == Array(frame.bytes))
            #expect(all.allSatisfy { $0.isKeyframe == frame.isKeyframe })
            #expect(all.allSatisfy { $0.fromSliceThread == (threads > 1) })

            let types = all.map { Self.units($0.bytes).map(\.type) }
            let slices = all.compactMap { Self.units($0.bytes).last }
            #expect(slices.allSatisfy { $0.type == (n == 0 ? 5 : 1) })
            // Constrained Baseline has no arbitrary slice order: first macroblocks rise from 0.
            let firsts = slices.map { Self.firstMacroblock($0.body) }
            #expect(firsts.first == 0)
            #expect(zip(firsts, firsts.dropFirst()).allSatisfy { $0 < $1 })
            if n == 0 {
                // The IDR's headers go with its first slice, none with the others.
                #expect(Array(types[0].prefix(2)) == [7, 8])
                #expect(types.dropFirst().allSatisfy { $0 == [5] })
            } else {
                #expect(types.allSatisfy { $0 == [1] })
            }
            let decoded = try #require(decoder.decode(frame.bytes))
            #expect(FrameStamp.read(luma: decoded.luma, stride: decoded.lumaStride, width: decoded.width, sourceWidth: width) == UInt32(n))
        }
    }
}
