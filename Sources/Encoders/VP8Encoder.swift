import CVPX
import Encoding
import YUV
import Media

/// libvpx's VP8 encoder set up for live screen sharing: the realtime
/// deadline, screen-content mode, error-resilient partitions, CBR at the
/// target bitrate, no lag, keyframes only when asked for. For a receiver
/// that does not take H.264 (docs/behaviour.md §3.5).
public final class VP8Encoder: @unchecked Sendable {
    // Safety: an encoder is driven from one thread at a time.
    public private(set) var settings: EncoderSettings
    private let context: UnsafeMutablePointer<vpx_codec_ctx_t>
    private let config: UnsafeMutablePointer<vpx_codec_enc_cfg_t>
    private var image = vpx_image_t()
    private var output: [UInt8] = []
    private var pts: Int64 = 0
    private var lastTimestamp: UInt32?
    /// Whether a keyframe has been made: until then the first picture's bound holds.
    private var keyframeMade = false

    /// libvpx's speed for the realtime deadline: 8 of 16 leaves CPU for
    /// several receivers' encoders at 1080p30 while text stays readable.
    public static let cpuUsed: Int32 = 8
    /// 1 = screen content (text and flat colour); 2 adds aggressive rate control.
    static let screenContentMode: Int32 = 1

    public init(settings: EncoderSettings) throws(CodecError) {
        self.settings = settings
        context = .allocate(capacity: 1)
        context.initialize(to: vpx_codec_ctx_t())
        config = .allocate(capacity: 1)
        config.initialize(to: vpx_codec_enc_cfg_t())
        guard vpx_codec_enc_config_default(vpx_codec_vp8_cx(), config, 0) == VPX_CODEC_OK else {
            VP8Encoder.free(context, config, initialised: false)
            throw CodecError(codec: "libvpx", operation: "configure", detail: "no default VP8 encoder configuration")
        }
        VP8Encoder.apply(settings, to: &config.pointee)
        let opened = CVPX_enc_init(context, config, 0)
        guard opened == VPX_CODEC_OK else {
            let detail = String(cString: vpx_codec_err_to_string(opened))
            VP8Encoder.free(context, config, initialised: false)
            throw CodecError(codec: "libvpx", operation: "open",
                             detail: "\(settings.width)×\(settings.height) at \(settings.fps) fps was refused: \(detail)")
        }
        for (control, value) in [(VP8E_SET_CPUUSED, VP8Encoder.cpuUsed),
                                 (VP8E_SET_SCREEN_CONTENT_MODE, VP8Encoder.screenContentMode),
                                 (VP8E_SET_NOISE_SENSITIVITY, 0),
                                 (VP8E_SET_STATIC_THRESHOLD, 1),
                                 (VP8E_SET_MAX_INTRA_BITRATE_PCT, VP8Encoder.keyframePercent(settings, first: true))] {
            guard CVPX_control_int(context, Int32(control.rawValue), value) == VPX_CODEC_OK else {
                let detail = VP8Encoder.message(context)
                VP8Encoder.free(context, config, initialised: true)
                throw CodecError(codec: "libvpx", operation: "control \(control.rawValue)", detail: detail)
            }
        }
        output.reserveCapacity(settings.width * settings.height / 2)
    }

    deinit {
        VP8Encoder.free(context, config, initialised: true)
    }

    private static func free(_ context: UnsafeMutablePointer<vpx_codec_ctx_t>, _ config: UnsafeMutablePointer<vpx_codec_enc_cfg_t>,
                             initialised: Bool) {
        if initialised { vpx_codec_destroy(context) }
        context.deallocate()
        config.deallocate()
    }

    static func message(_ context: UnsafeMutablePointer<vpx_codec_ctx_t>) -> String {
        var text = String(cString: vpx_codec_error(context))
        if let detail = vpx_codec_error_detail(context) { text += ": " + String(cString: detail) }
        return text
    }

