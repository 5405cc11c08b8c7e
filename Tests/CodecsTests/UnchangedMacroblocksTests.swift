import Decoders
import Encoders
import Encoding
import Testing
import YUV

/// Which macroblocks a picture shares with the one before, and x264 skipping them.
struct UnchangedMacroblocksTests {
    static func patterned(width: Int, height: Int) -> I420Picture {
        let picture = I420Picture(width: width, height: height)
        for i in 0..<picture.capacity { picture.storage[i] = UInt8(truncatingIfNeeded: i &* 7 &+ i / 13) }
        return picture
    }

    static func copy(_ picture: I420Picture) -> I420Picture {
        let other = I420Picture(width: picture.width, height: picture.height)
        other.storage.update(from: picture.storage, count: picture.capacity)
        return other
    }

    @Test func aBlockIsChangedByOnePixelOfAnyPlane_blocksAtTheEdgesIncluded() {
        // 100×50: 7×4 blocks, the last column 4 pixels wide and the last row 2 high;
        // the chroma planes are 50×25.
        let previous = Self.patterned(width: 100, height: 50)
        let current = Self.copy(previous)
        let unchanged = UnchangedMacroblocks()
        unchanged.compare(current, with: previous)
        #expect(unchanged.unchangedCount == 28)
        #expect(unchanged.columns == 7 && unchanged.rows == 4)

        current.planeY[49 * 100 + 99] &+= 1        // the last pixel: block (6, 3), past the last whole word of a line
        current.planeY[20 * 100 + 95] &+= 1        // the last byte of a line's last whole word: block (5, 1)
        current.planeU[10 * 50 + 20] &+= 1         // chroma (20, 10): block (2, 1)
        current.planeV[0] &+= 1                    // block (0, 0)
        current.planeV[24 * 50 + 49] &+= 1         // chroma's last pixel: block (6, 3) again
        unchanged.compare(current, with: previous)
        #expect(unchanged.unchangedCount == 24)
        var changed: Set<Int> = []
        for index in 0..<unchanged.count where unchanged.map[index] == 0 { changed.insert(index) }
        #expect(changed == [3 * 7 + 6, 1 * 7 + 5, 1 * 7 + 2, 0])
    }

    @Test func x264SkipsTheBlocksItIsToldAreUnchanged() throws {
        // A textured picture held for ten frames, then replaced by its negative. Told
        // that the left half is unchanged, x264 keeps the old left half: what is decoded
        // there is still the first picture, the right half the new one. Not told, both
        // halves are new. (A map claiming a change is unchanged is wrong on purpose,
        // only to see that x264 reads it.)
        let (width, height) = (320, 192)
        let first = Self.patterned(width: width, height: height)
        let negative = Self.copy(first)
        for i in 0..<width * height { negative.storage[i] = 255 &- first.storage[i] }
        let leftHalfUnchanged = UnchangedMacroblocks()
        leftHalfUnchanged.compare(first, with: first)
        for row in 0..<leftHalfUnchanged.rows {
            for column in leftHalfUnchanged.columns / 2..<leftHalfUnchanged.columns {
                leftHalfUnchanged.map[row * leftHalfUnchanged.columns + column] = 0
            }
        }

        func lastPicture(told: UnchangedMacroblocks?) throws -> (left: Double, right: Double) {
            let encoder = try H264Encoder(settings: EncoderSettings(width: width, height: height, fps: 30, bitrate: 2_000_000))
            let decoder = try H264Decoder()
            var decoded: DecodedPicture?
            for n in 0...10 {
                let ts = UInt32(n * 3000)
                let frame = try #require(try encoder.encode(n < 10 ? first : negative, rtpTimestamp: ts, pts: Int64(ts),
                                                            keyframe: n == 0, unchanged: n == 10 ? told : nil))
                decoded = decoder.decode(frame.bytes)
            }
            let picture = try #require(decoded)
            // How close each half's luma is to the first picture: 0 is the first, 255 its negative.
            var distance = (left: 0, right: 0)
            for y in 0..<height {
                for x in 0..<width {
                    let d = abs(Int(picture.luma[y * picture.lumaStride + x]) - Int(first.planeY[y * width + x]))
                    if x < width / 2 { distance.left += d } else { distance.right += d }
                }
            }
            let half = Double(width / 2 * height)
            return (Double(distance.left) / half, Double(distance.right) / half)
        }

        let told = try lastPicture(told: leftHalfUnchanged)
        #expect(told.left < 10, "the left half was re-encoded: \(told)")
        #expect(told.right > 60, "the right half kept the old picture: \(told)")
        let notTold = try lastPicture(told: nil)
        #expect(notTold.left > 60 && notTold.right > 60, "\(notTold)")
    }
}
