import Synthetic
import Encoders
import Decoders
import Encoding
import Media
import Testing
import YUV

/// Encodes synthetic frames with x264 and decodes them with libavcodec.
struct H264RoundTripTests {
    func encodeAndDecode(width: Int, height: Int, frames: Int, keyframeAt: Set<Int> = []) throws -> [(number: UInt32?, width: Int, height: Int, key: Bool)] {
        let pictures = SyntheticPictures(width: width, height: height)
        let encoder = try H264Encoder(settings: EncoderSettings(width: width, height: height, fps: 30, bitrate: 4_000_000))
        let decoder = try H264Decoder()
        var results: [(UInt32?, Int, Int, Bool)] = []
        for n in 0..<frames {
            let picture = pictures.render(n)
            let ts = UInt32(n * 3000)
            guard let encoded = try encoder.encode(picture, rtpTimestamp: ts, pts: Int64(ts), keyframe: keyframeAt.contains(n)) else { continue }
            #expect(n > 0 || encoded.isKeyframe)
            if keyframeAt.contains(n) { #expect(encoded.isKeyframe) }
            if let decoded = decoder.decode(encoded.bytes) {
                let number = FrameStamp.read(luma: decoded.luma, stride: decoded.lumaStride, width: decoded.width, sourceWidth: width)
                results.append((number, decoded.width, decoded.height, decoded.isKeyframe))
            }
        }
        return results
    }

    @Test func fullHDFramesDecodeAtFullSizeWithTheirStamps() throws {
        let results = try encodeAndDecode(width: 1920, height: 1080, frames: 10)
        #expect(results.count == 10)
        for (i, r) in results.enumerated() {
            #expect(r.width == 1920 && r.height == 1080)
            #expect(r.number == UInt32(i))
        }
    }

    @Test func forcedKeyframeIsAnIDR() throws {
        let results = try encodeAndDecode(width: 640, height: 360, frames: 6, keyframeAt: [4])
        #expect(results[4].key)
        #expect(!results[3].key)
    }

    @Test func raisedBitrate_isFollowed() throws {
        // An encoder started at the 300 kbit/s start rate and raised to 1.2
        // Mbit/s after five frames sends at least 0.7 of it from the second on.
        let width = 1280, height = 720
        let plan = EncodingPlan(width: width, height: height, fps: 30, level: .level3_1)
        let start = EncoderSettings.carrying(plan, shareFPS: 30, bitrate: 255_000, target: 300_000, profile: .constrainedBaseline,
                                             favourDetail: false)
        let raised = EncoderSettings.carrying(plan, shareFPS: 30, bitrate: 1_200_000, target: 1_400_000, profile: .constrainedBaseline,
                                              favourDetail: false)
        let encoder = try H264Encoder(settings: start)
        let pictures = SyntheticPictures(width: width, height: height)
        var bits = 0
        for n in 0..<90 {
            if n == 5 { try encoder.setRate(raised) }
            let ts = UInt32(n * 3000)
            let size = try encoder.encode(pictures.render(n), rtpTimestamp: ts, pts: Int64(ts), keyframe: n == 0)?.bytes.count ?? 0
            if n >= 30 { bits += size * 8 }
        }
        #expect(bits / 2 >= 840_000, "\(bits / 2) bit/s after the raise")
    }

    @Test func vbvBoundsEveryFrame_keyframesToo() throws {
        // docs/behaviour.md §3.3: a 1.5 Mbit/s target, the encoder at 0.85 of it,
        // a VBV of 0.2 s of the target. A 1280×720 screen whose every tenth
        // frame is an IDR: no frame is over the buffer (37.5 KB; x264 plans a
        // keyframe at half of it); without the VBV those IDRs come out at about 90 KB.
        let width = 1280, height = 720
        let plan = EncodingPlan(width: width, height: height, fps: 30, level: .level3_1)
        let settings = EncoderSettings.carrying(plan, shareFPS: 30, bitrate: 1_275_000, target: 1_500_000,
                                                profile: .constrainedBaseline, favourDetail: false)
        let encoder = try H264Encoder(settings: settings)
        let pictures = SyntheticPictures(width: width, height: height)
        var largest = 0
        var keyframes = 0
        for n in 0..<60 {
            let ts = UInt32(n * 3000)
            guard let encoded = try encoder.encode(pictures.render(n), rtpTimestamp: ts, pts: Int64(ts), keyframe: n % 10 == 0) else {
                continue
            }
            if encoded.isKeyframe { keyframes += 1 }
            largest = max(largest, encoded.bytes.count)
        }
        #expect(keyframes == 6)
        #expect(largest <= settings.bufferBits / 8, "largest frame \(largest) bytes, buffer \(settings.bufferBits / 8)")
    }

    @Test func initialFill_boundsTheFirstKeyframe_notTheOnesAfter() throws {
        // docs/behaviour.md §7.7: a first picture of one frame period of the rate
        // (13.3 KB at 3.2 Mbit/s), in a buffer of 0.2 s (80 KB) that later keyframes may use.
        let (width, height) = (1920, 1080)
        let pictures = SyntheticPictures(width: width, height: height)
        func keyframeSizes(initial: Int?) throws -> [Int] {
            var settings = EncoderSettings(width: width, height: height, fps: 30, bitrate: 3_200_000, bufferBits: 640_000)
            settings.initialBufferBits = initial
            let encoder = try H264Encoder(settings: settings)
            return try pictures.keyframeSizes { try encoder.encode($0, rtpTimestamp: $1, pts: Int64($1), keyframe: $2) }
        }
        let bounded = try keyframeSizes(initial: 3_200_000 / 30)
        let unbounded = try keyframeSizes(initial: nil)
        #expect(bounded.count == 2 && unbounded.count == 2)
        #expect(bounded[0] <= 3_200_000 / 30 / 8, "first keyframe \(bounded[0]) bytes")
        #expect(unbounded[0] > 2 * bounded[0], "without the bound \(unbounded[0]) bytes, with it \(bounded[0])")
        #expect(bounded[1] > 2 * bounded[0], "the second keyframe \(bounded[1]) bytes may use the whole buffer")
    }
}
