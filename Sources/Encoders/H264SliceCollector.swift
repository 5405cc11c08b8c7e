import CX264
import Glibc
import Synchronization

/// Takes the NAL units x264 finishes (its `nalu_process` callback), puts them
/// in decoding order and hands on each run that is ready at once, so the
/// first packets of a frame leave while its later slices are still being
/// encoded.
///
/// The header units (SPS, PPS, SEI) come first, from the encoding thread,
/// and go on with the first slice; the slices come from x264's slice
/// threads, in whatever order those finish. Constrained Baseline allows no
/// arbitrary slice order, so a slice waits until every macroblock before it
/// has been handed on. The frame's last slice carries `endsFrame`.
final class H264SliceCollector: @unchecked Sendable {
    // Safety: everything mutable is in `state`. Each unit's buffer is written,
    // outside the lock, only by the thread that reserved it.
    private struct Unit {
        var slot: Int
        var length: Int
        var firstMB: Int
        var lastMB: Int
        var isIDR: Bool
    }

    private struct State {
        var buffers: [(bytes: UnsafeMutableRawPointer, capacity: Int)] = []
        var reserved = 0
        var headers: [Unit] = []
        var slices: [Unit] = []
        var nextMB = 0
        var ended = false
        /// The frame so far, in decoding order.
        var frame: UnsafeMutableRawPointer
        var frameCapacity: Int
        var frameLength = 0
        var sink: EncodedParts?
    }

    let macroblocks: Int
    private let state: Mutex<State>

    init(macroblocks: Int, frameCapacity: Int) {
        self.macroblocks = macroblocks
        let capacity = max(frameCapacity, 4096)
        state = Mutex(State(frame: .allocate(byteCount: capacity, alignment: 16), frameCapacity: capacity))
    }

    deinit {
        state.withLock { s in
            for buffer in s.buffers { buffer.bytes.deallocate() }
            s.frame.deallocate()
        }
    }

    /// The callback x264 is given; `opaque` is the collector (the input picture's opaque pointer).
    static let callback: @convention(c) (OpaquePointer?, UnsafeMutablePointer<x264_nal_t>?, UnsafeMutableRawPointer?) -> Void = { h, nal, opaque in
        guard let nal, let opaque else { return }
        Unmanaged<H264SliceCollector>.fromOpaque(opaque).takeUnretainedValue().finished(nal, encoder: h)
    }

    /// The frame handed on so far; valid until the next `begin`.
    var frame: UnsafeRawBufferPointer {
        state.withLock { UnsafeRawBufferPointer(start: $0.frame, count: $0.frameLength) }
    }

    /// Runs `encode` (one x264_encoder_encode call) with `sink` hearing each
    /// part as it is ready; anything x264 left out of order goes at the end.
    func collect<R>(into sink: EncodedParts, _ encode: () -> R) -> R {
        withoutActuallyEscaping(sink) { sink in
            state.withLock { s in
                s.reserved = 0
                s.headers.removeAll(keepingCapacity: true)
                s.slices.removeAll(keepingCapacity: true)
                s.nextMB = 0
                s.ended = false
                s.frameLength = 0
                s.sink = sink
            }
            let result = encode()
            state.withLock { s in
                flushRemaining(&s)
                s.sink = nil
            }
            return result
        }
    }

    private func finished(_ nal: UnsafeMutablePointer<x264_nal_t>, encoder: OpaquePointer?) {
        // x264_nal_encode writes the start code, header and escaped payload: at most this much.
        let needed = Int(nal.pointee.i_payload) * 3 / 2 + 5 + 64
        let (slot, bytes) = state.withLock { s in reserve(&s, needed) }
        x264_nal_encode(encoder, bytes.assumingMemoryBound(to: UInt8.self), nal)
        let type = nal.pointee.i_type
        let isIDR = type == Int32(NAL_SLICE_IDR.rawValue)
        let isSlice = isIDR || type == Int32(NAL_SLICE.rawValue)
        let unit = Unit(slot: slot, length: Int(nal.pointee.i_payload),
                        firstMB: Int(nal.pointee.i_first_mb), lastMB: Int(nal.pointee.i_last_mb), isIDR: isIDR)
        state.withLock { s in
            if isSlice {
                s.slices.append(unit)
                handOnReady(&s)
            } else {
                s.headers.append(unit)
            }
        }
    }

    private func reserve(_ s: inout State, _ needed: Int) -> (Int, UnsafeMutableRawPointer) {
        let slot = s.reserved
        s.reserved += 1
        if slot == s.buffers.count {
            s.buffers.append((.allocate(byteCount: needed, alignment: 16), needed))
        } else if s.buffers[slot].capacity < needed {
            s.buffers[slot].bytes.deallocate()
            s.buffers[slot] = (.allocate(byteCount: needed, alignment: 16), needed)
        }
        return (slot, s.buffers[slot].bytes)
    }

    /// Hands on, in macroblock order, every slice whose predecessors have gone.
    private func handOnReady(_ s: inout State) {
        while let index = s.slices.firstIndex(where: { $0.firstMB == s.nextMB }) {
            let slice = s.slices.remove(at: index)
            s.nextMB = slice.lastMB + 1
            handOn(&s, slice, endsFrame: s.nextMB >= macroblocks)
        }
    }

    /// What x264 left behind (a gap it never filled): in macroblock order, the last ending the frame.
    private func flushRemaining(_ s: inout State) {
        s.slices.sort { $0.firstMB < $1.firstMB }
        while !s.slices.isEmpty {
            let slice = s.slices.removeFirst()
            handOn(&s, slice, endsFrame: s.slices.isEmpty)
        }
        if !s.headers.isEmpty, !s.ended, let sink = s.sink {
            // Headers and no slice: nothing decodable, but the frame still ends.
            let start = s.frameLength
            for unit in s.headers { append(&s, unit) }
            s.headers.removeAll(keepingCapacity: true)
            sink(UnsafeRawBufferPointer(start: s.frame + start, count: s.frameLength - start), true, false)
            s.ended = true
        }
    }

    /// Appends the waiting headers and `slice` to the frame and gives them to the sink as one part.
    private func handOn(_ s: inout State, _ slice: Unit, endsFrame: Bool) {
        let start = s.frameLength
        for unit in s.headers { append(&s, unit) }
        s.headers.removeAll(keepingCapacity: true)
        append(&s, slice)
        s.ended = s.ended || endsFrame
        s.sink?(UnsafeRawBufferPointer(start: s.frame + start, count: s.frameLength - start), endsFrame, slice.isIDR)
    }

    private func append(_ s: inout State, _ unit: Unit) {
        if s.frameLength + unit.length > s.frameCapacity {
            let capacity = max(s.frameCapacity * 2, s.frameLength + unit.length)
            let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            grown.copyMemory(from: s.frame, byteCount: s.frameLength)
            s.frame.deallocate()
            s.frame = grown
            s.frameCapacity = capacity
        }
        (s.frame + s.frameLength).copyMemory(from: s.buffers[unit.slot].bytes, byteCount: unit.length)
        s.frameLength += unit.length
    }
}
