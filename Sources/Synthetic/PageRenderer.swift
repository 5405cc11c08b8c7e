import Media

/// Renders the synthetic page: paragraphs of glyph-like marks in rows, with
/// headings and coloured blocks, all derived from a seed. Real text is not
/// needed: what matters to an encoder is thin dark strokes on a light ground.
struct PageRenderer {
    let width: Int
    let height: Int
    let seed: UInt64

    static let glyphWidth = 7
    static let glyphHeight = 11
    static let lineHeight = 18
    static let margin = 40

    func render() -> [UInt32] {
        var pixels = [UInt32](repeating: 0x00FF_FFFF, count: width * height)
        var random = SeededRandom(seed: seed)
        let glyphs = (0..<64).map { _ in PageRenderer.glyph(&random) }
        var y = PageRenderer.margin
        var line = 0
        while y + PageRenderer.lineHeight < height - PageRenderer.margin {
            if line % 23 == 0 {
                fill(&pixels, x: PageRenderer.margin, y: y, w: width / 3, h: PageRenderer.lineHeight - 4,
                     colour: 0x0022_4488 &+ UInt32(random.next() % 0x40))
            } else if line % 37 == 5 {
                fill(&pixels, x: width / 2, y: y, w: width / 4, h: PageRenderer.lineHeight * 6,
                     colour: UInt32(truncatingIfNeeded: random.next()) & 0x00FF_FFFF)
            } else {
                drawLine(&pixels, y: y, glyphs: glyphs, random: &random)
            }
            y += PageRenderer.lineHeight
            line += 1
        }
        return pixels
    }

    private func drawLine(_ pixels: inout [UInt32], y: Int, glyphs: [[UInt8]], random: inout SeededRandom) {
        var x = PageRenderer.margin
        let end = width - PageRenderer.margin - PageRenderer.glyphWidth
        while x < end {
            let wordLength = 2 + Int(random.next() % 9)
            for _ in 0..<wordLength where x < end {
                let glyph = glyphs[Int(random.next() % 64)]
                for gy in 0..<PageRenderer.glyphHeight {
                    let bits = glyph[gy]
                    for gx in 0..<PageRenderer.glyphWidth - 1 where bits & (1 << UInt8(gx)) != 0 {
                        pixels[(y + gy) * width + x + gx] = 0x0010_1010
                    }
                }
                x += PageRenderer.glyphWidth
            }
            x += PageRenderer.glyphWidth
        }
    }

    private func fill(_ pixels: inout [UInt32], x: Int, y: Int, w: Int, h: Int, colour: UInt32) {
        for row in y..<min(height, y + h) {
            for col in x..<min(width, x + w) {
                pixels[row * width + col] = colour
            }
        }
    }

    /// A 6×11 mark with a stem and a few bars, so it has the strokes of a letter.
    private static func glyph(_ random: inout SeededRandom) -> [UInt8] {
        var rows = [UInt8](repeating: 0, count: glyphHeight)
        let stem = UInt8(1 << (random.next() % 6))
        let top = 2 + Int(random.next() % 3)
        for r in top..<glyphHeight - 1 {
            rows[r] |= stem
        }
        for _ in 0..<3 {
            let r = top + Int(random.next() % UInt64(glyphHeight - 1 - top))
            rows[r] |= UInt8(random.next() & 0x3F)
        }
        return rows
    }
}
