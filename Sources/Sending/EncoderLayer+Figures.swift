import Encoding
import Media

extension EncoderLayer {
    /// What a layer's encoder has done, for the status and diagnostics of each receiver on it.
    struct Figures {
        var id = 0
        var members = 0
        var encodedSize = (0, 0)
        var encodedFPS = 0.0
        /// The share of the last second spent inside encode calls.
        var busy = 0.0
        var framesIn = 0
        var framesSuperseded = 0
        var framesDroppedLate = 0
        var framesSkippedForRate = 0
        var framesHeldForLink = 0
        var framesEncoded = 0
        var stillRepeats = 0
        var repeatsTaken = 0
        var keyframesMade = 0
        var keyframesAnswered = 0
        var keyframesCoalesced = 0
        var keyframesLeftToRepair = 0
        var generation = 0
        var abandonedEncoders = 0
        var encoderErrors = 0
        var encoderSettings: EncoderSettings?
        var framesDroppedBusy = 0
    }

    var figures: Figures {
        let now = clock.now
        let dropped = Int(pool.counters.droppedAllHeld)
        return lock.withLock {
            Figures(
                id: id, members: members.count, encodedSize: state.encodedSize, encodedFPS: state.encodedMeter.rate(at: now),
                busy: state.encodeTime.rate(at: now) / 1_000_000, framesIn: state.framesIn, framesSuperseded: state.framesSuperseded,
                framesDroppedLate: state.framesDroppedLate, framesSkippedForRate: state.framesSkippedForRate,
                framesHeldForLink: state.framesHeldForLink, framesEncoded: state.framesEncoded, stillRepeats: state.stillRepeats,
                repeatsTaken: state.repeatsTaken, keyframesMade: state.keyframesMade, keyframesAnswered: state.gate.requestsAnswered,
                keyframesCoalesced: state.gate.requestsCoalesced, keyframesLeftToRepair: state.gate.requestsLeftToRepair,
                generation: state.encodeGeneration, abandonedEncoders: state.abandonedEncoders, encoderErrors: state.encoderErrors,
                encoderSettings: state.encoderSettings, framesDroppedBusy: dropped)
        }
    }
}
