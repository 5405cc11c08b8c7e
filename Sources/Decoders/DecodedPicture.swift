/// A decoded picture's luma plane, valid until the decoder's next call.
public struct DecodedPicture {
    public let width: Int
    public let height: Int
    public let luma: UnsafePointer<UInt8>
    public let lumaStride: Int
    public let isKeyframe: Bool
}
