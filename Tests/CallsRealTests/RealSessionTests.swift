import Calls
import CallsChromium
import CallsJanus
import Foundation
import RTCStats
import Testing

/// Collects a stream's elements as they come.
final class Gathered<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])
    init(_ stream: AsyncStream<Element>) {
        Task { [weak self] in
            for await item in stream {
                guard let self else { return }
                self.items.withLock { $0.append(item) }
            }
        }
    }
    var all: [Element] { items.withLock { $0 } }

    /// Waits (polling every 100 ms of real time) until `condition` holds or `timeout` passes.
    func wait(_ timeout: Duration, until condition: ([Element]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(all) { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return condition(all)
    }
}

/// Progress lines for the real tests (they run for seconds; a hang must say where).
func progress(_ line: String) {
    let text = "[real \(Date().timeIntervalSince1970)] \(line)\n"
    FileHandle.standardError.write(Data(text.utf8))
    // Also to a file: swift-test holds the test process' output until it ends.
    if let path = ProcessInfo.processInfo.environment["CALLSCOPE_REAL_LOG"], let file = FileHandle(forWritingAtPath: path) {
        file.seekToEndOfFile()
        file.write(Data(text.utf8))
        try? file.close()
    }
}

@Suite(.serialized, .enabled(if: RealComponents.enabled, "needs CALLSCOPE_REAL=1 and janus, chromium, chromedriver"))
struct RealSessionTests {
    /// Two CallSessions on real Janus + Chromium: one publishes, the other sees `streamCreated`,
    /// subscribes, gets `didConnect` and rising video bytes; unsubscribe is immediate; after a
    /// new subscription, the publisher leaves and the subscriber's session sees
    /// `streamDestroyed` exactly once and nothing for that stream after it.
    @Test(.timeLimit(.minutes(3)))
    func publishSubscribeUnsubscribeAndThePublisherLeaves() async throws {
        let janus = try await JanusProcess()
        let options = ChromiumOptions(fakeCameraFrameRate: 15)
        var engines: [ChromiumMediaEngine] = []
        var sessions: [CallSession] = []
        do {
            engines.append(try await { progress("launch chromium"); let e = try await ChromiumMediaEngine.launch(options); progress("chromium ready"); return e }())
            engines.append(try await { progress("launch chromium"); let e = try await ChromiumMediaEngine.launch(options); progress("chromium ready"); return e }())
            let alice = CallSession(signaling: JanusSignaling(url: janus.url, room: RealCallTests.room), engine: engines[0],
                                    clock: ContinuousClock(), wallClock: Date.init)
            let bob = CallSession(signaling: JanusSignaling(url: janus.url, room: RealCallTests.room), engine: engines[1],
                                  clock: ContinuousClock(), wallClock: Date.init)
            sessions = [alice, bob]
            let bobEvents = Gathered(bob.events)
            progress("try await bob.connect")
            try await bob.connect(display: "bob")
            try await alice.connect(display: "alice")
            let publisher = CallPublisher(settings: CallPublisherSettings(name: "alice", media: LocalMediaSettings(frameRate: 15)))
            progress("try await alice.publish")
            try await alice.publish(publisher)
            let aliceID = try #require(await alice.connection?.connectionId)

            #expect(await bobEvents.wait(.seconds(20)) { $0.contains { if case .streamCreated(let s) = $0 { s.streamId == aliceID } else { false } } },
                    "bob sees alice's stream")
            let stream = try #require(await bob.streams.first { $0.streamId == aliceID })
            #expect(stream.hasAudio && stream.hasVideo && stream.name == "alice" && stream.connection.data == "alice")
            #expect(bobEvents.all.contains(.connectionCreated(stream.connection)))

            let first = CallSubscriber(stream: stream)
            let firstEvents = Gathered(first.events)
            progress("try await bob.subscribe")
            try await bob.subscribe(first)
            #expect(await firstEvents.wait(.seconds(20)) { $0.contains(.didConnect(stream)) }, "didConnect")
            progress("await bob.unsubscribe")
            await bob.unsubscribe(first)
            await bob.unsubscribe(first)
            #expect(await bob.subscribers.isEmpty)
            // No subscriber, no path — and alice is still in the call (sessions.md §5).
            #expect(await bob.participants.first { $0.connectionId == aliceID }?.paths == [], "no paths without a subscriber")
            #expect(!bobEvents.all.contains { if case .participantDidDisconnect = $0 { true } else { false } })

            let second = CallSubscriber(stream: stream)
            let secondEvents = Gathered(second.events)
            progress("try await bob.subscribe")
            try await bob.subscribe(second)
            #expect(await secondEvents.wait(.seconds(20)) { $0.contains(.didConnect(stream)) }, "didConnect again")
            // Media through the SDK's own sampling: the subscriber's monitor got reports with video.
            let reports = Gathered(second.statsMonitor.events)
            #expect(await reports.wait(.seconds(15)) { $0.count >= 3 }, "stats callbacks sampled by the SDK")
            // Host-to-host over loopback UDP: the only working path is udpDirect.
            #expect(bobEvents.all.contains { if case .participantDidConnect(let p) = $0 { p.connectionId == aliceID } else { false } })
            #expect(await bobEvents.wait(.seconds(5)) { $0.contains { if case .participantPathsChanged(let p) = $0 { p.connectionId == aliceID && p.paths == .udpDirect } else { false } } },
                    "bob's path to alice is udpDirect: \(bobEvents.all)")
            #expect(await bob.participants.first { $0.connectionId == aliceID }?.paths == .udpDirect)

            progress("await alice.disconnect")
            await alice.disconnect()
            #expect(await bobEvents.wait(.seconds(20)) { $0.contains { if case .streamDestroyed(let s, _) = $0 { s.streamId == aliceID } else { false } } },
                    "bob sees alice's stream leave")
            try await Task.sleep(for: .seconds(2))
            let destroyed = bobEvents.all.filter { if case .streamDestroyed(let s, _) = $0 { s.streamId == aliceID } else { false } }
            #expect(destroyed.count == 1, "exactly one streamDestroyed: \(destroyed)")
            #expect(await bobEvents.wait(.seconds(10)) { $0.contains { if case .participantDidDisconnect(let p) = $0 { p.connectionId == aliceID } else { false } } },
                    "alice left the call")
            #expect(await bob.subscribers.isEmpty)
            #expect(!firstEvents.all.contains(.didDisconnect(stream)) && !secondEvents.all.contains(.didDisconnect(stream)),
                    "no lifecycle event after unsubscribe or after the stream left: \(secondEvents.all)")
        } catch {
            Issue.record("real session failed: \(error)")
        }
        progress("for session in sessions { await session.disconnect")
        for session in sessions { await session.disconnect() }
        progress("for engine in engines { await engine.shutdown")
        for engine in engines { await engine.shutdown() }
        progress("await janus.stop")
        await janus.stop()
    }

    /// Janus killed (SIGKILL) and started again on the same port mid-call: both sessions find their Janus
    /// session gone, rejoin, the publisher publishes again under a new feed id; the subscriber's
    /// app sees the old stream destroyed and the new one created, and a new subscription connects.
    @Test(.timeLimit(.minutes(3)))
    func janusRestartedMidCallRejoinsAndTheStreamComesBack() async throws {
        var janus = try await JanusProcess()
        let options = ChromiumOptions(fakeCameraFrameRate: 15)
        var engines: [ChromiumMediaEngine] = []
        var sessions: [CallSession] = []
        do {
            engines.append(try await { progress("launch chromium"); let e = try await ChromiumMediaEngine.launch(options); progress("chromium ready"); return e }())
            engines.append(try await { progress("launch chromium"); let e = try await ChromiumMediaEngine.launch(options); progress("chromium ready"); return e }())
            let alice = CallSession(signaling: JanusSignaling(url: janus.url, room: RealCallTests.room), engine: engines[0],
                                    clock: ContinuousClock(), wallClock: Date.init)
            let bob = CallSession(signaling: JanusSignaling(url: janus.url, room: RealCallTests.room), engine: engines[1],
                                  clock: ContinuousClock(), wallClock: Date.init)
            sessions = [alice, bob]
            let bobEvents = Gathered(bob.events)
            try await bob.connect(display: "bob")
            try await alice.connect(display: "alice")
            try await alice.publish(CallPublisher(settings: CallPublisherSettings(name: "alice", media: LocalMediaSettings(frameRate: 15))))
            #expect(await bobEvents.wait(.seconds(20)) { $0.contains { if case .streamCreated = $0 { true } else { false } } })
            let oldStream = try #require(await bob.streams.first)
            let first = CallSubscriber(stream: oldStream)
            let firstEvents = Gathered(first.events)
            try await bob.subscribe(first)
            #expect(await firstEvents.wait(.seconds(20)) { $0.contains(.didConnect(oldStream)) })

            progress("killing janus")
            let port = UInt16(janus.url.port ?? 0)
            await janus.kill()
            try await Task.sleep(for: .seconds(2))
            janus = try await JanusProcess(port: port)
            progress("janus back")
            let newStreamArrived = await bobEvents.wait(.seconds(40)) {
                $0.contains { if case .streamCreated(let s) = $0 { s.streamId != oldStream.streamId } else { false } }
            }
            progress("bob saw: \(bobEvents.all.map { "\($0)".prefix(90) })")
            #expect(newStreamArrived, "alice's stream back under a new id: \(bobEvents.all)")
            #expect(bobEvents.all.contains(.streamDestroyed(oldStream, reason: .publisherLeft)) || bobEvents.all.contains { if case .streamDestroyed(let s, _) = $0 { s == oldStream } else { false } },
                    "the old stream destroyed")
            let aliceConnected = await alice.isConnected, bobConnected = await bob.isConnected
            let bothConnected = aliceConnected && bobConnected
            #expect(bothConnected)
            if let newStream = await bob.streams.first {
                let second = CallSubscriber(stream: newStream)
                let secondEvents = Gathered(second.events)
                try await bob.subscribe(second)
                #expect(await secondEvents.wait(.seconds(20)) { $0.contains(.didConnect(newStream)) }, "a new subscription connects")
            }
        } catch {
            Issue.record("janus restart scenario failed: \(error)")
        }
        for session in sessions { await session.disconnect() }
        for engine in engines { await engine.shutdown() }
        await janus.stop()
    }
}
