import CYUV

/// Luma of a BGRx picture, for comparing a decoded picture with its source.
extension PixelConverter {
    /// BT.601 limited-range luma (16…235) of a BGRx picture: the Y plane
    /// `convert` and swscale's bgr0→yuv420p produce, so an encoded and decoded
    /// picture can be compared with its source without a range mismatch.
    public static func luma(
        ofBGRx source: UnsafeRawPointer, stride: Int, width: Int, height: Int,
        into destination: UnsafeMutablePointer<UInt8>, destinationStride: Int
    ) {
        ARGBToI400(
            source.assumingMemoryBound(to: UInt8.self), Int32(stride),
            destination, Int32(destinationStride), Int32(width), Int32(height))
    }
}
