import CXCB
import Glibc

/// A System V shared-memory segment attached both here and in the X server.
final class X11SharedSegment {
    struct Problem: Error {
        let words: String
    }

    let id: xcb_shm_seg_t
    let address: UnsafeMutableRawPointer
    private let connection: X11Connection

    init(connection: X11Connection, byteCount: Int) throws(Problem) {
        guard connection.firstEvent(of: CXCB_shm_id()) != nil else {
            throw Problem(words: "the X server has no MIT-SHM extension")
        }
        let segment = shmget(CXCB_ipc_private(), byteCount, IPC_CREAT | 0o600)
        guard segment >= 0 else {
            throw Problem(words: "shmget failed: \(String(cString: strerror(errno)))")
        }
        // Marked for removal as soon as both sides hold it (or at once on failure), so
        // a crash cannot leak the segment: the kernel frees it when the last user detaches.
        defer { shmctl(segment, IPC_RMID, nil) }
        guard let address = shmat(segment, nil, 0), address != UnsafeMutableRawPointer(bitPattern: -1) else {
            throw Problem(words: "shmat failed: \(String(cString: strerror(errno)))")
        }
        let c = connection.raw
        let id = xcb_generate_id(c)
        // Read-write: the server writes the image into it.
        let readOnly: UInt8 = 0
        if let error = xcb_request_check(c, xcb_shm_attach_checked(c, id, UInt32(segment), readOnly)) {
            let code = error.pointee.error_code
            free(error)
            shmdt(address)
            // Expected with a remote display: the server cannot see our memory.
            throw Problem(words: "the X server could not attach shared memory (X error \(code); a remote display?)")
        }
        self.id = id
        self.address = address
        self.connection = connection
    }

    deinit {
        xcb_shm_detach(connection.raw, id)
        connection.flush()
        shmdt(address)
    }
}
