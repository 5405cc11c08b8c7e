#if canImport(Glibc)
import Glibc
#endif

/// A program started by another (a call client, a test runner) inherits
/// its blocked signals; unblocking the ones we act on means SIGINT and
/// SIGTERM still end the share cleanly and SIGUSR1 still prints diagnostics.
public enum SignalMask {
    public static func unblockControlSignals() {
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGINT, SIGTERM, SIGUSR1] { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
