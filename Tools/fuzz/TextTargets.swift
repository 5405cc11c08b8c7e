/// Text another party writes: control lines, `share`'s stdin, addresses, keys.
enum TextTargets {
    /// A control line through the decoder (JSONParser inside): any JSON that
    /// parses must serialize and parse back to itself.
    static func control(_ bytes: UnsafeRawBufferPointer) {
        let line = String(decoding: bytes, as: UTF8.self)
        _ = ControlDecoder.decode(line)
        if let value = try? JSONParser.parse(line) {
            let again = try? JSONParser.parse(value.serialized)
            precondition(again == value, "JSON did not survive a round trip")
        }
    }

    /// A line of `share`'s standard input: a destination it takes must read back the same.
    static func stdin(_ bytes: UnsafeRawBufferPointer) {
        guard case .success(.destination(let address)) = StdinCommand.parse(String(decoding: bytes, as: UTF8.self)) else { return }
        precondition((try? SocketAddress(parsing: address.description)) == address, "\(address) did not read back")
    }

    /// HOST:PORT: an address that parses reads back from its description, and
    /// binding for it stays in its family.
    static func address(_ bytes: UnsafeRawBufferPointer) {
        guard let address = try? SocketAddress(parsing: String(decoding: bytes, as: UTF8.self)) else { return }
        precondition((try? SocketAddress(parsing: address.description)) == address, "\(address) did not read back")
        precondition(SocketAddress.bindAddress(reaching: [address]).family == address.family)
        _ = address.isLoopback
    }

    /// A key as a key file or `srtp.key` holds it (the first byte picks the
    /// profile): a key that reads must write and read back the same, and any
    /// base64 that decodes must encode back to text that decodes the same.
    static func key(_ bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return }
        let profile: SRTPProfile = first & 1 == 0 ? .aes128CmHmacSha1_80 : .aeadAes128Gcm
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[1...]), as: UTF8.self)
        if let key = try? SRTPKey(base64: text, profile: profile) {
            precondition((try? SRTPKey(base64: key.base64, profile: profile)) == key, "a key did not read back")
            precondition(!"\(key)".contains(key.base64), "a key's description shows it")
        }
        if let decoded = Base64.decode(text) {
            precondition(Base64.decode(Base64.encode(decoded)) == decoded, "base64 did not survive a round trip")
        }
    }
}

enum TextSeeds {
    static let key30 = Base64.encode((0..<30).map { UInt8($0) })

    static func control() -> [[UInt8]] {
        [#"{"cmd":"hello","protocol":1}"#,
         #"{"cmd":"addReceiver","id":1,"receiver":"a","destination":"127.0.0.1:5004","srtp":{"key":"\#(key30)"},"codecs":[{"name":"H264","payloadType":96,"profileLevelId":"42e01f","packetizationMode":1},{"name":"VP8","payloadType":97}]}"#,
         #"{"cmd":"report","receiver":"a","screenStalled":true,"figures":{"x":[1.5e3,null,"\u00e9"]}}"#,
         #"{"cmd":"start","source":"synthetic","policy":"motion","size":"1280x720","fps":15}"#,
         #"{"cmd":"updateReceiver","receiver":"a","destination":"[::1]:7000"}"#].map { Array($0.utf8) }
    }

    static func stdin() -> [[UInt8]] {
        ["policy detail", "keyframe", "report stalled", "destination 127.0.0.1:5004", "destination [::1]:6000", "diagnostics", "stop",
         #"{"event":"report","screenStalled":true,"reason":"x"}"#].map { Array($0.utf8) }
    }

    static func address() -> [[UInt8]] {
        ["127.0.0.1:5004", "[::1]:5004", "[::ffff:127.0.0.1]:9", "localhost:0", "192.0.2.1:65535", "[2001:db8::1]:1"].map { Array($0.utf8) }
    }

    static func key() -> [[UInt8]] {
        [[0] + Array(key30.utf8), [1] + Array(Base64.encode((0..<28).map { UInt8($0) }).utf8),
         [0] + Array("inline:\(key30)|2^31|1:1\n".utf8)]
    }
}
