import CXCB
import Glibc

/// Reads rectangles of the root window into memory this process can write
/// (so the cursor can be drawn in before the picture is copied on).
///
/// MIT-SHM first: the server writes straight into a segment we share with
/// it, 0.17 ms for 1920×1080 instead of 1.8 ms through the socket. Without
/// it (a remote display, or a server built without it) plain GetImage.
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
    }

    deinit {
        free(plainReply)
    }

    /// Reads `rect` (which must lie on the screen); valid until the next read.
    func read(_ rect: X11Rect) throws(Failure) -> Image {
        let c = connection.raw
        let stride = rect.width * X11ImageReader.bytesPerPixel
        let format = UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue)
        var error: UnsafeMutablePointer<xcb_generic_error_t>?
        if let shared {
            let cookie = xcb_shm_get_image(c, connection.root, Int16(rect.x), Int16(rect.y),
                                           UInt16(rect.width), UInt16(rect.height),
                                           X11ImageReader.allPlanes, format, shared.id, 0)
            let result = X11Connection.take(xcb_shm_get_image_reply(c, cookie, &error), error)
            guard let reply = result.reply else { throw .refused(errorCode: result.errorCode ?? 0) }
            guard Int(reply.size) == stride * rect.height else { throw .unsupportedDepth }
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
