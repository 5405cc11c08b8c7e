import CSRTP

/// libsrtp wants `srtp_init()` once per process before any session; a
/// static `let` runs its initializer exactly once, thread-safely.
enum SRTPLibrary {
    private static let initialization: Result<Void, SRTPError> = {
        let status = srtp_init()
        return status == srtp_err_status_ok ? .success(()) : .failure(.library(function: "srtp_init", status: Int32(status.rawValue)))
    }()

    static func ensureInitialized() throws(SRTPError) {
        try initialization.get()
    }

    /// Maps a libsrtp status to an error; the cases a caller acts on get their own.
    static func check(_ status: srtp_err_status_t, _ function: String) throws(SRTPError) {
        switch status {
        case srtp_err_status_ok: return
        case srtp_err_status_auth_fail: throw .authenticationFailed
        case srtp_err_status_replay_fail, srtp_err_status_replay_old: throw .replayed
        default: throw .library(function: function, status: Int32(status.rawValue))
        }
    }
}
