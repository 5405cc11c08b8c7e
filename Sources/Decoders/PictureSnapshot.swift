import CAVCodec
import Foundation
import Media
import YUV

/// The last picture decoded, kept so that it can be written as a PNG file (libavcodec's PNG
/// encoder) for a person to look at: what really arrived. Each decoded picture is copied, since a
/// decoder's own planes last only until its next call; the copy's storage is reused.
public final class PictureSnapshot: @unchecked Sendable {
    // Safety: kept and written from the receiver's one thread.
    private let picture = I420Picture(width: 16, height: 16)
    public private(set) var hasPicture = false

    public init() {}

    public var width: Int { picture.width }
    public var height: Int { picture.height }

    /// Keeps a copy of `decoded`; a picture that is not 4:2:0 is passed over.
    public func keep(_ decoded: DecodedPicture) {
        guard let chroma = decoded.chroma else { return }
        PixelConverter.copyI420(y: decoded.luma, strideY: decoded.lumaStride, u: chroma.u, v: chroma.v, strideUV: chroma.stride,
                                width: decoded.width, height: decoded.height, into: picture)
        hasPicture = true
    }

    /// Writes the kept picture to `path` as a 24-bit RGB PNG.
    public func writePNG(to path: String) throws(CodecError) {
        guard hasPicture else { throw failure("no picture was decoded, so there is none to write") }
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG), let context = avcodec_alloc_context3(codec) else {
            throw failure("this libavcodec has no PNG encoder")
        }
        var frame = av_frame_alloc()
        var packet = av_packet_alloc()
        defer {
            av_packet_free(&packet)
            av_frame_free(&frame)
            var c: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&c)
        }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = AV_PIX_FMT_RGB24
        context.pointee.time_base = AVRational(num: 1, den: 1)
        guard let frame, let packet, avcodec_open2(context, codec, nil) == 0 else { throw failure("the PNG encoder did not open") }
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.format = AV_PIX_FMT_RGB24.rawValue
        guard av_frame_get_buffer(frame, 0) == 0, let rgb = frame.pointee.data.0 else { throw failure("no memory for the picture") }
        PixelConverter.rgb(of: picture, into: rgb, stride: Int(frame.pointee.linesize.0))
        guard avcodec_send_frame(context, frame) == 0, avcodec_receive_packet(context, packet) == 0, let data = packet.pointee.data else {
            throw failure("the PNG encoder made nothing of the picture")
        }
        do {
            try Data(bytes: data, count: Int(packet.pointee.size)).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw failure("cannot write \(path): \(error.localizedDescription)")
        }
    }

    private func failure(_ detail: String) -> CodecError {
        CodecError(codec: "libavcodec", operation: "write the PNG snapshot", detail: detail)
    }
}
