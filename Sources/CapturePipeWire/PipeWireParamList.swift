import CPipeWire

/// SPA pods built for one `pw_stream_connect` or `pw_stream_update_params`
/// call; PipeWire copies them, so the list only lives for the call.
final class PipeWireParamList {
    /// Room for one pod: the largest we build (a five-format EnumFormat) is under 400 bytes.
    private static let podBytes = 1024
    private var storage: [UnsafeMutablePointer<UInt8>] = []
    private(set) var pods: [UnsafePointer<spa_pod>?] = []

    func add(_ build: (UnsafeMutablePointer<UInt8>, UInt32) -> UnsafePointer<spa_pod>?) {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: Self.podBytes)
        storage.append(buffer)
        if let pod = build(buffer, UInt32(Self.podBytes)) { pods.append(pod) }
    }

    /// A video EnumFormat: a fixed size, or any size up to `maxSide`.
    func addVideoFormats(_ formats: [PipeWirePixelFormat], size: (width: Int, height: Int),
                         fixedSize: Bool, maxSide: Int, rate: Int, maxRate: Int) {
        let ids = formats.map(\.spaFormat)
        let preferred = spa_rectangle(width: UInt32(size.width), height: UInt32(size.height))
        let smallest = fixedSize ? preferred : spa_rectangle(width: 1, height: 1)
        let largest = fixedSize ? preferred : spa_rectangle(width: UInt32(maxSide), height: UInt32(maxSide))
        add { buffer, bytes in
            ids.withUnsafeBufferPointer { list in
                CPipeWire_build_video_formats(buffer, bytes, list.baseAddress, UInt32(list.count),
                                              preferred, smallest, largest, UInt32(rate), UInt32(maxRate))
            }
        }
    }

    func addBuffers(count: ClosedRange<Int>, preferred: Int, frameBytes: Int = 0, stride: Int = 0) {
        add { buffer, bytes in
            CPipeWire_build_buffers(buffer, bytes, Int32(preferred), Int32(count.lowerBound),
                                    Int32(count.upperBound), Int32(frameBytes), Int32(stride))
        }
    }

    func addMeta(type: spa_meta_type, bytes size: ClosedRange<Int>, preferred: Int) {
        add { buffer, bytes in
            CPipeWire_build_meta(buffer, bytes, type.rawValue, Int32(preferred),
                                 Int32(size.lowerBound), Int32(size.upperBound))
        }
    }

    deinit {
        for buffer in storage { buffer.deallocate() }
    }
}
