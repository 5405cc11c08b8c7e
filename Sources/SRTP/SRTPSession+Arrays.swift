/// `[UInt8]` forms of the protect calls; the array must already be long
/// enough for the trailer (`length + profile.rtpTrailerLength` or `rtcpTrailerLength`).
extension SRTPSession {
    public func protectRTP(_ buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        try onArray(&buffer) { (raw) throws(SRTPError) in try protectRTP(raw, length: length) }
    }

    public func unprotectRTP(_ buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        try onArray(&buffer) { (raw) throws(SRTPError) in try unprotectRTP(raw, length: length) }
    }

    public func protectRTCP(_ buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        try onArray(&buffer) { (raw) throws(SRTPError) in try protectRTCP(raw, length: length) }
    }

    public func unprotectRTCP(_ buffer: inout [UInt8], length: Int) throws(SRTPError) -> Int {
        try onArray(&buffer) { (raw) throws(SRTPError) in try unprotectRTCP(raw, length: length) }
    }

    private func onArray(
        _ buffer: inout [UInt8], _ body: (UnsafeMutableRawBufferPointer) throws(SRTPError) -> Int
    ) throws(SRTPError) -> Int {
        try buffer.withUnsafeMutableBytes { raw in Result { () throws(SRTPError) in try body(raw) } }.get()
    }
}
