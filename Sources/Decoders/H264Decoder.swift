import CAVCodec
import Media

/// H.264 decoding with libavcodec, for the project's own receiver.
public final class H264Decoder: @unchecked Sendable {
    // Safety: a decoder is driven from one thread at a time.
    private let context: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    private let frame: UnsafeMutablePointer<AVFrame>
    private var input: [UInt8] = []
    /// libavcodec reads up to this many bytes past the end of its input.
    private static let inputPadding = Int(AV_INPUT_BUFFER_PADDING_SIZE)

    public init() throws(CodecError) {
        av_log_set_level(AV_LOG_QUIET)
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_H264),
              let context = avcodec_alloc_context3(codec) else {
            throw CodecError(codec: "libavcodec", operation: "open", detail: "no H.264 decoder in this libavcodec")
        }
        // One thread: frames come out as they go in, which the stall statistics rely on.
        context.pointee.thread_count = 1
        // Output each picture as soon as it is decoded; a screen stream has no reordering.
        context.pointee.flags |= Int32(AV_CODEC_FLAG_LOW_DELAY)
        guard avcodec_open2(context, codec, nil) == 0,
              let packet = av_packet_alloc(), let frame = av_frame_alloc() else {
            var c: UnsafeMutablePointer<AVCodecContext>? = context
            avcodec_free_context(&c)
            throw CodecError(codec: "libavcodec", operation: "open", detail: "avcodec_open2 failed")
        }
        self.context = context
        self.packet = packet
        self.frame = frame
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
        var p: UnsafeMutablePointer<AVPacket>? = packet
        av_packet_free(&p)
        var c: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&c)
    }

    /// Decodes one Annex-B access unit. Returns the picture, or nil when the
    /// decoder could not make one from it (no keyframe yet, or broken data).
    public func decode(_ accessUnit: UnsafeRawBufferPointer) -> DecodedPicture? {
        let needed = accessUnit.count + H264Decoder.inputPadding
        if input.count < needed { input = [UInt8](repeating: 0, count: needed) }
        return input.withUnsafeMutableBytes { buffer -> DecodedPicture? in
            buffer.copyMemory(from: accessUnit)
            for i in accessUnit.count..<needed { buffer[i] = 0 }
            packet.pointee.data = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            packet.pointee.size = Int32(accessUnit.count)
            guard avcodec_send_packet(context, packet) == 0 else { return nil }
            guard avcodec_receive_frame(context, frame) == 0 else { return nil }
            let f = frame.pointee
            guard let luma = f.data.0 else { return nil }
            let planar420 = f.format == AV_PIX_FMT_YUV420P.rawValue || f.format == AV_PIX_FMT_YUVJ420P.rawValue
            let chroma = planar420 && f.linesize.1 == f.linesize.2 ? f.data.1.flatMap { u in
                f.data.2.map { v in (UnsafePointer(u), UnsafePointer(v), Int(f.linesize.1)) }
            } : nil
            return DecodedPicture(
                width: Int(f.width), height: Int(f.height),
                luma: UnsafePointer(luma), lumaStride: Int(f.linesize.0), chroma: chroma,
                isKeyframe: f.key_frame != 0)
        }
    }
}
