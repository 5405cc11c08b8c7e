import CYUV
import Media

/// BGRx → I420 conversion and scaling, with libyuv.
///
/// X11 and PipeWire deliver little-endian BGRx, which libyuv names "ARGB".
public final class PixelConverter: @unchecked Sendable {
    // Safety: used by one encoder thread; the scratch picture is its own.
    private let fullSize = I420Picture(width: 16, height: 16)

    public init() {}

    /// Converts `surface` into `output`, scaled to `output`'s size.
    /// Converting first and scaling the planar picture moves 1.5 bytes a
    /// pixel through the scaler instead of 4.
    public func convert(_ surface: Surface, into output: I420Picture) {
        let same = surface.width == output.width && surface.height == output.height
        let target = same ? output : fullSize
        if !same { fullSize.resize(width: surface.width, height: surface.height) }
        ARGBToI420(
            surface.pixels.assumingMemoryBound(to: UInt8.self), Int32(surface.stride),
            target.planeY, Int32(target.strideY),
            target.planeU, Int32(target.strideUV),
            target.planeV, Int32(target.strideUV),
            Int32(surface.width), Int32(surface.height))
        if !same {
            PixelConverter.scale(fullSize, into: output)
        }
    }

    /// Box filtering keeps thin text strokes legible when a screen is scaled down.
    public static func scale(_ source: I420Picture, into output: I420Picture) {
        I420Scale(
            source.planeY, Int32(source.strideY),
            source.planeU, Int32(source.strideUV),
            source.planeV, Int32(source.strideUV),
            Int32(source.width), Int32(source.height),
            output.planeY, Int32(output.strideY),
            output.planeU, Int32(output.strideUV),
            output.planeV, Int32(output.strideUV),
            Int32(output.width), Int32(output.height),
            kFilterBox)
    }

    /// Scales a BGRx picture (for sources larger than the 1920 cap).
    public static func scaleBGRx(
        _ source: UnsafeRawPointer, stride: Int, width: Int, height: Int,
        into destination: UnsafeMutableRawPointer, destinationStride: Int,
        width outWidth: Int, height outHeight: Int
    ) {
        ARGBScale(
            source.assumingMemoryBound(to: UInt8.self), Int32(stride), Int32(width), Int32(height),
            destination.assumingMemoryBound(to: UInt8.self), Int32(destinationStride),
            Int32(outWidth), Int32(outHeight), kFilterBox)
    }

    /// Scales just a luma plane (the receiver compares decoded and source luma).
    public static func scaleLuma(
        _ source: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int,
        into destination: UnsafeMutablePointer<UInt8>, destinationStride: Int,
        width outWidth: Int, height outHeight: Int
    ) {
        ScalePlane(
            source, Int32(stride), Int32(width), Int32(height),
            destination, Int32(destinationStride), Int32(outWidth), Int32(outHeight), kFilterBox)
    }
}
