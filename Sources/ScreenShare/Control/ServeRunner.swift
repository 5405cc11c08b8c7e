import Dispatch
import Events
import Foundation
import Media
import ControlProtocol

/// Runs `screenshare serve`: one call client on the control channel, a share
/// it drives, status once a second. When the client closes the channel (or
/// SIGINT/SIGTERM arrives) the share ends cleanly, with RTCP BYE to every
/// receiver, and the program exits.
public final class ServeRunner: @unchecked Sendable {
    // Safety: `waitingListener` is guarded by `lock`; the rest is set up before threads start.
    private let options: ServeOptions
    private let lock = NSLock()
    private let heartbeat = ShareHeartbeat(clock: SystemClock())
    /// Set while waiting for the client: a signal then removes the socket and exits.
    private var waitingListener: UnixSocketListener?
    private var signalSources: [DispatchSourceSignal] = []

    public init(options: ServeOptions) {
        self.options = options
    }

    public func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        installSignalHandlers()
        switch options.control {
        case .stdio:
            serve(ControlChannel.stdio)
            return 0
        case .unix(let path):
            let listener: UnixSocketListener
            do {
                listener = try UnixSocketListener(path: path)
            } catch {
                FileHandle.standardError.write(Data("screenshare serve: \(error)\n".utf8))
                return 1
            }
            defer { listener.close() }
            FileHandle.standardError.write(Data("screenshare serve: waiting for the call client on \(path)\n".utf8))
            // A connection that closes without a line (a probe, such as
            // another serve checking whether the socket is stale) is not the
            // call client: wait for the next.
            while true {
                lock.withLock { waitingListener = listener }
                let client: Int32
                do {
                    client = try listener.accept()
                    lock.withLock { waitingListener = nil }
                } catch {
                    FileHandle.standardError.write(Data("screenshare serve: \(error)\n".utf8))
                    return 1
                }
                let channel = ControlChannel(input: client, output: client)
                ControlServer(output: EventOutput(format: .json) { line, _ in channel.write(line) }).greet()
                guard let first = channel.readLine() else {
                    channel.finish()
                    Glibc.close(client)
                    continue
                }
                listener.refuseOthers(with: ServeRunner.busy)
                serve(channel, firstLine: first, greet: false)
                shutdown(client, Int32(SHUT_RDWR))
                Glibc.close(client)
                break
            }
            return 0
        }
    }

    /// What a second client on the socket is told before it is closed.
    static let busy = JSONValue.object([("event", .string("error"))] + ControlError(
        .busy, "another call client is already connected to this screenshare serve; it takes one at a time").json).serialized

    private func serve(_ channel: ControlChannel, firstLine: String? = nil, greet: Bool = true) {
        let output = EventOutput(format: .json, level: options.logLevel) { line, _ in channel.write(line) }
        let server = ControlServer(output: output, allowUnencrypted: options.allowUnencrypted)
        // A client that stops reading is gone, as one that closes: the share ends (docs/behaviour.md §8.1).
        channel.whenGone { [self] in finish() }
        if greet { server.greet() }
        let reader = Thread { [self] in
            if let firstLine { server.handle(firstLine) }
            while let line = channel.readLine() { server.handle(line) }
            finish()
        }
        reader.name = "control-reader"
        reader.start()
        heartbeat.run(recovery: server.lookAfterRecovery) { _ in
            server.sendStatus()
            return true
        }
        server.close()
        channel.finish()
    }

    private func finish() {
        heartbeat.stop()
    }

    private func installSignalHandlers() {
        for sig in [SIGINT, SIGTERM] {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [self] in
                if let listener = lock.withLock({ waitingListener }) {
                    listener.close()
                    exit(0)
                }
                finish()
            }
            source.resume()
            signalSources.append(source)
        }
    }
}
