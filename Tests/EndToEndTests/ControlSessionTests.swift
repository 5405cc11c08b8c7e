import Foundation
import Testing

/// `screenshare serve --control stdio` driven by a call client: the scripted
/// session of Tools/call-client-script (four receivers, two H.264 levels and
/// VP8, two of them on one layer, a policy switch, a stall answered by a
/// rebuild, a removal), and the
/// protocol's answers to bad input through the real process.
@Suite(.serialized) struct ControlSessionTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func scriptedCallClient_fourReceiversPolicySwitchStallAndRemoval() throws {
        let script = ControlSessionTests.repository.appendingPathComponent("Tools/call-client-script").path
        let client = try ManagedProcess("/usr/bin/python3", [script, "--bin", ManagedProcess.binaries.path, "--seconds", "26"],
                                        stderrTo: NSTemporaryDirectory() + "call-client.log")
        let status = client.waitForExit(timeout: 90)
        let summary = try #require(client.events("summary").last, "the script prints its summary")
        #expect(status == 0, "failures: \(summary["failures"] ?? "?")")
        #expect((summary["failures"] as? [String])?.isEmpty == true, "\(summary["failures"] ?? "?")")
        let chosen = try #require(summary["chosen"] as? [String: String])
        #expect(chosen == ["alice": "H264", "bob": "H264", "carol": "VP8", "dave": "H264"])
        let sent = try #require(summary["sent"] as? [String: Int])
        let decoded = try #require(summary["decoded"] as? [String: Int])
        for id in ["bob", "carol", "dave"] {
            #expect((decoded[id] ?? 0) >= (sent[id] ?? .max) - 1, "\(id) decoded every frame: \(decoded[id] ?? 0) of \(sent[id] ?? 0)")
        }
        #expect((summary["notices"] as? [String])?.contains("recovering") == true)
        #expect(summary["aliceMended"] as? Bool == true)
    }

    /// Real screens through serve (Tools/call-client-script --scenario desktop): an Xvfb's screen, monitor and
    /// window and the GNOME portal's virtual monitor, switched live under the same SSRCs; "Reconnecting to Sam…"
    /// coming and going; the 30 s report; the portal's restore token handed to the client and reused with no
    /// dialog; the desktop's Stop and a closed window each ending the share with its reason.
    @Test(.enabled(if: TestGnomeDesktop.installed && FileManager.default.isExecutableFile(atPath: "/usr/bin/xev"),
                   "needs the GNOME desktop's packages and xev (Tools/setup)"))
    func scriptedCallClient_realScreensSwitchedLive_reconnecting_restoreToken_andTheEndOfACapture() throws {
        let script = ControlSessionTests.repository.appendingPathComponent("Tools/call-client-script").path
        let client = try ManagedProcess("/usr/bin/python3", [script, "--scenario", "desktop", "--bin", ManagedProcess.binaries.path],
                                        stderrTo: NSTemporaryDirectory() + "call-client-desktop-\(UUID().uuidString).log")
        let status = client.waitForExit(timeout: 180)
        let summary = try #require(client.events("summary").last, "the script prints its summary")
        print("desktop call client: \(client.lines.last ?? "")")
        #expect(status == 0, "failures: \(summary["failures"] ?? "?")")
        #expect((summary["failures"] as? [String])?.isEmpty == true, "\(summary["failures"] ?? "?")")
        let shares = (summary["share"] as? [[Any]])?.map { $0.last as? String }
        #expect(shares?.compactMap { $0 } == ["the share was stopped", "The desktop stopped the screen share", "The shared window was closed"])
        #expect(summary["dialogs"] as? Int == 0)
    }

    func serve(_ extra: [String] = []) throws -> ManagedProcess {
        let serve = try ManagedProcess("screenshare", ["serve", "--control", "stdio"] + extra)
        #expect(serve.waitFor(timeout: 5) { !$0.events("hello").isEmpty })
        return serve
    }

    @Test func badInputGetsAnErrorAndTheShareCarriesOn() throws {
        let key = try makeKeyFile()
        let (receiver, address) = try ManagedProcess.receiver(key: key.path, seconds: 20)
        let serve = try serve()
        serve.send(#"{"cmd":"start","id":1}"#)
        #expect(serve.answer(id: 1)?["code"] as? String == "helloFirst")
        serve.send(#"{"cmd":"hello","protocol":1,"id":2}"#)
        #expect(serve.answer(id: 2)?["ok"] as? Bool == true)
        serve.send(#"{"cmd":"start","size":"640x360","fps":15,"scenario":"motion","id":3}"#)
        #expect(serve.answer(id: 3)?["ok"] as? Bool == true)
        let add = #"{"cmd":"addReceiver","id":4,"receiver":"r1","destination":"\#(address)","srtp":{"key":"\#(key.base64)"},"codecs":[{"name":"H264","payloadType":96,"packetizationMode":1}]}"#
        serve.send(add)
        #expect(serve.answer(id: 4)?["ok"] as? Bool == true)
        let short = Data((0..<16).map { UInt8($0) }).base64EncodedString()
        serve.send("{not json")
        serve.send(#"{"cmd":"fly","id":5}"#)
        serve.send(#"{"cmd":"removeReceiver","id":6}"#)
        serve.send(#"{"cmd":"addReceiver","id":7,"receiver":"r2","destination":"127.0.0.1:9","srtp":{"key":"\#(short)"},"codecs":[{"name":"VP8","payloadType":96}]}"#)
        serve.send(#"{"cmd":"report","id":8,"receiver":"nobody","screenStalled":true}"#)
        serve.send(#"{"cmd":"start","id":9}"#)
        serve.send(#"{"cmd":"addReceiver","id":10,"receiver":"r3","destination":"192.0.2.1:5004","insecure":true,"codecs":[{"name":"VP8","payloadType":96}]}"#)
        #expect(serve.answer(id: 5)?["code"] as? String == "unknownCommand")
        #expect(serve.answer(id: 6)?["code"] as? String == "missingField")
        let badKey = serve.answer(id: 7)
        #expect(badKey?["code"] as? String == "badKey")
        #expect((badKey?["message"] as? String)?.contains("got 16") == true)
        #expect(serve.answer(id: 8)?["code"] as? String == "unknownReceiver")
        #expect(serve.answer(id: 9)?["code"] as? String == "alreadySharing")
        #expect(serve.answer(id: 10)?["code"] as? String == "insecureRefused")
        #expect(serve.events("error").contains { $0["code"] as? String == "malformedJSON" })
        // Plain RTP to loopback is fine; it may not then move off loopback.
        serve.send(#"{"cmd":"addReceiver","id":20,"receiver":"plain","destination":"127.0.0.1:9","codecs":[{"name":"VP8","payloadType":96}]}"#)
        #expect(serve.answer(id: 20)?["ok"] as? Bool == true)
        serve.send(#"{"cmd":"updateReceiver","id":21,"receiver":"plain","destination":"192.0.2.1:5004"}"#)
        #expect(serve.answer(id: 21)?["code"] as? String == "insecureRefused")
        serve.send(#"{"cmd":"removeReceiver","id":22,"receiver":"plain"}"#)
        #expect(serve.answer(id: 22)?["ok"] as? Bool == true)
        serve.send(#"{"cmd":"setLogLevel","id":23,"level":"debug"}"#)
        #expect(serve.answer(id: 23)?["level"] as? String == "debug")
        serve.send(#"{"cmd":"keyframe","id":24,"receiver":"r1"}"#)
        #expect(serve.answer(id: 24)?["ok"] as? Bool == true)
        #expect(serve.waitFor(timeout: 3) { $0.events("log").contains { $0["level"] as? String == "debug" } })
        // The share carried on through all of it.
        let before = serve.events("status").last { $0["receiver"] as? String == "r1" }?["framesSent"] as? Int ?? 0
        Thread.sleep(forTimeInterval: 2.5)
        let after = serve.events("status").last { $0["receiver"] as? String == "r1" }?["framesSent"] as? Int ?? 0
        #expect(after > before + 15)
        #expect(serve.events("status").contains { $0["scope"] as? String == "share" && ($0["line1"] as? String)?.hasPrefix("Screen:") == true })
        serve.send(#"{"cmd":"stop","id":11}"#)
        #expect(serve.answer(id: 11)?["ok"] as? Bool == true)
        #expect(serve.events("share").last?["state"] as? String == "off")
        serve.interrupt()
        #expect(serve.waitForExit(timeout: 10) == 0)
        receiver.send("stop")
        _ = receiver.waitForExit(timeout: 5)
        let everything = serve.lines.joined()
        #expect(!everything.contains(key.base64) && !everything.contains(short), "no key is ever echoed")
    }

    @Test func aReceiverThatVanishesIsTimedOutAndTheOtherCarriesOn() throws {
        let key = try makeKeyFile()
        var receivers: [ManagedProcess] = []
        var addresses: [String] = []
        for _ in 0..<2 {
            let (r, address) = try ManagedProcess.receiver(key: key.path, seconds: 40)
            addresses.append(address)
            receivers.append(r)
        }
        let serve = try serve()
        serve.send(#"{"cmd":"hello","protocol":1}"#)
        serve.send(#"{"cmd":"start","size":"320x180","fps":15,"scenario":"motion","id":1}"#)
        #expect(serve.answer(id: 1)?["ok"] as? Bool == true)
        for (i, address) in addresses.enumerated() {
            serve.send(#"{"cmd":"addReceiver","id":\#(10 + i),"receiver":"r\#(i)","destination":"\#(address)","srtp":{"key":"\#(key.base64)"},"codecs":[{"name":"H264","payloadType":96,"packetizationMode":1}]}"#)
            #expect(serve.answer(id: 10 + i)?["ok"] as? Bool == true)
        }
        Thread.sleep(forTimeInterval: 3)
        kill(receivers[0].process.processIdentifier, SIGKILL)
        #expect(serve.waitFor(timeout: 25) { !$0.events("receiverLost").isEmpty })
        #expect(serve.events("receiverLost").map { $0["receiver"] as? String } == ["r0"])
        let before = receivers[1].events("figures").last?["framesDecoded"] as? Int ?? 0
        Thread.sleep(forTimeInterval: 2.5)
        let after = receivers[1].events("figures").last?["framesDecoded"] as? Int ?? 0
        #expect(after > before + 20, "r1 keeps decoding: \(before) → \(after)")
        serve.interrupt()
        #expect(serve.waitForExit(timeout: 10) == 0)
        receivers[1].send("stop")
        _ = receivers[1].waitForExit(timeout: 5)
    }

    @Test func unixSocketIsPrivateAndAnOccupiedPathIsRefused() throws {
        let dir = NSTemporaryDirectory() + "screenshare-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let plainFile = dir + "/not-a-socket"
        _ = FileManager.default.createFile(atPath: plainFile, contents: Data("x".utf8))
        let refused = try ManagedProcess("screenshare", ["serve", "--control", "unix:" + plainFile])
        #expect(refused.waitForExit(timeout: 5) == 1)

        let path = dir + "/control.sock"
        let first = try ManagedProcess("screenshare", ["serve", "--control", "unix:" + path])
        #expect(first.waitFor(timeout: 5) { _ in FileManager.default.fileExists(atPath: path) })
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        // A client over the socket gets the greeting and its reply.
        let client = try ManagedProcess("/usr/bin/python3", ["-c", """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
            s.sendall(b'{"cmd":"hello","protocol":1,"id":"h"}\\n{"cmd":"status","id":"s"}\\n')
            f = s.makefile()
            for _ in range(3): print(f.readline().strip(), flush=True)
            """, path])
        #expect(client.waitForExit(timeout: 10) == 0)
        #expect(client.events("hello").first?["protocol"] as? Int == 1)
        #expect(client.events("reply").contains { $0["id"] as? String == "s" && $0["sharing"] as? Bool == false })
        // The client closed: that serve is done, and removed its socket.
        #expect(first.waitForExit(timeout: 10) == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
        let second0 = try ManagedProcess("screenshare", ["serve", "--control", "unix:" + path])
        #expect(second0.waitFor(timeout: 5) { _ in FileManager.default.fileExists(atPath: path) })
        // Someone answers on it: a second serve must not take it over.
        let second = try ManagedProcess("screenshare", ["serve", "--control", "unix:" + path])
        #expect(second.waitForExit(timeout: 5) == 1)
        // Killed outright, it leaves a stale socket nobody answers on: the next serve replaces it.
        kill(second0.process.processIdentifier, SIGKILL)
        _ = second0.waitForExit(timeout: 5)
        #expect(FileManager.default.fileExists(atPath: path))
        let third = try ManagedProcess("screenshare", ["serve", "--control", "unix:" + path])
        #expect(third.waitFor(timeout: 5) { _ in (try? FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int) != nil })
        Thread.sleep(forTimeInterval: 0.5)
        #expect(third.process.isRunning, "a stale socket is replaced")
        third.process.terminate()
        #expect(third.waitForExit(timeout: 5) == 0)
        #expect(!FileManager.default.fileExists(atPath: path), "the socket is removed on exit")
    }

    /// One call client at a time: a second one on the socket is told so in an error line and closed, and the
    /// first carries on.
    @Test func aSecondClientOnTheSocket_isToldBusyAndClosed() throws {
        let dir = NSTemporaryDirectory() + "screenshare-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/control.sock"
        let serve = try ManagedProcess("screenshare", ["serve", "--control", "unix:" + path])
        #expect(serve.waitFor(timeout: 5) { _ in FileManager.default.fileExists(atPath: path) })
        let clients = try ManagedProcess("/usr/bin/python3", ["-c", """
            import json, socket, sys
            first = socket.socket(socket.AF_UNIX); first.connect(sys.argv[1])
            replies = first.makefile()
            replies.readline()
            first.sendall(b'{"cmd":"hello","protocol":1,"id":"h"}\\n')
            print(replies.readline().strip(), flush=True)
            second = socket.socket(socket.AF_UNIX); second.settimeout(10); second.connect(sys.argv[1])
            told = second.makefile().readline().strip()
            print(json.dumps({"event": "second", "told": json.loads(told), "closed": second.recv(1) == b""}), flush=True)
            first.sendall(b'{"cmd":"status","id":"s"}\\n')
            print(replies.readline().strip(), flush=True)
            """, path])
        #expect(clients.waitForExit(timeout: 15) == 0)
        let second = try #require(clients.events("second").first)
        let told = try #require(second["told"] as? [String: Any])
        #expect(told["event"] as? String == "error" && told["code"] as? String == "busy")
        #expect((told["message"] as? String)?.contains("another call client is already connected") == true)
        #expect(second["closed"] as? Bool == true)
        #expect(clients.events("reply").contains { $0["id"] as? String == "s" && $0["sharing"] as? Bool == false })
        #expect(serve.waitForExit(timeout: 10) == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    /// A call client that stops reading its replies is taken to be gone after the write timeout, as one
    /// that closes its end: the share ends and serve exits, rather than hanging on a full pipe.
    @Test func aClientThatStopsReading_endsTheShare() throws {
        let serve = try ManagedProcess("screenshare", ["serve", "--control", "stdio", "--log-level", "debug"], readsOutput: false)
        serve.send(#"{"cmd":"hello","protocol":1}"#)
        serve.send(#"{"cmd":"start","size":"320x180","scenario":"motion"}"#)
        // Nobody reads: status, logs and replies fill the pipe, and after 10 s without progress serve gives up.
        for i in 0..<3000 { serve.send(#"{"cmd":"diagnostics","id":\#(i)}"#) }
        #expect(serve.waitForExit(timeout: 40) == 0)
    }
}
