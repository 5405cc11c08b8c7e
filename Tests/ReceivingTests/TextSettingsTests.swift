import Synthetic
import Encoders
import Decoders
import Encoding
import Media
import Receiving
import Testing
import YUV

/// Text and detail's x264 settings, measured: the scrolling page of the
/// synthetic screen encoded at 1080p and a bitrate a short link gives, then
/// decoded, and the text area compared with what was encoded.
struct TextSettingsTests {
    /// The mean SSIM of the text area over the frames from the ninth on, and how many were measured.
    func textSSIM(favourDetail: Bool, bitrate: Int) throws -> (ssim: Double, frames: Int) {
        let (width, height) = (1920, 1080)
        let screen = SyntheticScreen(width: width, height: height, fps: 30, scenario: .motion)
        let pool = SurfacePool(count: 1, width: width, height: height)
        let surface = try #require(pool.checkoutForWriting())
        _ = surface.resize(width: width, height: height)
        let converter = PixelConverter()
        let picture = I420Picture(width: width, height: height)
        // The VBV as the sender sizes it, of a target the encoder gets 0.85 of.
        let buffer = Int(Double(bitrate) / 0.85 * EncoderSettings.bufferDuration(favourDetail: favourDetail))
        let encoder = try H264Encoder(settings: EncoderSettings(width: width, height: height, fps: 30, bitrate: bitrate, bufferBits: buffer,
                                                                favourDetail: favourDetail, threads: 1))
        let decoder = try H264Decoder()
        let text = screen.textRegion
        let area = LumaComparison.Rect(x: text.x, y: text.y, width: text.width, height: text.height)
        var total = 0.0
        var measured = 0
        for n in 0..<24 {
            screen.render(frame: UInt64(n), into: surface.pixels, stride: surface.stride)
            converter.convert(surface, into: picture)
            guard let frame = try encoder.encode(picture, rtpTimestamp: UInt32(n * 3000), pts: Int64(n * 3000), keyframe: n == 0),
                  let decoded = decoder.decode(frame.bytes), n >= 8 else { continue }
            let window = screen.windowRect(at: UInt64(n)).map { LumaComparison.Rect(x: $0.x, y: $0.y, width: $0.width, height: $0.height) }
            let result = LumaComparison().compare(
                reference: picture.planeY, referenceStride: picture.strideY, decoded: decoded.luma, decodedStride: decoded.lumaStride,
                width: width, height: height, regions: [(area, window.map { [$0] } ?? [])])[0]
            total += result.ssim
            measured += 1
        }
        return (total / Double(max(measured, 1)), measured)
    }

    @Test(arguments: [1_500_000, 3_000_000])
    func textSettingsKeepTheScrollingPageSharperThanTheDefaults(bitrate: Int) throws {
        let detail = try textSSIM(favourDetail: true, bitrate: bitrate)
        let plain = try textSSIM(favourDetail: false, bitrate: bitrate)
        print("text SSIM at \(bitrate / 1000) kbit/s: text settings \(String(format: "%.4f", detail.ssim)), "
              + "defaults \(String(format: "%.4f", plain.ssim)), over \(detail.frames) and \(plain.frames) frames")
        // Frames 8–23 decode (x264 holds none back at zero latency), so a comparison of nothing fails here.
        #expect(detail.frames == 16 && plain.frames == 16, "frames measured")
        #expect(plain.ssim > 0.25, "the defaults still give a picture of the page")
        #expect(detail.ssim > plain.ssim, "the text settings change the picture, for the sharper")
    }
}