    private static func apply(_ s: EncoderSettings, to c: inout vpx_codec_enc_cfg_t) {
        c.g_w = UInt32(s.width)
        c.g_h = UInt32(s.height)
        c.g_timebase = vpx_rational(num: 1, den: 90_000)
        c.g_threads = UInt32(s.threads)
        c.g_lag_in_frames = 0
        c.g_error_resilient = vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT)
        c.g_pass = VPX_RC_ONE_PASS
        c.rc_end_usage = VPX_CBR
        // The encoder never skips a frame on its own: the send policy decides what falls.
        c.rc_dropframe_thresh = 0
        c.rc_min_quantizer = 2
        c.rc_max_quantizer = 56
        c.rc_undershoot_pct = 100
        c.rc_overshoot_pct = 15
        // Buffer sizes in milliseconds, as WebRTC sets them for realtime.
        c.rc_buf_initial_sz = 500
        c.rc_buf_optimal_sz = 600
        c.rc_buf_sz = 1000
        // As x264: no periodic keyframe; they come when asked for (KeyframeGate).
        c.kf_mode = VPX_KF_DISABLED
        applyRate(s, to: &c)
    }

    private static func applyRate(_ s: EncoderSettings, to c: inout vpx_codec_enc_cfg_t) {
        c.rc_target_bitrate = kilobits(s)
    }

    /// The rate libvpx is given, in its unit.
    private static func kilobits(_ s: EncoderSettings) -> UInt32 {
        UInt32(max(50, s.bitrate / 1000))
    }

    /// The most a keyframe may take, as libvpx counts it: a share of one frame's bits at the
    /// rate, in percent. libvpx's own sizes are far larger: its first picture is half of the
    /// initial buffer (250 ms of the rate; 125 KB at 4 Mbit/s), and later ones four to seven frames' worth.
    /// So VP8 keeps the bounds x264's VBV keeps (docs/behaviour.md §7.7): the first picture
    /// no more than the initial fill allows, the ones after it no more than the buffer.
    static func keyframePercent(_ s: EncoderSettings, first: Bool) -> Int32 {
        let bits = first ? (s.initialBufferBits ?? s.bufferBits) : s.bufferBits
        let frameBits = Double(kilobits(s)) * 1000 / Double(max(1, s.fps))
        return Int32(max(100, min(Double(Int32.max), 100 * Double(bits) / frameBits)))
    }

    /// Changes the bitrate and the keyframe bound on a running encoder (vpx_codec_enc_config_set):
    /// no keyframe, no new stream.
    public func setRate(_ wanted: EncoderSettings) throws(CodecError) {
        settings.bitrate = wanted.bitrate
        settings.bufferBits = wanted.bufferBits
        VP8Encoder.applyRate(settings, to: &config.pointee)
        guard vpx_codec_enc_config_set(context, config) == VPX_CODEC_OK else {
            throw CodecError(codec: "libvpx", operation: "reconfigure",
                             detail: "bitrate \(wanted.bitrate) refused: \(VP8Encoder.message(context))")
        }
        try boundKeyframes()
    }

    private func boundKeyframes() throws(CodecError) {
        let percent = VP8Encoder.keyframePercent(settings, first: !keyframeMade)
        guard CVPX_control_int(context, Int32(VP8E_SET_MAX_INTRA_BITRATE_PCT.rawValue), percent) == VPX_CODEC_OK else {
            throw CodecError(codec: "libvpx", operation: "reconfigure",
                             detail: "keyframe bound \(percent) % refused: \(VP8Encoder.message(context))")
        }
    }

    /// Encodes one picture; nil when libvpx produced nothing for it.
    /// `rtpTimestamp` sets the picture's time; libvpx is given it unwrapped,
    /// so its rate control sees time move forward across a wrap.
    public func encode(_ picture: I420Picture, rtpTimestamp: UInt32, keyframe: Bool) throws(CodecError) -> EncodedFrame? {
        precondition(picture.width == settings.width && picture.height == settings.height)
        let frameTicks = Int64(90_000 / max(1, settings.fps))
        if let last = lastTimestamp {
            pts += max(1, Int64(Int32(bitPattern: rtpTimestamp &- last)))
        }
        lastTimestamp = rtpTimestamp
        _ = vpx_img_wrap(&image, VPX_IMG_FMT_I420, UInt32(picture.width), UInt32(picture.height), 1, picture.planeY)
        image.planes = (picture.planeY, picture.planeU, picture.planeV, nil)
        image.stride = (Int32(picture.strideY), Int32(picture.strideUV), Int32(picture.strideUV), 0)
        let flags = keyframe ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : 0
        guard vpx_codec_encode(context, &image, pts, UInt(frameTicks), flags, UInt(VPX_DL_REALTIME)) == VPX_CODEC_OK else {
            throw CodecError(codec: "libvpx", operation: "encode", detail: VP8Encoder.message(context))
        }
        output.removeAll(keepingCapacity: true)
        var isKeyframe = false
        var iterator: vpx_codec_iter_t?
        while let packet = vpx_codec_get_cx_data(context, &iterator) {
            guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
            let frame = packet.pointee.data.frame
            guard let buffer = frame.buf else { continue }
            output.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: frame.sz))
            if frame.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY) != 0 { isKeyframe = true }
        }
        guard !output.isEmpty else { return nil }
        if isKeyframe, !keyframeMade {
            keyframeMade = true
            try boundKeyframes()
        }
        return output.withUnsafeBytes { bytes in
            EncodedFrame(bytes: bytes, isKeyframe: isKeyframe, rtpTimestamp: rtpTimestamp,
                         width: settings.width, height: settings.height)
        }
    }
}
