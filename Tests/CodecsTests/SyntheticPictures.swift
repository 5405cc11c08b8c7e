import Encoders
import Synthetic
import Media
import YUV

/// Frames of the synthetic screen as the encoders take them (I420), one at a time.
final class SyntheticPictures {
    let width: Int
    let height: Int
    private let screen: SyntheticScreen
    private let pool: SurfacePool
    private let surface: Surface
    private let converter = PixelConverter()
    let picture: I420Picture

    init(width: Int, height: Int, scenario: SyntheticScreen.Scenario = .motion) {
        self.width = width
        self.height = height
        screen = SyntheticScreen(width: width, height: height, fps: 30, scenario: scenario)
        pool = SurfacePool(count: 1, width: width, height: height)
        surface = pool.checkoutForWriting()!
        _ = surface.resize(width: width, height: height)
        picture = I420Picture(width: width, height: height)
    }

    /// Draws frame `n` and converts it into `picture`.
    func render(_ n: Int) -> I420Picture {
        screen.render(frame: UInt64(n), into: surface.pixels, stride: surface.stride)
        converter.convert(surface, into: picture)
        return picture
    }

    /// The sizes of the keyframes `encode` makes of frames 0 to 30, a keyframe asked for at 0 and 30,
    /// each frame stamped at 30 fps on the 90 kHz clock.
    func keyframeSizes(_ encode: (I420Picture, UInt32, Bool) throws -> EncodedFrame?) rethrows -> [Int] {
        var sizes: [Int] = []
        for n in 0..<31 {
            if let frame = try encode(render(n), UInt32(n * 3000), n % 30 == 0), frame.isKeyframe { sizes.append(frame.bytes.count) }
        }
        return sizes
    }
}
