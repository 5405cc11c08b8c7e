// libFuzzer entry for screenshare's parsers. Built by Tools/fuzz/run with the
// module sources compiled into this one binary (imports stripped), so every
// parser is instrumented. FUZZ_TARGET picks what each input is fed to:
//
//   control  a JSON line through ControlDecoder.decode (JSONParser inside);
//            any JSON that parses must serialize and parse back to itself
//   rtcp     bytes through RTCPPacket.parseCompound; every packet that parses
//            must marshal and parse back to itself
import Foundation

let fuzzTarget = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? "control"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    switch fuzzTarget {
    case "rtcp":
        fuzzRTCP(bytes)
    default:
        fuzzControl(bytes)
    }
    return 0
}

func fuzzControl(_ bytes: UnsafeRawBufferPointer) {
    let line = String(decoding: bytes, as: UTF8.self)
    _ = ControlDecoder.decode(line)
    if let value = try? JSONParser.parse(line) {
        let again = try? JSONParser.parse(value.serialized)
        precondition(again == value, "JSON did not survive a round trip")
    }
}

func fuzzRTCP(_ bytes: UnsafeRawBufferPointer) {
    guard let packets = try? RTCPPacket.parseCompound(bytes) else { return }
    for packet in packets {
        guard packet.message != nil else { continue }
        var out: [UInt8] = []
        guard (try? packet.marshal(into: &out)) != nil else { continue }
        let again = try? RTCPPacket.parseCompound(out)
        precondition(again == [packet], "RTCP \(packet) did not survive a round trip")
    }
}
