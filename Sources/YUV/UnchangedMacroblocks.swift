/// Which 16×16 macroblocks of a picture are the same, byte for byte in all
/// three planes, as in the picture before: one byte a macroblock in raster
/// order, 1 where unchanged. A screen mostly stands still where it is not
/// being typed on, scrolled or dragged, and an encoder told so skips those
/// blocks without searching them.
public final class UnchangedMacroblocks: @unchecked Sendable {
    // Safety: owned by one encoder thread, like the pictures it compares.
    public private(set) var columns = 0
    public private(set) var rows = 0
    public private(set) var map: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var differences: UnsafeMutablePointer<UInt64>
    private var differenceCapacity: Int

    public init() {
        capacity = 1
        map = .allocate(capacity: 1)
        differenceCapacity = 1
        differences = .allocate(capacity: 1)
    }

    deinit {
        map.deallocate()
        differences.deallocate()
    }

    public var count: Int { columns * rows }

    /// How many macroblocks the last comparison found unchanged.
    public var unchangedCount: Int { (0..<count).reduce(0) { $0 + Int(map[$1]) } }

    /// Compares `current` with `previous` (the same size). Blocks at the right
    /// and bottom edges cover only the pixels inside the picture: an encoder
    /// pads them from those pixels, so equal inside means equal padded.
    public func compare(_ current: I420Picture, with previous: I420Picture) {
        precondition(current.width == previous.width && current.height == previous.height)
        columns = (current.width + 15) / 16
        rows = (current.height + 15) / 16
        Self.fit(&map, capacity: &capacity, to: count)
        map.update(repeating: 1, count: count)
        let chromaWidth = (current.width + 1) / 2
        let chromaHeight = (current.height + 1) / 2
        for row in 0..<rows {
            let marks = map + row * columns
            markChanged(marks, block: 16, lines: row * 16..<min(current.height, row * 16 + 16), width: current.width,
                        current.planeY, previous.planeY, stride: current.strideY)
            let chromaLines = row * 8..<min(chromaHeight, row * 8 + 8)
            markChanged(marks, block: 8, lines: chromaLines, width: chromaWidth,
                        current.planeU, previous.planeU, stride: current.strideUV)
            markChanged(marks, block: 8, lines: chromaLines, width: chromaWidth,
                        current.planeV, previous.planeV, stride: current.strideUV)
        }
    }

    /// Reallocates `storage` only when `needed` no longer fits; what it held is not kept.
    private static func fit<Element>(_ storage: inout UnsafeMutablePointer<Element>, capacity: inout Int, to needed: Int) {
        guard needed > capacity else { return }
        storage.deallocate()
        storage = .allocate(capacity: needed)
        capacity = needed
    }

    /// Clears the mark of every block in one row of blocks whose pixels differ
    /// on any of `lines`. The differences of all the lines are gathered into
    /// one line's worth of words first, a loop with no branch to mispredict,
    /// and the blocks read off it after.
    private func markChanged(_ marks: UnsafeMutablePointer<UInt8>, block: Int, lines: Range<Int>, width: Int,
                             _ current: UnsafeMutablePointer<UInt8>, _ previous: UnsafeMutablePointer<UInt8>,
                             stride: Int) {
        let words = width / 8
        Self.fit(&differences, capacity: &differenceCapacity, to: words)
        differences.update(repeating: 0, count: words)
        for line in lines {
            let a = UnsafeRawPointer(current + line * stride)
            let b = UnsafeRawPointer(previous + line * stride)
            for word in 0..<words {
                let offset = word &* 8
                differences[word] |= a.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    ^ b.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            }
            for x in words * 8..<width where a.load(fromByteOffset: x, as: UInt8.self) != b.load(fromByteOffset: x, as: UInt8.self) {
                marks[x / block] = 0
            }
        }
        let wordsPerBlock = block / 8
        for word in 0..<words where differences[word] != 0 {
            marks[word / wordsPerBlock] = 0
        }
    }
}
