import Foundation

/// SSIM and PSNR of one luma plane against another of the same size, over
/// the whole picture and over a part of it.
///
/// SSIM is the usual luma SSIM on 8×8 windows stepped by 4 pixels (as x264's
/// and libvpx's), constants C1 = (0.01·255)², C2 = (0.03·255)², averaged
/// over the windows that lie wholly inside the region (and touch no excluded
/// rectangle). PSNR is 10·log10(255² / MSE) over the same region's 4×4
/// cells, capped at `psnrCap` dB when the planes are identical. Sums are
/// taken once per 4×4 cell, so each window costs four cell lookups.
public final class LumaComparison {
    public struct Rect: Sendable, Equatable {
        public var x, y, width, height: Int

        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }

        /// This rectangle of a `from`-sized picture in a `to`-sized one.
        public func scaled(from: (width: Int, height: Int), to: (width: Int, height: Int)) -> Rect {
            let sx = Double(to.width) / Double(from.width), sy = Double(to.height) / Double(from.height)
            let x0 = Int((Double(x) * sx).rounded(.down)), y0 = Int((Double(y) * sy).rounded(.down))
            let x1 = Int((Double(x + width) * sx).rounded(.up)), y1 = Int((Double(y + height) * sy).rounded(.up))
            return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }

        func contains(_ r: Rect) -> Bool {
            r.x >= x && r.y >= y && r.x + r.width <= x + width && r.y + r.height <= y + height
        }

        func intersects(_ r: Rect) -> Bool {
            r.x < x + width && x < r.x + r.width && r.y < y + height && y < r.y + r.height
        }
    }

    public struct Result: Sendable, Equatable {
        public var ssim: Double
        public var psnr: Double
        /// How many 8×8 windows and pixels the figures cover (0 when the region is empty).
        public var windows: Int
        public var pixels: Int
    }

    public static let psnrCap = 100.0
    static let c1 = (0.01 * 255) * (0.01 * 255)
    static let c2 = (0.03 * 255) * (0.03 * 255)
    static let cell = 4

    private var sums: [Cell] = []
    private var cellsX = 0
    private var cellsY = 0

    private struct Cell {
        var x = 0, y = 0, xx = 0, yy = 0, xy = 0
    }

    public init() {}

    /// Compares `decoded` with `reference` (both `width`×`height`) over each
    /// of `regions`; a region skips the windows and cells that touch any of
    /// its `excluding` rectangles.
    public func compare(
        reference: UnsafePointer<UInt8>, referenceStride: Int,
        decoded: UnsafePointer<UInt8>, decodedStride: Int,
        width: Int, height: Int,
        regions: [(area: Rect, excluding: [Rect])]
    ) -> [Result] {
        let size = LumaComparison.cell
        cellsX = width / size
        cellsY = height / size
        if sums.count < cellsX * cellsY { sums = [Cell](repeating: Cell(), count: cellsX * cellsY) }
        sums.withUnsafeMutableBufferPointer { cells in
            for cy in 0..<cellsY {
                for cx in 0..<cellsX {
                    var c = Cell()
                    for y in cy * size..<(cy + 1) * size {
                        let r = reference + y * referenceStride + cx * size
                        let d = decoded + y * decodedStride + cx * size
                        for i in 0..<size {
                            let a = Int(r[i]), b = Int(d[i])
                            c.x += a
                            c.y += b
                            c.xx += a * a
                            c.yy += b * b
                            c.xy += a * b
                        }
                    }
                    cells[cy * cellsX + cx] = c
                }
            }
        }
        return regions.map { measure(area: $0.area, excluding: $0.excluding) }
    }

    private func measure(area: Rect, excluding: [Rect]) -> Result {
        let size = LumaComparison.cell
        func usable(_ r: Rect) -> Bool { area.contains(r) && !excluding.contains { $0.intersects(r) } }
        var ssimSum = 0.0
        var windows = 0
        var squaredError = 0
        var pixels = 0
        sums.withUnsafeBufferPointer { cells in
            for cy in 0..<cellsY {
                for cx in 0..<cellsX {
                    let c = cells[cy * cellsX + cx]
                    if usable(Rect(x: cx * size, y: cy * size, width: size, height: size)) {
                        squaredError += c.xx + c.yy - 2 * c.xy
                        pixels += size * size
                    }
                    guard cx + 1 < cellsX, cy + 1 < cellsY,
                          usable(Rect(x: cx * size, y: cy * size, width: 2 * size, height: 2 * size)) else { continue }
                    let b = cells[cy * cellsX + cx + 1], d = cells[(cy + 1) * cellsX + cx], e = cells[(cy + 1) * cellsX + cx + 1]
                    let n = Double(4 * size * size)
                    let mx = Double(c.x + b.x + d.x + e.x) / n
                    let my = Double(c.y + b.y + d.y + e.y) / n
                    let vx = Double(c.xx + b.xx + d.xx + e.xx) / n - mx * mx
                    let vy = Double(c.yy + b.yy + d.yy + e.yy) / n - my * my
                    let cov = Double(c.xy + b.xy + d.xy + e.xy) / n - mx * my
                    ssimSum += (2 * mx * my + LumaComparison.c1) * (2 * cov + LumaComparison.c2)
                        / ((mx * mx + my * my + LumaComparison.c1) * (vx + vy + LumaComparison.c2))
                    windows += 1
                }
            }
        }
        return Result(ssim: windows > 0 ? ssimSum / Double(windows) : 0,
                      psnr: LumaComparison.psnr(squaredError: squaredError, pixels: pixels),
                      windows: windows, pixels: pixels)
    }

    static func psnr(squaredError: Int, pixels: Int) -> Double {
        guard pixels > 0 else { return 0 }
        guard squaredError > 0 else { return psnrCap }
        let mse = Double(squaredError) / Double(pixels)
        return min(psnrCap, 10 * log10(255 * 255 / mse))
    }

    /// SSIM and PSNR of two whole planes held in arrays (`width` a row).
    public static func compare(_ reference: [UInt8], _ decoded: [UInt8], width: Int, height: Int,
                               area: Rect? = nil, excluding: [Rect] = []) -> Result {
        precondition(reference.count >= width * height && decoded.count >= width * height)
        let whole = area ?? Rect(x: 0, y: 0, width: width, height: height)
        return reference.withUnsafeBufferPointer { r in
            decoded.withUnsafeBufferPointer { d in
                LumaComparison().compare(reference: r.baseAddress!, referenceStride: width,
                                         decoded: d.baseAddress!, decodedStride: width,
                                         width: width, height: height, regions: [(whole, excluding)])[0]
            }
        }
    }
}
