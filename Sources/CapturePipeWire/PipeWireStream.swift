#if canImport(Glibc)
import Glibc
#endif
import CPipeWire
import Capture

/// What a `PipeWireStream` tells its owner, on the loop thread with the lock held.
protocol PipeWireStreamDelegate: AnyObject {
    func streamStateChanged(to state: pw_stream_state, error: String?)
    func streamParamChanged(id: UInt32, param: UnsafePointer<spa_pod>?)
    func streamProcess()
    /// PipeWire is taking `buffer` back (renegotiation, the stream ending): whoever holds it must let go.
    func streamBufferRemoved(_ buffer: UnsafeMutablePointer<pw_buffer>)
}

extension PipeWireStreamDelegate {
    func streamBufferRemoved(_ buffer: UnsafeMutablePointer<pw_buffer>) {}
}

/// Owns a `pw_stream` and the listener that turns its C callbacks into
/// delegate calls. The C side gets this object as unretained user data, so
/// the stream is destroyed before this object goes.
final class PipeWireStream {
    private(set) var handle: OpaquePointer?
    private let events = UnsafeMutablePointer<pw_stream_events>.allocate(capacity: 1)
    private let hook = UnsafeMutablePointer<spa_hook>.allocate(capacity: 1)
    weak var delegate: (any PipeWireStreamDelegate)?

    /// `properties` is PipeWire's "key=value key=value" form.
    init(core: OpaquePointer, name: String, properties: String) throws(CaptureError) {
        events.initialize(to: pw_stream_events())
        hook.initialize(to: spa_hook())
        guard let props = pw_properties_new_string(properties), let stream = pw_stream_new(core, name, props) else {
            events.deallocate()
            hook.deallocate()
            throw CaptureError(.temporary, "Could not make a PipeWire stream (is the PipeWire connection still up?)")
        }
        handle = stream
        events.pointee.version = UInt32(PW_VERSION_STREAM_EVENTS)
        events.pointee.state_changed = { data, _, state, error in
            let me = Unmanaged<PipeWireStream>.fromOpaque(data!).takeUnretainedValue()
            me.delegate?.streamStateChanged(to: state, error: error.map { String(cString: $0) })
        }
        events.pointee.param_changed = { data, id, param in
            let me = Unmanaged<PipeWireStream>.fromOpaque(data!).takeUnretainedValue()
            me.delegate?.streamParamChanged(id: id, param: param)
        }
        events.pointee.process = { data in
            let me = Unmanaged<PipeWireStream>.fromOpaque(data!).takeUnretainedValue()
            me.delegate?.streamProcess()
        }
        events.pointee.remove_buffer = { data, buffer in
            let me = Unmanaged<PipeWireStream>.fromOpaque(data!).takeUnretainedValue()
            if let buffer { me.delegate?.streamBufferRemoved(buffer) }
        }
        pw_stream_add_listener(stream, hook, events, Unmanaged.passUnretained(self).toOpaque())
    }

    func connect(direction: spa_direction, target: UInt32, flags: [pw_stream_flags],
                 params: PipeWireParamList) throws(CaptureError) {
        guard let handle else { return }
        let combined = pw_stream_flags(rawValue: flags.reduce(0) { $0 | $1.rawValue })
        var pods = params.pods
        let result = pw_stream_connect(handle, direction, target, combined, &pods, UInt32(pods.count))
        guard result >= 0 else {
            throw CaptureError(.temporary, "Could not connect the PipeWire stream: \(String(cString: strerror(-result)))")
        }
    }

    func updateParams(_ params: PipeWireParamList) {
        guard let handle else { return }
        var pods = params.pods
        _ = pw_stream_update_params(handle, &pods, UInt32(pods.count))
    }

    var nodeID: UInt32 {
        guard let handle else { return CPipeWire_ID_ANY() }
        return pw_stream_get_node_id(handle)
    }

    func destroy() {
        guard let handle else { return }
        spa_hook_remove(hook)
        pw_stream_destroy(handle)
        self.handle = nil
    }

    deinit {
        destroy()
        events.deallocate()
        hook.deallocate()
    }
}
