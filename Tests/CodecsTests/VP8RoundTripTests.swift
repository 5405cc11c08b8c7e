import Synthetic
import Encoders
import Decoders
import Encoding
import Media
import Testing
import YUV

/// Encodes synthetic frames with libvpx's VP8 encoder and decodes them with its decoder.
struct VP8RoundTripTests {
    @Test func framesDecodeWithTheirStampsAndAKeyframeComesWhenAsked() throws {
        let (width, height) = (1280, 720)
        let pictures = SyntheticPictures(width: width, height: height)
        let encoder = try VP8Encoder(settings: EncoderSettings(width: width, height: height, fps: 30, bitrate: 2_000_000))
        let decoder = try VP8Decoder()
        var decoded = 0
        for n in 0..<20 {
            if n == 10 { try encoder.setRate(EncoderSettings(width: width, height: height, fps: 30, bitrate: 1_000_000)) }
            let picture = pictures.render(n)
            let encoded = try #require(try encoder.encode(picture, rtpTimestamp: UInt32.max &- 30_000 &+ UInt32(n * 3000), keyframe: n == 15))
            #expect(encoded.isKeyframe == (n == 0 || n == 15), "frame \(n)")
            let out = try #require(decoder.decode(encoded.bytes))
            #expect(out.width == width && out.height == height)
            #expect(out.isKeyframe == encoded.isKeyframe)
            #expect(FrameStamp.read(luma: out.luma, stride: out.lumaStride, width: out.width, sourceWidth: width) == UInt32(n))
            decoded += 1
        }
        #expect(decoded == 20)
        #expect(encoder.settings.bitrate == 1_000_000)
    }

    @Test func keyframeBound_holdsTheFirstPictureToTheInitialFill_andTheOnesAfterToTheBuffer() throws {
        // docs/behaviour.md §7.7, as x264's VBV does: a first picture of one frame period of the
        // rate (13.3 KB at 3.2 Mbit/s), later keyframes within a buffer of 0.2 s (80 KB). libvpx
        // left alone makes its first picture half of its initial buffer (500 ms of the rate).
        // Its quantizer stops short of such a small picture (q 56 of 63): the bound halves it.
        let (width, height) = (640, 360)
        let pictures = SyntheticPictures(width: width, height: height, scenario: .still)
        func keyframeSizes(initial: Int?) throws -> [Int] {
            var settings = EncoderSettings(width: width, height: height, fps: 30, bitrate: 3_200_000, bufferBits: 640_000)
            settings.initialBufferBits = initial
            let encoder = try VP8Encoder(settings: settings)
            return try pictures.keyframeSizes { try encoder.encode($0, rtpTimestamp: $1, keyframe: $2) }
        }
        let bounded = try keyframeSizes(initial: 3_200_000 / 30)
        let unbounded = try keyframeSizes(initial: nil)
        #expect(bounded.count == 2 && unbounded.count == 2)
        #expect(Double(unbounded[0]) > 1.6 * Double(bounded[0]), "first keyframe \(unbounded[0]) bytes without the bound, \(bounded[0]) with it")
        #expect(Double(bounded[1]) > 1.6 * Double(bounded[0]), "the second keyframe \(bounded[1]) bytes may use the whole buffer")
        #expect(bounded[1] <= 640_000 / 8, "the second keyframe \(bounded[1]) bytes, within the buffer")
    }

    @Test func garbageIsRefusedNotDecoded() throws {
        let decoder = try VP8Decoder()
        let junk: [UInt8] = [0xFF, 0x00, 0x12, 0x34, 0x56]
        #expect(junk.withUnsafeBytes { decoder.decode($0) } == nil)
    }
}
