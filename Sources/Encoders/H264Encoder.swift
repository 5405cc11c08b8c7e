import CX264
import Encoding
import Media
import YUV

/// libx264 set up for live screen sharing: zero latency, no B-frames, SPS/PPS
/// repeated before each IDR (a receiver that joins or loses packets can always
/// start from a keyframe), Annex-B output, timestamps in 90 kHz units. Each
/// slice is handed on as soon as it is encoded (`H264SliceCollector`).
public final class H264Encoder: @unchecked Sendable {
    // Safety: an encoder is driven from one thread at a time; x264's slice
    // threads reach only the collector, which locks.
    public private(set) var settings: EncoderSettings
    private let handle: OpaquePointer
    private let collector: H264SliceCollector
    private var param = x264_param_t()
    private var input = x264_picture_t()
    private var output = x264_picture_t()

    /// Slices a frame is cut into: the first packets leave when a quarter of
    /// the encode is done (half, with two slice threads), not all of it. Each
    /// slice boundary costs prediction across it: on the scrolling page at
    /// 1080p and 4 Mbit/s, 4 slices lost 0.001 of SSIM against 2, and 8 lost
    /// 0.0025 for a first packet about a millisecond sooner (docs/benchmarks.md).
    public static let slicesPerFrame = 4

    public init(settings: EncoderSettings) throws(CodecError) {
        self.settings = settings
        guard x264_param_default_preset(&param, settings.preset, "zerolatency") == 0 else {
            throw CodecError(codec: "x264", operation: "preset", detail: "unknown preset \(settings.preset)")
        }
        H264Encoder.apply(settings, to: &param)
        let macroblocks = ((settings.width + 15) / 16) * ((settings.height + 15) / 16)
        param.i_slice_max_mbs = Int32((macroblocks + H264Encoder.slicesPerFrame - 1) / H264Encoder.slicesPerFrame)
        param.nalu_process = H264SliceCollector.callback
        guard x264_param_apply_profile(&param, settings.profile.rawValue) == 0 else {
            throw CodecError(codec: "x264", operation: "profile", detail: "cannot apply \(settings.profile.rawValue)")
        }
        guard let opened = CX264_encoder_open(&param) else {
            throw CodecError(codec: "x264", operation: "open",
                             detail: "\(settings.width)×\(settings.height) at \(settings.fps) fps was refused")
        }
        handle = opened
        collector = H264SliceCollector(macroblocks: macroblocks, frameCapacity: settings.width * settings.height * 3 / 2)
        x264_picture_init(&input)
        input.opaque = Unmanaged.passUnretained(collector).toOpaque()
        input.img.i_csp = X264_CSP_I420
        input.img.i_plane = 3
    }

    deinit {
        x264_encoder_close(handle)
    }

    private static func apply(_ s: EncoderSettings, to p: inout x264_param_t) {
        p.i_width = Int32(s.width)
        p.i_height = Int32(s.height)
        p.i_csp = X264_CSP_I420
        p.i_fps_num = UInt32(s.fps)
        p.i_fps_den = 1
        p.i_timebase_num = 1
        p.i_timebase_den = 90_000
        // Variable-rate input would make x264 hold each frame until the next
        // one's timestamp arrives: a frame of delay, and none at all on a still screen.
        p.b_vfr_input = 0
        p.i_threads = Int32(s.threads)
        p.b_sliced_threads = s.threads > 1 ? 1 : 0
        // No periodic IDR: keyframes come when a receiver asks (PLI/FIR), when recovery needs one,
        // or as the last resort for a receiver that never asks (KeyframeGate).
        p.i_keyint_max = X264_KEYINT_MAX_INFINITE
        p.i_keyint_min = 1
        // No scene-cut IDRs: a window opening is not a reason for a keyframe's
        // burst of bits; keyframes come when asked for.
        p.i_scenecut_threshold = 0
        p.i_bframe = 0
        p.b_repeat_headers = 1
        p.b_annexb = 1
        p.i_level_idc = Int32(s.level.idc)
        p.i_log_level = X264_LOG_ERROR
        p.rc.i_rc_method = X264_RC_ABR
        // Each frame may say which macroblocks are the same as the frame before
        // (`UnchangedMacroblocks`); x264 skips those without a search when the
        // previous frame coded them at least as finely as this one would
        // (docs/behaviour.md §3.6).
        p.analyse.b_mb_info = 1
        H264Encoder.applyRate(s, to: &p)
        if let initial = s.initialBufferBits {
            // x264 takes a fraction of the buffer, and no less than one frame period of the rate.
            p.rc.f_vbv_buffer_init = Float(min(1, Double(initial) / Double(max(1, s.bufferBits))))
        }
        if s.screenContent && !s.favourDetail {
            // Scrolls, dragged windows and typing move by whole pixels, which the
            // full-pixel search finds; refining to half and quarter pixels found
            // nothing on the scrolling page at 1080p and 4 Mbit/s (SSIM unchanged)
            // and cost about a seventh of x264's time (docs/benchmarks.md). Text
            // and detail keeps the refinement: with its weaker deblocking, the text
            // area at 1.5 Mbit/s lost to the defaults without it (TextSettingsTests).
            p.analyse.i_subpel_refine = 0
        }
        if s.favourDetail {
            // Text is thin strokes on flat colour, and the deblocking filter
            // smears exactly those: a weaker filter keeps them. Measured on the
            // scrolling page at 1080p (TextSettingsTests), it raised the text
            // area's SSIM at 1.5 and 3 Mbit/s, where turning off psy-RD as well
            // lowered it at 1.5 Mbit/s: psy-RD keeps strokes' energy when bits are short.
            p.i_deblocking_filter_alphac0 = -1
            p.i_deblocking_filter_beta = -1
        }
    }

