#if canImport(Glibc)
import Glibc
#endif

/// A file only this user may read, written whole or not at all, for what
/// holds a secret (an SDP with its key, a restore token): created with mode
/// 0600 under a temporary name beside the target, so that it is never
/// readable by others, not even for a moment, then renamed over the target,
/// so that a reader never sees half of it (docs/behaviour.md §8.3).
public enum PrivateFile {
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// What failed, in words (the system's reason); never the contents.
        public let description: String
    }

    public static func write(_ text: String, to path: String) throws(Failure) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = "\(directory.isEmpty ? "/" : directory)/.\(name).\(getpid()).\(UInt32.random(in: 0 ... .max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: reason()) }
        let bytes = Array(text.utf8)
        var written = 0
        var failure: String?
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                failure = n < 0 ? reason() : "nothing more could be written"
                break
            }
            written += n
        }
        if close(fd) != 0 && failure == nil { failure = reason() }
        if failure == nil && rename(temporary, path) != 0 { failure = reason() }
        if let failure {
            unlink(temporary)
            throw Failure(description: failure)
        }
    }

    private static func reason() -> String {
        String(cString: strerror(errno))
    }
}
