import Foundation
import ScreenShare
import Testing
import ControlProtocol

/// Lines in and out of the control channel, over a pipe.
struct ControlChannelTests {
    func channel(reading text: [UInt8]) throws -> ControlChannel {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let writeEnd = fds[1]
        let writer = Thread {
            var offset = 0
            while offset < text.count {
                let n = text.withUnsafeBytes { write(writeEnd, $0.baseAddress! + offset, min(4096, $0.count - offset)) }
                if n <= 0 { break }
                offset += n
            }
            close(writeEnd)
        }
        writer.start()
        return ControlChannel(input: fds[0], output: STDERR_FILENO)
    }

    @Test func linesSplitOnNewlinesWithCRLFAndALastLineWithoutOne() throws {
        let c = try channel(reading: Array("{\"a\":1}\r\n\n{\"b\":2}\n{\"c\":3}".utf8))
        var lines: [String] = []
        while let line = c.readLine() { lines.append(line) }
        #expect(lines == ["{\"a\":1}", "", "{\"b\":2}", "{\"c\":3}"])
    }

    @Test func anOverlongLineIsCutAndTheNextLineSurvives() throws {
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: ControlDecoder.maxLineLength * 2)
        let c = try channel(reading: long + Array("\n{\"cmd\":\"status\"}\n".utf8))
        let first = try #require(c.readLine())
        #expect(first.utf8.count == ControlDecoder.maxLineLength + 1)
        guard case .failure(let e) = ControlDecoder.decode(first) else { Issue.record(); return }
        #expect(e.code == .malformedJSON)
        #expect(c.readLine() == "{\"cmd\":\"status\"}")
        #expect(c.readLine() == nil)
    }
}
