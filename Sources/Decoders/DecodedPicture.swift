/// A decoded picture's planes, valid until the decoder's next call.
public struct DecodedPicture {
    public let width: Int
    public let height: Int
    public let luma: UnsafePointer<UInt8>
    public let lumaStride: Int
    /// The two 4:2:0 chroma planes and their stride; nil when the picture is not 4:2:0.
    public let chroma: (u: UnsafePointer<UInt8>, v: UnsafePointer<UInt8>, stride: Int)?
    public let isKeyframe: Bool
}
