/// One stream the ScreenCast portal's Start handed out: a PipeWire node
/// to capture, with what the portal said about it.
public struct PortalStream: Sendable {
    public let nodeID: UInt32
    /// Monitor or window, when the portal says (version 3 and later).
    public let sourceType: PortalSourceTypes?
    public let size: (width: Int, height: Int)?

    public init(nodeID: UInt32, sourceType: PortalSourceTypes?, size: (width: Int, height: Int)?) {
        self.nodeID = nodeID
        self.sourceType = sourceType
        self.size = size
    }

    /// Reads one `(ua{sv})` element of Start's `streams`.
    init?(_ value: DBusValue) {
        guard let fields = value.fields, fields.count == 2, let node = fields[0].uint32 else { return nil }
        let properties = fields[1].dictionary ?? [:]
        nodeID = node
        sourceType = properties["source_type"]?.uint32.map(PortalSourceTypes.init(rawValue:))
        if let pair = properties["size"]?.fields, pair.count == 2, let width = pair[0].int32, let height = pair[1].int32 {
            size = (Int(width), Int(height))
        } else {
            size = nil
        }
    }
}
