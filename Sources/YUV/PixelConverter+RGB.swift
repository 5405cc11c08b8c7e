import CYUV

/// Decoded pictures kept and shown: a copy of a decoder's planes (valid only
/// until its next call), and RGB for a picture file.
extension PixelConverter {
    /// Copies a 4:2:0 picture's three planes into `picture`, resized to fit.
    public static func copyI420(
        y: UnsafePointer<UInt8>, strideY: Int, u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>, strideUV: Int,
        width: Int, height: Int, into picture: I420Picture
    ) {
        picture.resize(width: width, height: height)
        I420Copy(y, Int32(strideY), u, Int32(strideUV), v, Int32(strideUV),
                 picture.planeY, Int32(picture.strideY), picture.planeU, Int32(picture.strideUV),
                 picture.planeV, Int32(picture.strideUV), Int32(width), Int32(height))
    }

    /// BT.601 limited-range YUV to 24-bit RGB, bytes R, G, B (libyuv calls this layout "RAW").
    public static func rgb(of picture: I420Picture, into destination: UnsafeMutablePointer<UInt8>, stride: Int) {
        I420ToRAW(picture.planeY, Int32(picture.strideY), picture.planeU, Int32(picture.strideUV),
                  picture.planeV, Int32(picture.strideUV), destination, Int32(stride),
                  Int32(picture.width), Int32(picture.height))
    }
}
