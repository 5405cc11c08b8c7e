import Encoding
import Media

extension EncoderLayer {
    /// What a layer's encoder has done, for the status and diagnostics of each receiver on it:
    /// its state as it was, and the rates read from it.
    struct Figures {
        var id = 0
        var members = 0
        var counts: LayerState
        var encodedFPS = 0.0
        /// The share of the last second spent inside encode calls.
        var busy = 0.0
        var framesDroppedBusy = 0

        /// Before a receiver has joined a layer: nothing encoded.
        static let none = Figures(counts: LayerState(share: ShareParameters(policy: .balanced, fps: 30), started: .zero))
    }

    var figures: Figures {
        let now = clock.now
        let dropped = Int(pool.counters.droppedAllHeld)
        return lock.withLock {
            Figures(id: id, members: members.count, counts: state, encodedFPS: state.encodedMeter.rate(at: now),
                    busy: state.encodeTime.rate(at: now) / 1_000_000, framesDroppedBusy: dropped)
        }
    }
}
