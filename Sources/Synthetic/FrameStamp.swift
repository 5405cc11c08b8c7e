/// The frame number drawn into the top-left corner of a synthetic frame as
/// black and white blocks, so a receiver can tell which frame it decoded.
///
/// 24 bits of frame number and 8 bits of check, one bit a 16×16 block: blocks
/// that large survive H.264 at low bitrates and scaling to a third.
public enum FrameStamp {
    public static let blockSize = 16
    public static let bits = 32
    public static let height = blockSize
    public static let width = blockSize * bits

    static func word(for frame: UInt32) -> UInt32 {
        let number = frame & 0xFF_FFFF
        let check = (number ^ (number >> 8) ^ (number >> 16) ^ 0xA5) & 0xFF
        return number << 8 | check
    }

    static func write(_ frame: UInt32, into pixels: UnsafeMutableRawPointer, stride: Int, width: Int) {
        let word = word(for: frame)
        for bit in 0..<min(bits, width / blockSize) {
            let on = word & (1 << UInt32(bits - 1 - bit)) != 0
            let colour: UInt32 = on ? 0x00FF_FFFF : 0
            for y in 0..<blockSize {
                let row = (pixels + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in bit * blockSize..<(bit + 1) * blockSize {
                    row[x] = colour
                }
            }
        }
    }

    /// Reads the frame number back from a luma plane of a picture scaled from
    /// `sourceWidth` wide to `width` wide; nil when the check does not match.
    public static func read(luma: UnsafePointer<UInt8>, stride: Int, width: Int, sourceWidth: Int) -> UInt32? {
        let scale = Double(width) / Double(sourceWidth)
        var word: UInt32 = 0
        for bit in 0..<bits {
            let x = Int((Double(bit * blockSize) + Double(blockSize) / 2) * scale)
            let y = Int(Double(blockSize) / 2 * scale)
            guard x < width else { return nil }
            word = word << 1 | (luma[y * stride + x] > 128 ? 1 : 0)
        }
        let number = word >> 8
        return FrameStamp.word(for: number) == word ? number : nil
    }
}
