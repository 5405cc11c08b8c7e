import CYUV

/// Copies between 32-bit pictures, for capture sources whose frames arrive
/// in another process's buffers.
extension PixelConverter {
    /// Copies a BGRx picture row by row (strides may differ).
    public static func copyBGRx(
        _ source: UnsafeRawPointer, stride: Int,
        into destination: UnsafeMutableRawPointer, destinationStride: Int,
        width: Int, height: Int
    ) {
        ARGBCopy(
            source.assumingMemoryBound(to: UInt8.self), Int32(stride),
            destination.assumingMemoryBound(to: UInt8.self), Int32(destinationStride),
            Int32(width), Int32(height))
    }

    /// Turns an RGBx picture (bytes R, G, B, x) into BGRx by swapping red and
    /// blue; libyuv names these layouts "ABGR" and "ARGB".
    public static func swapRedBlue(
        _ source: UnsafeRawPointer, stride: Int,
        into destination: UnsafeMutableRawPointer, destinationStride: Int,
        width: Int, height: Int
    ) {
        ABGRToARGB(
            source.assumingMemoryBound(to: UInt8.self), Int32(stride),
            destination.assumingMemoryBound(to: UInt8.self), Int32(destinationStride),
            Int32(width), Int32(height))
    }
}
