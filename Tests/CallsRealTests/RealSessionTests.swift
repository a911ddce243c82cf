import Calls
import CallsChromium
import CallScopeCore
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

/// What a real test that missed a bound found out, as progress lines marked `diagnostics:`:
/// Scripts/test.sh prints them again at the end of a failed suite, where CI's excerpt of the
/// output (its tail) shows them.
func diagnostics(_ title: String, _ lines: [String]) {
    progress("diagnostics: \(title)")
    for line in lines { progress("diagnostics: \(line)") }
}

@Suite(.serialized, .enabled(if: RealComponents.enabled, "needs CALLSCOPE_REAL=1 and janus, chromium, chromedriver"))
struct RealSessionTests {
    /// Two CallSessions on real Janus + Chromium: one publishes, the other sees `streamCreated`,
    /// subscribes, gets `didConnect` and rising video bytes; unsubscribe is immediate; after a
    /// new subscription, the publisher leaves and the subscriber's session sees
    /// `streamDestroyed` exactly once and nothing for that stream after it.
    @Test(.timeLimit(.minutes(3)))
    func publishSubscribeUnsubscribeAndThePublisherLeaves() async throws {
        await TwoClientCall.run("real session", .init(bobJoinsFirst: true, subscribe: false)) { call in
            let (alice, bob, bobEvents, stream) = (call.alice, call.bob, call.bobEvents, call.stream)
            let aliceID = stream.streamId
            #expect(stream.hasAudio && stream.hasVideo && stream.name == "alice" && stream.connection.data == "alice")
            #expect(bobEvents.all.map(\.1).contains(.connectionCreated(stream.connection)))

            let first = CallSubscriber(stream: stream)
            let firstEvents = Gathered(first.events)
            progress("try await bob.subscribe")
            try await bob.subscribe(first)
            #expect(await firstEvents.wait(.seconds(20)) { $0.contains(.didConnect(stream)) }, "didConnect")
            progress("await bob.unsubscribe")
            await bob.unsubscribe(first)
            await bob.unsubscribe(first)
            #expect(await bob.subscribers.isEmpty)
            // No subscriber, no path — and alice is still in the call (docs/spec/sessions.md §5).
            #expect(await bob.participants.first { $0.connectionId == aliceID }?.paths == [], "no paths without a subscriber")
            #expect(!bobEvents.all.contains { if case .participantDidDisconnect = $0.1 { true } else { false } })

            let second = CallSubscriber(stream: stream)
            let secondEvents = Gathered(second.events)
            progress("try await bob.subscribe")
            try await bob.subscribe(second)
            #expect(await secondEvents.wait(.seconds(20)) { $0.contains(.didConnect(stream)) }, "didConnect again")
            // Media through the SDK's own sampling: the subscriber's monitor got reports with video.
            let reports = Gathered(second.statsMonitor.events)
            #expect(await reports.wait(.seconds(15)) { $0.count >= 3 }, "stats callbacks sampled by the SDK")
            // The decoded size (docs/spec/sessions.md §1): one of the sizes alice's layers are sent at
            // (capture size divided by each layer's scaleResolutionDownBy), on bob's stream and
            // subscriber, announced by streamVideoDimensionsChanged.
            let layerSizes = TwoClientCall.media.encodings.map {
                CallVideoDimensions(width: Int(Double(TwoClientCall.media.width) / $0.scaleResolutionDownBy),
                                    height: Int(Double(TwoClientCall.media.height) / $0.scaleResolutionDownBy))
            }
            let sized = await bobEvents.wait(.seconds(10)) { if case .streamVideoDimensionsChanged(let s) = $0 { s.streamId == aliceID } else { false } }
            let announced = bobEvents.all.compactMap { item -> CallVideoDimensions? in
                if case .streamVideoDimensionsChanged(let s) = item.1, s.streamId == aliceID { s.videoDimensions } else { nil }
            }
            progress("decoded sizes announced: \(announced.map { "\($0.width)x\($0.height)" }), layers \(layerSizes.map { "\($0.width)x\($0.height)" })")
            #expect(sized != nil && !announced.isEmpty && announced.allSatisfy(layerSizes.contains), "decoded sizes \(announced) among \(layerSizes)")
            #expect(second.stream.videoDimensions == announced.last, "the subscriber's stream carries the last size")
            #expect(await bob.streams.first { $0.streamId == aliceID }?.videoDimensions == announced.last)
            // Host-to-host over loopback UDP: the only working path is udpDirect.
            #expect(bobEvents.all.contains { if case .participantDidConnect(let p) = $0.1 { p.connectionId == aliceID } else { false } })
            #expect(await bobEvents.wait(.seconds(5)) { if case .participantPathsChanged(let p) = $0 { p.connectionId == aliceID && p.paths == .udpDirect } else { false } } != nil,
                    "bob's path to alice is udpDirect: \(bobEvents.all.map(\.1))")
            #expect(await bob.participants.first { $0.connectionId == aliceID }?.paths == .udpDirect)

            progress("await alice.disconnect")
            await alice.disconnect()
            #expect(await bobEvents.wait(.seconds(20)) { if case .streamDestroyed(let s, _) = $0 { s.streamId == aliceID } else { false } } != nil,
                    "bob sees alice's stream leave")
            try await Task.sleep(for: .seconds(2))
            let destroyed = bobEvents.all.filter { if case .streamDestroyed(let s, _) = $0.1 { s.streamId == aliceID } else { false } }
            #expect(destroyed.count == 1, "exactly one streamDestroyed: \(destroyed.map(\.1))")
            #expect(await bobEvents.wait(.seconds(10)) { if case .participantDidDisconnect(let p) = $0 { p.connectionId == aliceID } else { false } } != nil,
                    "alice left the call")
            #expect(await bob.subscribers.isEmpty)
            #expect(!firstEvents.all.contains(.didDisconnect(stream)) && !secondEvents.all.contains(.didDisconnect(stream)),
                    "no lifecycle event after unsubscribe or after the stream left: \(secondEvents.all)")
        }
    }

    /// Janus killed (SIGKILL) and started again on the same port mid-call: both sessions find their Janus
    /// session gone, rejoin, the publisher publishes again under a new feed id; the subscriber's
    /// app sees the old stream destroyed and the new one created, and a new subscription connects.
    @Test(.timeLimit(.minutes(3)))
    func janusRestartedMidCallRejoinsAndTheStreamComesBack() async throws {
        await TwoClientCall.run("janus restart scenario", .init(bobJoinsFirst: true, steady: .zero)) { call in
            let (alice, bob, bobEvents, oldStream) = (call.alice, call.bob, call.bobEvents, call.stream)
            progress("killing janus")
            try await call.restartJanus()
            progress("janus back")
            let newStreamArrived = await bobEvents.wait(.seconds(40)) {
                if case .streamCreated(let s) = $0 { s.streamId != oldStream.streamId } else { false }
            } != nil
            progress("bob saw: \(bobEvents.all.map { "\($0.1)".prefix(90) })")
            #expect(newStreamArrived, "alice's stream back under a new id: \(bobEvents.all.map(\.1))")
            #expect(bobEvents.all.contains { if case .streamDestroyed(let s, _) = $0.1 { s == oldStream } else { false } }, "the old stream destroyed")
            let aliceConnected = await alice.isConnected, bobConnected = await bob.isConnected
            #expect(aliceConnected && bobConnected)
            if let newStream = await bob.streams.first {
                let second = CallSubscriber(stream: newStream)
                let secondEvents = Gathered(second.events)
                try await bob.subscribe(second)
                #expect(await secondEvents.wait(.seconds(20)) { $0.contains(.didConnect(newStream)) }, "a new subscription connects")
            }
        }
    }
}
