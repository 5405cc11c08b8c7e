import Foundation
import Synchronization
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

    /// A client that reads none of its replies: writing never blocks the writer (the lines are queued and
    /// written on the channel's own thread), and once nothing has gone out for the write timeout the
    /// client is taken to be gone, once.
    @Test(.timeLimit(.minutes(1)))
    func aClientThatDoesNotRead_isGoneAfterTheTimeout_andNoWriterBlocks() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let channel = ControlChannel(input: STDIN_FILENO, output: fds[1], writeTimeout: .milliseconds(200))
        let gone = DispatchSemaphore(value: 0)
        let told = Mutex(0)
        channel.whenGone {
            told.withLock { $0 += 1 }
            gone.signal()
        }
        // 2 MB of status lines into a pipe that holds 64 KB and is never read.
        let line = String(repeating: "s", count: 1000)
        for _ in 0..<2000 { channel.write(line) }
        gone.wait()
        channel.write(line)
        channel.finish()
        #expect(told.withLock { $0 } == 1)
        close(fds[1])
    }

    /// Lines reach a client that reads, in order, and `finish` sends what is queued before it returns.
    @Test(.timeLimit(.minutes(1)))
    func queuedLines_goOutInOrder_andFinishFlushesThem() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let channel = ControlChannel(input: STDIN_FILENO, output: fds[1])
        let reader = ControlChannel(input: fds[0], output: STDERR_FILENO)
        let lines = (0..<3000).map { "{\"n\":\($0)}" }
        let read = Mutex<[String]>([])
        let done = DispatchSemaphore(value: 0)
        Thread {
            while let line = reader.readLine() { read.withLock { $0.append(line) } }
            done.signal()
        }.start()
        for line in lines { channel.write(line) }
        channel.finish()
        close(fds[1])
        done.wait()
        #expect(read.withLock { $0 } == lines)
        close(fds[0])
    }
}
