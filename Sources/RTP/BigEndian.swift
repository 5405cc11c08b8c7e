// Network byte order reads and writes shared by the RTP and RTCP codecs.
// Callers check lengths first, so these index without further checks.

extension Array where Element == UInt8 {
    @inline(__always)
    mutating func appendUInt16(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always)
    mutating func appendUInt24(_ value: UInt32) {
        append(UInt8(truncatingIfNeeded: value >> 16))
        append(UInt8(truncatingIfNeeded: value >> 8))
        append(UInt8(truncatingIfNeeded: value))
    }

    @inline(__always)
    mutating func appendUInt32(_ value: UInt32) {
        appendUInt16(UInt16(truncatingIfNeeded: value >> 16))
        appendUInt16(UInt16(truncatingIfNeeded: value))
    }
}

extension UnsafeRawBufferPointer {
    @inline(__always)
    func uint16(at offset: Int) -> UInt16 {
        UInt16(self[offset]) << 8 | UInt16(self[offset + 1])
    }

    @inline(__always)
    func uint24(at offset: Int) -> UInt32 {
        UInt32(self[offset]) << 16 | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2])
    }

    @inline(__always)
    func uint32(at offset: Int) -> UInt32 {
        UInt32(uint16(at: offset)) << 16 | UInt32(uint16(at: offset + 2))
    }
}

extension UnsafeMutableRawBufferPointer {
    @inline(__always)
    func storeUInt16(_ value: UInt16, at offset: Int) {
        self[offset] = UInt8(truncatingIfNeeded: value >> 8)
        self[offset + 1] = UInt8(truncatingIfNeeded: value)
    }

    @inline(__always)
    func storeUInt32(_ value: UInt32, at offset: Int) {
        storeUInt16(UInt16(truncatingIfNeeded: value >> 16), at: offset)
        storeUInt16(UInt16(truncatingIfNeeded: value), at: offset + 2)
    }
}
