import Encoding
import Events
import Foundation
import Media

/// A share's layers, and which receiver is on which (docs/behaviour.md §12).
/// A receiver joins the layer of its stream and bitrate class, or a new one;
/// as its estimate moves it changes class (with `LayerBand`'s hysteresis) and
/// moves to that class's layer. A receiver alone on its layer takes the layer
/// with it rather than move, so one receiver keeps one encoder throughout, and
/// so do all of a layer's receivers when their class changes alike. A rise
/// counts only as far as the layer's rate, so a layer's receivers rise
/// together. A receiver with an injected fault has a layer of its own.
package final class EncoderLayers: @unchecked Sendable {
    // Safety: guarded by `lock`. Lock order: this lock, then a layer's, then a connection's.
    private struct Entry {
        let layer: EncoderLayer
        var band: Int
        var shared: Bool { layer.fault == nil }
    }

    private struct Member {
        let connection: SenderConnection
        var band: LayerBand
        var layer: EncoderLayer
    }

    private let lock = NSLock()
    private let clock: any MonotonicClock
    private let output: EventOutput
    private let pool: SurfacePool
    private let latestFrame: @Sendable () -> Surface?
    private var share: ShareParameters
    private var layers: [Entry] = []
    private var members: [Member] = []
    private var nextID = 1
    private var lastRebalance: Instant?
    /// Moves between layers so far, for diagnostics.
    private var moves = 0

    package init(share: ShareParameters, clock: any MonotonicClock, output: EventOutput, pool: SurfacePool,
                 latestFrame: @escaping @Sendable () -> Surface?) {
        self.share = share
        self.clock = clock
        self.output = output
        self.pool = pool
        self.latestFrame = latestFrame
    }

    package var connections: [SenderConnection] { lock.withLock { members.map(\.connection) } }
    package var layerCount: Int { lock.withLock { layers.count } }

    /// The highest cap among the receivers: the bands are halvings of it.
    private var top: Int { members.map(\.connection.config.bitrateCap).max() ?? 1 }

    package func add(_ connection: SenderConnection, fault: EncoderFault?) {
        lock.withLock {
            let now = clock.now
            let capTop = max(top, connection.config.bitrateCap)
            let band = LayerBand(target: connection.target(at: now).bitrate, top: capTop)
            let layer = fault == nil ? shared(LayerKey(connection.config), band: band.band) : nil
            let chosen = layer ?? newLayer(LayerKey(connection.config), band: band.band, fault: fault)
            members.append(Member(connection: connection, band: band, layer: chosen))
            chosen.join(connection)
        }
    }

    package func remove(_ connection: SenderConnection) {
        lock.withLock {
            guard let index = members.firstIndex(where: { $0.connection === connection }) else { return }
            let member = members.remove(at: index)
            leave(member.layer, connection)
        }
    }

    /// Every layer takes the capture.
    package func offer(_ surface: Surface) {
        for layer in lock.withLock({ layers.map(\.layer) }) { layer.offer(surface) }
    }

    package func setPolicy(_ policy: SendPolicy) {
        let all = lock.withLock { () -> [EncoderLayer] in
            share.policy = policy
            return layers.map(\.layer)
        }
        for layer in all { layer.setPolicy(policy) }
    }

    /// Looks at every receiver's class, once a second at most, and moves those whose class changed.
    package func rebalance() {
        lock.withLock {
            let now = clock.now
            if let last = lastRebalance, now - last < .seconds(1) { return }
            lastRebalance = now
            let top = self.top
            let targets = members.map { $0.connection.target(at: now).bitrate }
            // Each layer's rate: the least of its members' targets, as the layer encodes at.
            var layerRates: [ObjectIdentifier: Int] = [:]
            for (member, target) in zip(members, targets) {
                layerRates[ObjectIdentifier(member.layer)] = min(layerRates[ObjectIdentifier(member.layer)] ?? target, target)
            }
            let changed = members.indices.filter { i in
                members[i].band.update(target: targets[i], layerRate: layerRates[ObjectIdentifier(members[i].layer)] ?? targets[i],
                                       top: top, at: now)
            }
            for i in changed {
                let (layer, band) = (members[i].layer, members[i].band.band)
                // Every member of the layer now in the one class: a new encoder would cost them all a keyframe for nothing.
                let together = members.allSatisfy { $0.layer !== layer || $0.band.band == band }
                place(&members[i], together: together)
            }
        }
    }

    /// Puts `member`, whose class changed, on that class's layer; `together`: every member of its
    /// layer is in that class now. Call with `lock` held.
    private func place(_ member: inout Member, together: Bool) {
        let band = member.band.band
        let key = LayerKey(member.connection.config)
        guard let from = layers.firstIndex(where: { $0.layer === member.layer }), layers[from].shared else { return }
        if let to = layers.firstIndex(where: { $0.shared && $0.band == band && $0.layer.key == key && $0.layer !== member.layer }) {
            move(&member, to: layers[to].layer, band: band)
        } else if together {
            layers[from].band = band
        } else {
            move(&member, to: newLayer(key, band: band, fault: nil), band: band)
        }
    }

    private func move(_ member: inout Member, to layer: EncoderLayer, band: Int) {
        let from = member.layer
        member.layer = layer
        moves += 1
        output.log(.info, "screen", "\(member.connection.config.displayName): to layer \(layer.id) (class \(band))")
        leave(from, member.connection)
        layer.join(member.connection)
    }

    /// The layer of `key` and `band` receivers share, if there is one. Call with `lock` held.
    private func shared(_ key: LayerKey, band: Int) -> EncoderLayer? {
        layers.first { $0.shared && $0.band == band && $0.layer.key == key }?.layer
    }

    private func newLayer(_ key: LayerKey, band: Int, fault: EncoderFault?) -> EncoderLayer {
        let layer = EncoderLayer(id: nextID, key: key, share: share, clock: clock, output: output, pool: pool,
                                 fault: fault, latestFrame: latestFrame)
        nextID += 1
        layers.append(Entry(layer: layer, band: band))
        layer.start()
        return layer
    }

    /// Takes `connection` off `layer`, and stops the layer if no one is left on it. Call with `lock` held.
    private func leave(_ layer: EncoderLayer, _ connection: SenderConnection) {
        guard layer.leave(connection) else { return }
        layers.removeAll { $0.layer === layer }
        layer.stop()
    }

    /// One line for diagnostics: the layers, and who is on each.
    package var diagnosticLine: String {
        lock.withLock {
            let each = layers.map { entry in
                let names = members.filter { $0.layer === entry.layer }.map(\.connection.config.displayName)
                return "\(entry.layer.id) (class \(entry.band)): \(names.joined(separator: ", "))"
            }
            return "layers: \(layers.count), moves \(moves); " + each.joined(separator: "; ")
        }
    }
}
