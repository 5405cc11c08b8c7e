import CXCB
import Glibc
import Media

/// Reads rectangles of the root window into memory this process can write
/// (so the cursor can be drawn in before the picture is copied on).
///
/// MIT-SHM first: the server writes straight into a segment we share with
/// it, 0.17 ms for 1920×1080 instead of 1.8 ms through the socket. Without
/// it (a remote display, or a server built without it) plain GetImage.
/// Where the server takes shared memory by descriptor (MIT-SHM 1.2, over a
/// local socket), it writes into a surface's own memory, and the copy from
/// the segment (0.8 ms a 1080p frame, 7 % of the share's CPU) is saved.
final class X11ImageReader {
    /// Pixels of the last read, 32 bits each (BGRx), and bytes a row.
    struct Image {
        let pixels: UnsafeMutableRawPointer
        let stride: Int
    }

    enum Failure: Error {
        /// The server refused the request (e.g. the screen shrank under the rectangle).
        case refused(errorCode: UInt8)
        /// The server sent pixels of another size than 32 bits (a 16-bit or 8-bit display).
        case unsupportedDepth
    }

    private static let bytesPerPixel = 4
    /// Every bit plane: we want the whole pixel.
    private static let allPlanes = UInt32.max

    private let connection: X11Connection
    private let shared: X11SharedSegment?
    /// The last plain GetImage reply, freed at the next read: its data is the image.
    private var plainReply: UnsafeMutablePointer<xcb_get_image_reply_t>?

    /// Surfaces the server attached, with their segments; held so that none goes while attached.
    private var surfaceSegments: [ObjectIdentifier: (surface: Surface, id: xcb_shm_seg_t)] = [:]
    /// Whether the server may be handed surfaces' memory; false once it refused one.
    private var takesDescriptors: Bool

    /// Why MIT-SHM is not used, or nil when it is.
    let sharedMemoryProblem: String?

    init(connection: X11Connection) {
        self.connection = connection
        let byteCount = connection.screen.width * connection.screen.height * X11ImageReader.bytesPerPixel
        do throws(X11SharedSegment.Problem) {
            shared = try X11SharedSegment(connection: connection, byteCount: byteCount)
            sharedMemoryProblem = nil
        } catch {
            shared = nil
            sharedMemoryProblem = error.words
        }
        takesDescriptors = shared != nil && X11ImageReader.passesDescriptors(connection)
    }

    deinit {
        free(plainReply)
        for (_, attached) in surfaceSegments { xcb_shm_detach(connection.raw, attached.id) }
        connection.flush()
    }

    /// MIT-SHM 1.2 over a Unix socket: a descriptor sent over TCP would break the connection.
    private static func passesDescriptors(_ connection: X11Connection) -> Bool {
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let local = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getsockname(xcb_get_file_descriptor(connection.raw), $0, &length) == 0
            }
        }
        guard local, Int32(address.ss_family) == AF_UNIX else { return false }
        let c = connection.raw
        guard let version = xcb_shm_query_version_reply(c, xcb_shm_query_version(c), nil) else { return false }
        defer { free(version) }
        return (version.pointee.major_version, version.pointee.minor_version) >= (1, 2)
    }

    /// Reads `rect` into `surface`'s own memory, rows of `rect.width` pixels from its start;
    /// false when it cannot be (the surface has no shared memory, or the server would not
    /// take it), and `read(_:)` and a copy are needed.
    func read(_ rect: X11Rect, into surface: Surface) throws(Failure) -> Bool {
        guard let segment = segment(for: surface) else { return false }
        try sharedRead(rect, segment: segment)
        return true
    }

    private func segment(for surface: Surface) -> xcb_shm_seg_t? {
        if let attached = surfaceSegments[ObjectIdentifier(surface)] { return attached.id }
        guard takesDescriptors, let memory = surface.sharedMemory else { return nil }
        // xcb closes the descriptor once it is sent.
        let passed = dup(memory)
        guard passed >= 0 else { return nil }
        let c = connection.raw
        let id = xcb_generate_id(c)
        let readOnly: UInt8 = 0
        if let error = xcb_request_check(c, xcb_shm_attach_fd_checked(c, id, passed, readOnly)) {
            free(error)
            takesDescriptors = false
            return nil
        }
        surfaceSegments[ObjectIdentifier(surface)] = (surface, id)
        return id
    }

    private func sharedRead(_ rect: X11Rect, segment: xcb_shm_seg_t) throws(Failure) {
        let c = connection.raw
        let format = UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue)
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        let cookie = xcb_shm_get_image(c, connection.root, Int16(rect.x), Int16(rect.y),
                                       UInt16(rect.width), UInt16(rect.height),
                                       X11ImageReader.allPlanes, format, segment, 0)
        let result = X11Connection.take(xcb_shm_get_image_reply(c, cookie, &error), error)
        guard let reply = result.reply else { throw .refused(errorCode: result.errorCode ?? 0) }
        guard Int(reply.size) == rect.width * X11ImageReader.bytesPerPixel * rect.height else { throw .unsupportedDepth }
    }

    /// Reads `rect` (which must lie on the screen); valid until the next read.
    func read(_ rect: X11Rect) throws(Failure) -> Image {
        let c = connection.raw
        let stride = rect.width * X11ImageReader.bytesPerPixel
        let format = UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue)
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        if let shared {
            try sharedRead(rect, segment: shared.id)
            return Image(pixels: shared.address, stride: stride)
        }
        free(plainReply)
        let cookie = xcb_get_image(c, format, connection.root, Int16(rect.x), Int16(rect.y),
                                   UInt16(rect.width), UInt16(rect.height), X11ImageReader.allPlanes)
        plainReply = xcb_get_image_reply(c, cookie, &error)
        defer { free(error) }
        guard let reply = plainReply, let data = xcb_get_image_data(reply) else {
            throw .refused(errorCode: error?.pointee.error_code ?? 0)
        }
        guard Int(xcb_get_image_data_length(reply)) == stride * rect.height else { throw .unsupportedDepth }
        return Image(pixels: UnsafeMutableRawPointer(data), stride: stride)
    }
}
