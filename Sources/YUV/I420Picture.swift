/// A planar 4:2:0 picture (what both encoders take), allocated once and reused.
public final class I420Picture: @unchecked Sendable {
    // Safety: a picture is owned by one encoder thread at a time.
    public private(set) var width: Int
    public private(set) var height: Int
    public private(set) var capacity: Int
    public private(set) var storage: UnsafeMutablePointer<UInt8>

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
        capacity = I420Picture.byteCount(width: width, height: height)
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
    }

    deinit {
        storage.deallocate()
    }

    static func byteCount(width: Int, height: Int) -> Int {
        width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
    }

    /// Changes the size, growing the storage only when it no longer fits.
    public func resize(width: Int, height: Int) {
        let needed = I420Picture.byteCount(width: width, height: height)
        if needed > capacity {
            storage.deallocate()
            storage = .allocate(capacity: needed)
            storage.initialize(repeating: 0, count: needed)
            capacity = needed
        }
        self.width = width
        self.height = height
    }

    public var strideY: Int { width }
    public var strideUV: Int { (width + 1) / 2 }
    public var planeY: UnsafeMutablePointer<UInt8> { storage }
    public var planeU: UnsafeMutablePointer<UInt8> { storage + width * height }
    public var planeV: UnsafeMutablePointer<UInt8> { planeU + strideUV * ((height + 1) / 2) }
}