    private static func applyRate(_ s: EncoderSettings, to p: inout x264_param_t) {
        let kbps = max(50, s.bitrate / 1000)
        p.rc.i_bitrate = Int32(kbps)
        p.rc.i_vbv_max_bitrate = Int32(kbps)
        // The buffer bounds how far one frame can overshoot the link (docs/behaviour.md §3.3).
        p.rc.i_vbv_buffer_size = Int32(max(s.bufferBits / 1000, 30))
    }

    /// Changes the bitrates on a running encoder (no new keyframe, no renegotiation).
    public func setRate(_ wanted: EncoderSettings) throws(CodecError) {
        settings.bitrate = wanted.bitrate
        settings.bufferBits = wanted.bufferBits
        H264Encoder.applyRate(settings, to: &param)
        guard x264_encoder_reconfig(handle, &param) == 0 else {
            throw CodecError(codec: "x264", operation: "reconfigure", detail: "bitrate \(wanted.bitrate) refused")
        }
    }

    /// Encodes one picture; nil when x264 produced nothing for it. `parts`
    /// hears the frame as it is made — whole NAL units in decoding order,
    /// `endsFrame` on the last — from x264's threads, one call at a time,
    /// during this call only. The frame returned is all of those parts.
    /// `unchanged`, when given, compares this picture with the one this
    /// encoder was given last.
    public func encode(_ picture: I420Picture, rtpTimestamp: UInt32, pts: Int64, keyframe: Bool,
                       unchanged: UnchangedMacroblocks? = nil,
                       parts: EncodedParts = { _, _, _ in }) throws(CodecError) -> EncodedFrame? {
        precondition(picture.width == settings.width && picture.height == settings.height)
        if let unchanged {
            precondition(unchanged.columns == (settings.width + 15) / 16 && unchanged.rows == (settings.height + 15) / 16)
        }
        // x264 reads the map during this call only: the frame is encoded before it returns.
        input.prop.mb_info = unchanged?.map
        input.i_type = keyframe ? X264_TYPE_IDR : X264_TYPE_AUTO
        input.i_pts = pts
        input.img.i_stride = (Int32(picture.strideY), Int32(picture.strideUV), Int32(picture.strideUV), 0)
        input.img.plane = (picture.planeY, picture.planeU, picture.planeV, nil)
        var nals: UnsafeMutablePointer<x264_nal_t>?
        var count: Int32 = 0
        let size = collector.collect(into: parts) { x264_encoder_encode(handle, &nals, &count, &input, &output) }
        guard size >= 0 else {
            throw CodecError(codec: "x264", operation: "encode", detail: "x264_encoder_encode returned \(size)")
        }
        let frame = collector.frame
        guard size > 0, !frame.isEmpty else { return nil }
        return EncodedFrame(bytes: frame, isKeyframe: output.b_keyframe != 0, rtpTimestamp: rtpTimestamp,
                            width: settings.width, height: settings.height)
    }
}
