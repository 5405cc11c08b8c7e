import RTP
import SRTP
import Transport

/// docs/behaviour.md §8.4: plain RTP only to loopback, unless the command says
/// `"insecure": true` and the daemon was started with `--allow-unencrypted`.
/// `share` keeps the same rule for every destination it can be given.
public enum ControlTransportRule {
    public static func check(_ add: AddReceiver, allowUnencrypted: Bool) -> ControlError? {
        guard add.config.srtp == nil else { return nil }
        let destinations = [add.config.destination] + (add.config.rtcpDestination.map { [$0] } ?? [])
        if destinations.allSatisfy(\.isLoopback) { return nil }
        if add.insecure && allowUnencrypted { return nil }
        let why = add.insecure ? "the daemon was not started with --allow-unencrypted"
            : "the command does not say \"insecure\": true (and the daemon must be started with --allow-unencrypted)"
        return ControlError(.insecureRefused, "plain RTP to \(add.config.destination) refused: no srtp key and not loopback, and \(why)",
                            field: "srtp")
    }

    /// A receiver moving to `destination`. Plain RTP stays on loopback unless `mayLeaveLoopback` (an insecure
    /// receiver on a daemon that allows it); a socket bound to loopback, as it is for a loopback receiver
    /// (docs/behaviour.md §7.3), cannot send anywhere else.
    public static func checkMove(_ config: ReceiverConfig, boundTo local: SocketAddress, to destination: SocketAddress,
                                 mayLeaveLoopback: Bool) -> ControlError? {
        if destination.isLoopback { return nil }
        if config.srtp == nil && !mayLeaveLoopback {
            return ControlError(.insecureRefused, "plain RTP to \(destination) refused: not loopback, and the receiver was not added "
                                + "with \"insecure\": true on a daemon started with --allow-unencrypted", field: "destination")
        }
        if local.isLoopback {
            return ControlError(.badField, "\(destination) is not on loopback, and this receiver's socket is bound to \(local) "
                                + "because it was added at a loopback address: remove it and add it again at the new address",
                                field: "destination")
        }
        return nil
    }
}
