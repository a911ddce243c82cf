import CallScopeCore
import CallScopeTesting
@testable import Calls
import Dispatch
import Foundation
import Observability
import Testing
import VideoFrames

/// A renderer that records what it is given; optionally it blocks on its first frame until
/// released, to play a renderer slower than the frames.
final class RecordingRenderer: VideoRenderer {
    struct Seen: Hashable {
        var number: Int, width: Int, height: Int, rotation: VideoRotation, timestamp: UInt32, captureTime: Int64?
    }
    private let seen = Locked<[Seen]>([])
    private let holdFirst: DispatchSemaphore?
    init(holdingFirstFrame: Bool = false) { holdFirst = holdingFirstFrame ? DispatchSemaphore(value: 0) : nil }

    var frames: [Seen] { seen.withLock { $0 } }
    func release() { holdFirst?.signal() }

    func renderVideoFrame(_ frame: CallVideoFrame) {
        let first = seen.withLock { seen -> Bool in
            seen.append(Seen(number: frame.number, width: frame.width, height: frame.height, rotation: frame.frame.rotation,
                             timestamp: frame.frame.timestamp, captureTime: frame.captureTimeMicroseconds))
            return seen.count == 1
        }
        if first { holdFirst?.wait() }
    }
}

/// Renderers and frame streams on subscribers and publishers (issue 22 item 1): the engine's
/// sink is set only while someone listens and follows every new peer connection; delivery is
/// bounded (drop-oldest, counted); sizes and rotations pass through; bad frames are counted drops.
@Suite(.timeLimit(.minutes(1))) struct VideoRendererTests {
    static let pc1 = PeerConnectionID("pc-1"), pc2 = PeerConnectionID("pc-2")

    static func subscribed() async throws -> (CallSessionTests.Rig, CallSubscriber) {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(statsInterval: .seconds(60), subscriberHealthInterval: nil))
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        try await rig.session.subscribe(subscriber)
        return (rig, subscriber)
    }

    static func sinkCalls(_ engine: FakeMediaEngine) -> [String] { engine.calls.filter { $0.hasPrefix("setVideoFrameSink") } }

    @Test func theEngineIsAskedForFramesOnlyWhileSomeoneListens() async throws {
        let (rig, subscriber) = try await Self.subscribed()
        #expect(Self.sinkCalls(rig.engine).isEmpty)
        #expect(!rig.engine.deliverSyntheticI420(on: Self.pc1, width: 4, height: 4))

        let renderer = RecordingRenderer()
        subscriber.videoRenderer = renderer
        await eventually("sink set") { rig.engine.videoFrameSinks == [Self.pc1] }
        let stream = subscriber.videoFrames          // a second listener: no second call
        subscriber.videoRenderer = nil
        for _ in 0..<200 { await Task.yield() }
        #expect(rig.engine.videoFrameSinks == [Self.pc1])
        _ = consume stream                           // the last listener goes: the sink is removed
        await eventually("sink removed") { rig.engine.videoFrameSinks.isEmpty }
        #expect(Self.sinkCalls(rig.engine) == ["setVideoFrameSink pc-1 on", "setVideoFrameSink pc-1 off"])
    }

    @Test func aRendererSetBeforeSubscribingHasASinkBeforeTheAnswer() async throws {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(statsInterval: .seconds(60), subscriberHealthInterval: nil))
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        subscriber.videoRenderer = RecordingRenderer()
        try await rig.session.subscribe(subscriber)
        #expect(Array(rig.engine.calls.prefix(3)) == ["make pc-1", "setVideoFrameSink pc-1 on", "setRemote pc-1 offer for 7"])
    }

    /// Queue limit 3, a renderer held on frame 1 while frames 2...10 arrive: the queue keeps the
    /// newest three (8, 9, 10); 2...7 are dropped, 6 frames. Released, it renders 1, 8, 9, 10.
    @Test func aSlowRendererLosesTheOldestFramesAndTheyAreCounted() async throws {
        let (rig, subscriber) = try await Self.subscribed()
        subscriber.videoOutput.queueLimit = 3
        let renderer = RecordingRenderer(holdingFirstFrame: true)
        subscriber.videoRenderer = renderer
        await eventually("sink set") { !rig.engine.videoFrameSinks.isEmpty }
        rig.engine.deliverSyntheticI420(on: Self.pc1, width: 8, height: 8, timestamp: 1)
        await eventually("frame 1 being rendered") { renderer.frames.count == 1 }
        for timestamp in UInt32(2)...10 { rig.engine.deliverSyntheticI420(on: Self.pc1, width: 8, height: 8, timestamp: timestamp) }
        #expect(subscriber.videoOutput.stats.dropped(.rendererBusy) == 6)
        renderer.release()
        await eventually("all rendered") { subscriber.videoOutput.stats.framesRendered == 4 }
        #expect(renderer.frames.map(\.number) == [1, 8, 9, 10])
        #expect(renderer.frames.map(\.timestamp) == [1, 8, 9, 10])
        let stats = subscriber.videoOutput.stats
        #expect(stats.framesReceived == 10)
        #expect(stats.dropped == [.rendererBusy: 6])
    }

    /// A stream nobody reads, limit 3, 10 frames: it keeps 8, 9, 10; 7 dropped.
    @Test func anUnreadStreamKeepsTheNewestFramesAndCountsTheRest() async throws {
        let (rig, subscriber) = try await Self.subscribed()
        subscriber.videoOutput.queueLimit = 3
        let frames = subscriber.videoFrames
        await eventually("sink set") { !rig.engine.videoFrameSinks.isEmpty }
        for timestamp in UInt32(1)...10 { rig.engine.deliverSyntheticI420(on: Self.pc1, width: 8, height: 8, timestamp: timestamp) }
        #expect(subscriber.videoOutput.stats.dropped(.streamBusy) == 7)
        await rig.session.unsubscribe(subscriber)              // finishes the stream
        var numbers: [Int] = []
        for await frame in frames { numbers.append(frame.number) }
        #expect(numbers == [8, 9, 10])
    }

    /// A layer switch (640x360 → 320x180), an odd size (321x181) and rotations reach the
    /// renderer as sent: two size changes.
    @Test func sizeChangesAndRotationsPassThrough() async throws {
        let (rig, subscriber) = try await Self.subscribed()
        let renderer = RecordingRenderer()
        subscriber.videoRenderer = renderer
        await eventually("sink set") { !rig.engine.videoFrameSinks.isEmpty }
        let sent: [(Int, Int, VideoRotation, Int64)] = [(640, 360, .clockwise90, 1_000), (640, 360, .clockwise90, 34_333),
                                                         (320, 180, .none, 67_666), (321, 181, .clockwise270, 101_000)]
        // One at a time (each rendered before the next comes), so that none is dropped.
        for (index, (width, height, rotation, time)) in sent.enumerated() {
            rig.engine.deliverSyntheticI420(on: Self.pc1, width: width, height: height, rotation: rotation, captureTimeMicroseconds: time)
            await eventually("frame \(index + 1) rendered") { subscriber.videoOutput.stats.framesRendered == index + 1 }
        }
        #expect(renderer.frames.map { [$0.width, $0.height, $0.rotation.rawValue] } == [[640, 360, 90], [640, 360, 90], [320, 180, 0], [321, 181, 270]])
        #expect(renderer.frames.map(\.captureTime) == [1_000, 34_333, 67_666, 101_000])
        #expect(subscriber.videoOutput.stats.sizeChanges == 2)
        #expect(subscriber.videoOutput.stats.lastSize == CallVideoDimensions(width: 321, height: 181))
    }

    /// The router hangs up: the subscription replaces its peer connection, and the renderer's
    /// sink moves to the new one without the app doing anything.
    @Test func aRendererKeepsItsFramesAcrossANewPeerConnection() async throws {
        let (rig, subscriber) = try await Self.subscribed()
        let renderer = RecordingRenderer()
        subscriber.videoRenderer = renderer
        await eventually("sink on pc-1") { rig.engine.videoFrameSinks == [Self.pc1] }
        rig.engine.deliverSyntheticI420(on: Self.pc1, width: 640, height: 360)
        rig.signaling.emit(.mediaUp(RouterHandleID("sub-1")))
        rig.signaling.emit(.hangup(RouterHandleID("sub-1"), reason: "ICE failed"))
        await eventually("sink on pc-2") { rig.engine.videoFrameSinks == [Self.pc2] }
        #expect(!rig.engine.deliverSyntheticI420(on: Self.pc1, width: 640, height: 360))   // pc-1 is closed
        rig.engine.deliverSyntheticI420(on: Self.pc2, width: 320, height: 180)
        await eventually("2 rendered") { renderer.frames.count == 2 }
        #expect(renderer.frames.map(\.width) == [640, 320])
        #expect(Self.sinkCalls(rig.engine) == ["setVideoFrameSink pc-1 on", "setVideoFrameSink pc-2 on"])
    }

    /// Bad geometry from the engine: a zero stride and a truncated plane are counted drops with
    /// the validation's reason; the renderer sees only the good frames.
    @Test func framesWithBadGeometryAreCountedDropsWithAReason() async throws {
        let (rig, subscriber) = try await Self.subscribed()
        let renderer = RecordingRenderer()
        subscriber.videoRenderer = renderer
        await eventually("sink set") { !rig.engine.videoFrameSinks.isEmpty }
        rig.engine.deliverSyntheticI420(on: Self.pc1, width: 64, height: 48, lumaStride: 0)
        rig.engine.deliverSyntheticI420(on: Self.pc1, width: 64, height: 48, lumaBytes: 64 * 47)      // one row short
        rig.engine.deliverSyntheticI420(on: Self.pc1, width: 63, height: 47)                          // odd: legal
        await eventually("2 rejected") { subscriber.videoOutput.stats.dropped(.invalidFrame) == 2 }
        await eventually("1 rendered") { renderer.frames.count == 1 }
        let stats = subscriber.videoOutput.stats
        #expect(stats.framesReceived == 1)
        #expect(stats.lastInvalidFrameReason?.contains("plane 0") == true)
        #expect(renderer.frames.map(\.width) == [63])
    }

    /// An engine that cannot deliver frames: the subscriber is told (didFail), nothing breaks.
    @Test func anEngineWithoutFramesFailsTheRendererVisibly() async throws {
        let (rig, subscriber) = try await Self.subscribed()
        let lifecycle = Collector(subscriber.events)
        rig.engine.failNext("setVideoFrameSink", with: MediaEngineError(.unsupported, "no frames here"))
        subscriber.videoRenderer = RecordingRenderer()
        await eventually("didFail") { !lifecycle.all.isEmpty }
        guard case .didFail(let error) = lifecycle.all.first else { Issue.record("expected didFail"); return }
        #expect("\(error)".contains("no frames here"))
        #expect(rig.engine.videoFrameSinks.isEmpty)
    }

    /// The publisher's local preview: the sink on the publishing connection, moved to the new
    /// one when it republishes after a hangup.
    @Test func thePublishersPreviewFollowsARepublish() async throws {
        let published = try await PublisherReconnectionTests.published()
        let (rig, publisher) = (published.rig, published.publisher)
        let renderer = RecordingRenderer()
        publisher.videoRenderer = renderer
        await eventually("sink on pc-1") { rig.engine.videoFrameSinks == [Self.pc1] }
        rig.engine.deliverSyntheticI420(on: Self.pc1, source: .localPreview, width: 1280, height: 720)
        rig.signaling.emit(.hangup(FakeSignaling.participantHandle, reason: "gone"))
        await eventually("sink on pc-2") { rig.engine.videoFrameSinks == [Self.pc2] }
        rig.engine.deliverSyntheticI420(on: Self.pc2, source: .localPreview, width: 1280, height: 720)
        await eventually("2 rendered") { renderer.frames.count == 2 }
        #expect(publisher.videoOutput.stats.framesReceived == 2)
    }

    /// Audio fallback as the renderer sees it: frames, none for a while, then frames of the new
    /// layer's size. The sink stays where it is (nothing is asked of the engine again) and the
    /// size change is counted.
    @Test func framesThatStopAndComeBackAtAnotherSizeNeedNothingNew() async throws {
        let (rig, subscriber) = try await Self.subscribed()
        let renderer = RecordingRenderer()
        subscriber.videoRenderer = renderer
        await eventually("sink set") { !rig.engine.videoFrameSinks.isEmpty }
        rig.engine.deliverSyntheticI420(on: Self.pc1, width: 960, height: 540)
        await eventually("1 rendered") { renderer.frames.count == 1 }
        rig.signaling.emit(.mediaUp(RouterHandleID("sub-1")))
        for _ in 0..<200 { await Task.yield() }
        rig.engine.deliverSyntheticI420(on: Self.pc1, width: 240, height: 135)
        await eventually("2 rendered") { renderer.frames.count == 2 }
        #expect(renderer.frames.map(\.height) == [540, 135])
        #expect(subscriber.videoOutput.stats.sizeChanges == 1)
        #expect(Self.sinkCalls(rig.engine) == ["setVideoFrameSink pc-1 on"])
    }

    /// Unpublishing ends the preview's streams and takes nothing more.
    @Test func unpublishingFinishesThePreviewStream() async throws {
        let published = try await PublisherReconnectionTests.published()
        let (rig, publisher) = (published.rig, published.publisher)
        let frames = publisher.videoFrames
        await eventually("sink on pc-1") { rig.engine.videoFrameSinks == [Self.pc1] }
        rig.engine.deliverSyntheticI420(on: Self.pc1, source: .localPreview, width: 640, height: 360)
        await rig.session.unpublish(publisher)
        #expect(!rig.engine.deliverSyntheticI420(on: Self.pc1, source: .localPreview, width: 640, height: 360))
        var sizes: [Int] = []
        for await frame in frames { sizes.append(frame.width) }
        #expect(sizes == [640])
    }
}
