import RTP
import SRTP
import Transport

/// docs/behaviour.md §8.4: plain RTP only to loopback, unless the command says
/// `"insecure": true` and the daemon was started with `--allow-unencrypted`.
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
}
