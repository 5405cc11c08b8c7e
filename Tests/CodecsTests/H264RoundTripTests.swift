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
}
