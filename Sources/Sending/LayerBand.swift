import Media

/// Which bitrate class a receiver's estimate puts it in (docs/behaviour.md §12):
/// at least half of the share's top rate, at least a quarter, or below. A
/// receiver changes class only once its target has stood a quarter past the
/// edge for a few seconds: each move costs it a keyframe, and an estimate
/// near an edge would otherwise move it back and forth.
struct LayerBand: Sendable {
    static let count = 3
    /// How far past an edge a target must be to count as over it.
    static let margin = 1.25
    static let dwell: Duration = .seconds(3)

    private(set) var band: Int
    private var beyondSince: (band: Int, at: Instant)?

    init(target: Int, top: Int) {
        band = LayerBand.natural(target: target, top: top)
    }

    /// The class with no hysteresis: 0 from half of `top`, 1 from a quarter, 2 below.
    static func natural(target: Int, top: Int) -> Int {
        var band = 0
        var edge = Double(top) / 2
        while band < count - 1 && Double(target) < edge {
            band += 1
            edge /= 2
        }
        return band
    }

    /// The lower edge of `band` (its upper one is the lower edge of `band − 1`).
    private static func lowerEdge(of band: Int, top: Int) -> Double {
        band >= count - 1 ? 0 : Double(top) / Double(2 << band)
    }

    /// Takes the target at `now` and `layerRate`, the least target on the receiver's layer;
    /// returns true when the class changed. A rise counts only as far as the layer's rate: a
    /// receiver sent another's lower rate has an estimate untried above what it is sent (one
    /// climbed to 1.22 Mbit/s while 0.55–0.80 were sent), and two receivers behind one uplink
    /// split on it onto two encoders that contend for that uplink.
    mutating func update(target: Int, layerRate: Int, top: Int, at now: Instant) -> Bool {
        let tried = min(target, layerRate)
        let below = Double(target) < LayerBand.lowerEdge(of: band, top: top) / LayerBand.margin
        let above = band > 0 && Double(tried) >= LayerBand.lowerEdge(of: band - 1, top: top) * LayerBand.margin
        guard below || above else {
            beyondSince = nil
            return false
        }
        let wanted = LayerBand.natural(target: below ? target : tried, top: top)
        if let since = beyondSince, since.band == wanted {
            guard now - since.at >= LayerBand.dwell else { return false }
            band = wanted
            beyondSince = nil
            return true
        }
        beyondSince = (wanted, now)
        return false
    }
}
