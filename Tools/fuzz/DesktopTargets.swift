import CDBus
import Glibc
import CPipeWire

/// What the desktop hands over: the portal's D-Bus messages (read without a
/// bus, from their wire form) and PipeWire cursor metadata from the
/// producer's shared memory.
enum DesktopTargets {
    /// A D-Bus message as the portal's Response signal is read: its values,
    /// the result code, the results dictionary and the streams in it. Values
    /// of the shapes we write are written again and must read back with the same signature.
    static func dbus(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty, let raw = bytes.withMemoryRebound(to: CChar.self, { dbus_message_demarshal($0.baseAddress, Int32($0.count), nil) })
        else { return }
        let message = DBusEnvelope(taking: raw)
        _ = (message.kind, message.path, message.interface, message.member, message.sender)
        let arguments = message.arguments
        defer { arguments.forEach(closeDescriptors) }
        _ = arguments.first?.uint32
        if let results = arguments.dropFirst().first?.dictionary {
            _ = (results["streams"]?.elements ?? []).compactMap(PortalStream.init)
            _ = results["restore_token"]?.string
        }
        guard arguments.allSatisfy(isWritable) else { return }
        let again = DBusEnvelope.signal(path: "/fuzz", interface: "org.screenshare.Fuzz", member: "Again", destination: nil,
                                        arguments: arguments).arguments
        precondition(again.map(\.signature) == arguments.map(\.signature), "D-Bus values did not survive a round trip")
    }

    /// Types read as `.unsupported`, and descriptors (which a message read from bytes cannot carry), are not written.
    private static func isWritable(_ value: DBusValue) -> Bool {
        switch value {
        case .unsupported, .unixFD: false
        case .variant(let inner): isWritable(inner)
        case .array(_, let elements), .structure(let elements): elements.allSatisfy(isWritable)
        case .dictEntry(let key, let value): isWritable(key) && isWritable(value)
        default: true
        }
    }

    private static func closeDescriptors(_ value: DBusValue) {
        switch value {
        case .unixFD(let fd) where fd >= 0: close(fd)
        case .variant(let inner): closeDescriptors(inner)
        case .array(_, let elements), .structure(let elements): elements.forEach(closeDescriptors)
        case .dictEntry(let key, let value): closeDescriptors(key); closeDescriptors(value)
        default: break
        }
    }

    /// A cursor meta area, then the pointer drawn at two scales into a small picture.
    static func cursor(_ bytes: UnsafeRawBufferPointer) {
        var cursor = PipeWireCursor()
        cursor.update(meta: bytes)
        let surface = Surface(index: 0, capacity: 64 * 48 * 4)
        _ = surface.resize(width: 64, height: 48)
        cursor.draw(into: surface, scaleX: 1, scaleY: 1)
        cursor.draw(into: surface, scaleX: 0.5, scaleY: 2)
    }
}

enum DesktopSeeds {
    /// Start's Response as the portal sends it, and a cancelled one.
    static func dbus() -> [[UInt8]] {
        let stream = DBusValue.structure([.uint32(42), .vardict([("source_type", .uint32(1)),
                                                                 ("size", .structure([.int32(1920), .int32(1080)]))])])
        let results = DBusValue.vardict([("streams", .array(elementSignature: "(ua{sv})", [stream])), ("restore_token", .string("t0k3n"))])
        let messages = [
            DBusEnvelope.signal(path: "/org/freedesktop/portal/desktop/request/1_2/t", interface: "org.freedesktop.portal.Request",
                                member: "Response", destination: ":1.2", arguments: [.uint32(0), results]),
            DBusEnvelope.signal(path: "/org/freedesktop/portal/desktop/request/1_2/u", interface: "org.freedesktop.portal.Request",
                                member: "Response", destination: nil, arguments: [.uint32(1), .vardict([])]),
        ]
        return messages.map { message in
            // A message on the wire has a serial; one without is refused as it is read.
            dbus_message_set_serial(message.raw, 7)
            var wire: UnsafeMutablePointer<CChar>?
            var length: Int32 = 0
            guard dbus_message_marshal(message.raw, &wire, &length) != 0, let wire else { return [] }
            defer { dbus_free(wire) }
            return Array(UnsafeRawBufferPointer(start: wire, count: Int(length)))
        }
    }

    /// A 16×16 pointer as a producer lays it out: cursor, bitmap header, pixels.
    static func cursor() -> [[UInt8]] {
        let side = 16
        let cursorBytes = MemoryLayout<spa_meta_cursor>.size, bitmapBytes = MemoryLayout<spa_meta_bitmap>.size
        var area = [UInt8](repeating: 0x7F, count: cursorBytes + bitmapBytes + side * side * 4)
        area.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: spa_meta_cursor(id: 1, flags: 0, position: spa_point(x: 10, y: 8), hotspot: spa_point(x: 2, y: 2),
                                               bitmap_offset: UInt32(cursorBytes)), as: spa_meta_cursor.self)
            raw.storeBytes(of: spa_meta_bitmap(format: PipeWirePixelFormat.bgra.spaFormat, size: spa_rectangle(width: UInt32(side), height: UInt32(side)),
                                               stride: Int32(side * 4), offset: UInt32(bitmapBytes)),
                           toByteOffset: cursorBytes, as: spa_meta_bitmap.self)
        }
        return [area]
    }
}
