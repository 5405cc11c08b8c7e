import CVPX
import Media

/// VP8 decoding with libvpx, for the project's own receiver.
public final class VP8Decoder: @unchecked Sendable {
    // Safety: a decoder is driven from one thread at a time.
    private let context: UnsafeMutablePointer<vpx_codec_ctx_t>

    public init() throws(CodecError) {
        context = .allocate(capacity: 1)
        context.initialize(to: vpx_codec_ctx_t())
        let opened = CVPX_dec_init(context)
        guard opened == VPX_CODEC_OK else {
            context.deallocate()
            throw CodecError(codec: "libvpx", operation: "open", detail: String(cString: vpx_codec_err_to_string(opened)))
        }
    }

    deinit {
        vpx_codec_destroy(context)
        context.deallocate()
    }

    /// Decodes one VP8 frame. Returns the picture, or nil when the decoder
    /// could not make one from it (no keyframe yet, or broken data).
    public func decode(_ frame: UnsafeRawBufferPointer) -> DecodedPicture? {
        guard let base = frame.baseAddress?.assumingMemoryBound(to: UInt8.self), !frame.isEmpty else { return nil }
        guard vpx_codec_decode(context, base, UInt32(frame.count), nil, 0) == VPX_CODEC_OK else { return nil }
        var iterator: vpx_codec_iter_t?
        guard let image = vpx_codec_get_frame(context, &iterator), let luma = image.pointee.planes.0 else { return nil }
        let i = image.pointee
        // VP8 is always 4:2:0.
        let chroma = i.stride.1 == i.stride.2 ? i.planes.1.flatMap { u in
            i.planes.2.map { v in (UnsafePointer(u), UnsafePointer(v), Int(i.stride.1)) }
        } : nil
        // RFC 6386 §9.1: bit 0 of the frame tag is 0 for a key frame.
        return DecodedPicture(width: Int(i.d_w), height: Int(i.d_h),
                              luma: UnsafePointer(luma), lumaStride: Int(i.stride.0), chroma: chroma,
                              isKeyframe: base[0] & 1 == 0)
    }
}
