import Media
import YUV

/// Copies one PipeWire frame into a surface as BGRx: red and blue swapped
/// for RGB-ordered streams, scaled down for frames over the 1920 cap.
final class PipeWireFrameCopier {
    private var scratch: UnsafeMutableRawPointer?
    private var scratchBytes = 0

    /// `size` is the stream's; the surface already has the capped size.
    func copy(_ data: UnsafeRawPointer, stride: Int, size: (width: Int, height: Int),
              format: PipeWirePixelFormat, into surface: Surface) {
        let scaled = surface.width < size.width - 1 || surface.height < size.height - 1
        if !scaled {
            // Same size, or one odd column/row trimmed to keep sides even.
            if format.isRedFirst {
                PixelConverter.swapRedBlue(data, stride: stride, into: surface.pixels, destinationStride: surface.stride,
                                           width: surface.width, height: surface.height)
            } else {
                PixelConverter.copyBGRx(data, stride: stride, into: surface.pixels, destinationStride: surface.stride,
                                        width: surface.width, height: surface.height)
            }
            return
        }
        var source = data
        var sourceStride = stride
        if format.isRedFirst {
            let buffer = scratchBuffer(bytes: size.width * size.height * 4)
            PixelConverter.swapRedBlue(data, stride: stride, into: buffer, destinationStride: size.width * 4,
                                       width: size.width, height: size.height)
            source = UnsafeRawPointer(buffer)
            sourceStride = size.width * 4
        }
        PixelConverter.scaleBGRx(source, stride: sourceStride, width: size.width, height: size.height,
                                 into: surface.pixels, destinationStride: surface.stride,
                                 width: surface.width, height: surface.height)
    }

    /// Grown once for the largest stream seen, not per frame.
    private func scratchBuffer(bytes: Int) -> UnsafeMutableRawPointer {
        if let scratch, scratchBytes >= bytes { return scratch }
        scratch?.deallocate()
        let fresh = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        scratch = fresh
        scratchBytes = bytes
        return fresh
    }

    deinit {
        scratch?.deallocate()
    }
}
