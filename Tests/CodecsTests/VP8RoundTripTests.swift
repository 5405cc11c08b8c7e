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
            if n == 10 { try encoder.setBitrate(1_000_000) }
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

    @Test func garbageIsRefusedNotDecoded() throws {
        let decoder = try VP8Decoder()
        let junk: [UInt8] = [0xFF, 0x00, 0x12, 0x34, 0x56]
        #expect(junk.withUnsafeBytes { decoder.decode($0) } == nil)
    }
}
