import CallScopeCore
import Calls
import CallsChromium
import CallsJanus
import Foundation
import Observability
import RTCStats
import Testing
import VideoFrames

/// Frames out of headless Chromium on a real call (issue 22 item 2, docs/video-chromium.md):
/// Alice's camera is a 960x540 clip at 30 fps sent as the rig's three VP8 layers through Janus,
/// Bob's subscriber connection and Alice's own connection have frame sinks. Over the same
/// interval, at least 95 % of the frames Bob's Chromium decoded (inbound-rtp `framesDecoded`)
/// reach the sink, at the layer's size, with increasing timestamps; Alice's sink sees her
/// captured frames at the capture size. The channel's costs are printed (not asserted).
@Suite(.serialized, .enabled(if: RealComponents.enabled, "needs CALLSCOPE_REAL=1 and janus, chromium, chromedriver"))
struct RealFrameChannelTests {
    /// What a sink keeps of each frame (not the pixels: 30 frames a second of 777,600 bytes).
    struct Seen: Sendable {
        var width: Int
        var height: Int
        var format: PixelFormat
        var rtpTimestamp: UInt32
        var captureTimeMicroseconds: Int64?
        var source: VideoTrackSource
        var lumaMean: Int
    }

    /// A 960x540 clip of `count` frames: a diagonal gradient moving 8 px a frame under a grid
    /// of blocks whose shade changes every frame, so that VP8 has motion and detail to code.
    static func writeClip(to path: String, count: Int = 30) throws {
        let header = Y4MHeader(width: 960, height: 540, frameRate: Y4MFrameRate(numerator: 30, denominator: 1))
        var output = Y4MWriter(header: header).headerBytes()
        for index in 0..<count {
            var frame = try VideoFrameBuffer(format: .i420, width: 960, height: 540)
            frame.withUnsafeMutableBytes { bytes in
                for y in 0..<540 {
                    let row = y * 960
                    for x in 0..<960 {
                        let block = ((x / 60) + (y / 60) + index) % 4 == 0
                        bytes[row + x] = block ? UInt8(truncatingIfNeeded: 40 + index * 6) : UInt8(truncatingIfNeeded: (x + y + index * 8) / 6)
                    }
                }
                let chroma = 960 * 540
                for offset in 0..<(480 * 270) {
                    bytes[chroma + offset] = UInt8(truncatingIfNeeded: 128 + (offset % 480) / 8 - 30)
                    bytes[chroma + 480 * 270 + offset] = UInt8(truncatingIfNeeded: 128 + (offset / 480) / 6 - 22)
                }
            }
            try frame.withFrame { try Y4MWriter(header: header).append($0, to: &output) }
        }
        try Data(output).write(to: URL(fileURLWithPath: path))
    }

    @Test(.timeLimit(.minutes(3)))
    func decodedFramesReachTheSinkAt960x540() async throws {
        let work = NSTemporaryDirectory() + "callscope-frames-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let clip = work + "/clip-960x540.y4m"
        try Self.writeClip(to: clip)
        let janus = try await JanusProcess()
        var engines: [ChromiumMediaEngine] = []
        var sessions: [JanusSession] = []
        var followers: [Task<Void, Never>] = []
        do {
            progress("frames: launch chromium x2")
            let publisherEngine = try await ChromiumMediaEngine.launch(ChromiumOptions(fakeCameraFrameRate: 30, fakeCameraFile: clip))
            engines.append(publisherEngine)
            let subscriberEngine = try await ChromiumMediaEngine.launch(ChromiumOptions())
            engines.append(subscriberEngine)
            let publisherLog = EventLog(), subscriberLog = EventLog()
            followers = [await publisherLog.follow(publisherEngine), await subscriberLog.follow(subscriberEngine)]

            // Alice publishes the clip as three layers (960x540, 480x270, 240x135) at 30 fps.
            let publisherSession = try await JanusSession.create(url: janus.url)
            sessions.append(publisherSession)
            let publisherHandle = try await publisherSession.attach(opaqueID: "callscope-frames-publisher")
            let joined = try await publisherHandle.joinAsPublisher(room: RealCallTests.room, display: "alice")
            let publisherPC = try await publisherEngine.makePeerConnection(.init())
            let preview = Locked<[Seen]>([])
            try await publisherEngine.setVideoFrameSink({ frame in preview.withLock { $0.append(Self.seen(frame)) } }, on: publisherPC)
            try await publisherEngine.addLocalMedia(LocalMediaSettings(width: 960, height: 540, frameRate: 30), to: publisherPC)
            let offer = try await publisherEngine.createOffer(on: publisherPC, iceRestart: false)
            try await publisherEngine.setLocalDescription(offer, on: publisherPC)
            let answer = try await publisherHandle.publish(offer: offer)
            await publisherLog.trickle(publisherPC, to: publisherHandle)
            try await publisherEngine.setRemoteDescription(answer, on: publisherPC)

            // Bob subscribes and gives his connection a sink before any frame can arrive.
            let subscriberSession = try await JanusSession.create(url: janus.url)
            sessions.append(subscriberSession)
            let subscriberHandle = try await subscriberSession.attach(opaqueID: "callscope-frames-subscriber")
            let publishingBy = ContinuousClock.now + .seconds(20)
            while try await !subscriberHandle.listParticipants(room: RealCallTests.room).contains(where: { $0.id == joined.id && $0.publishing }) {
                guard ContinuousClock.now < publishingBy else { throw RigError("the publisher never became a feed") }
                try await Task.sleep(for: .milliseconds(250))
            }
            let subscribed = try await subscriberHandle.joinAsSubscriber(room: RealCallTests.room, subscriptions: [VideoRoomSubscription(feed: joined.id)])
            let subscriberPC = try await subscriberEngine.makePeerConnection(.init())
            let received = Locked<[Seen]>([])
            try await subscriberEngine.setVideoFrameSink({ frame in received.withLock { $0.append(Self.seen(frame)) } }, on: subscriberPC)
            try await subscriberEngine.setRemoteDescription(subscribed.offer, on: subscriberPC)
            let subscriberAnswer = try await subscriberEngine.createAnswer(on: subscriberPC)
            try await subscriberHandle.start(answer: subscriberAnswer)
            await subscriberLog.trickle(subscriberPC, to: subscriberHandle)

            // Wait for the top layer (the sender's bandwidth estimate ramps up first).
            let topBy = ContinuousClock.now + .seconds(30)
            var inbound = try await Self.inboundVideo(subscriberEngine, subscriberPC)
            while inbound.width != 960 || inbound.decoded == 0 {
                guard ContinuousClock.now < topBy else { throw RigError("no 960x540 frame decoded within 30 s: \(inbound)") }
                try await Task.sleep(for: .milliseconds(500))
                inbound = try await Self.inboundVideo(subscriberEngine, subscriberPC)
            }
            try await Task.sleep(for: .seconds(1))

            // The interval: framesDecoded and the sink's count read back to back at both ends.
            let start = try await Self.inboundVideo(subscriberEngine, subscriberPC)
            let startCount = received.withLock { $0.count }
            let startCPU = await subscriberEngine.frameChannelStatistics
            let startPage = try await subscriberEngine.pageFrameChannelStatistics()
            try await Task.sleep(for: .seconds(10))
            let statsDuring = try await Self.statsRoundTrips(subscriberEngine, subscriberPC, count: 3)
            let end = try await Self.inboundVideo(subscriberEngine, subscriberPC)
            let endCount = received.withLock { $0.count }
            let endCPU = await subscriberEngine.frameChannelStatistics
            let endPage = try await subscriberEngine.pageFrameChannelStatistics()

            let decoded = end.decoded - start.decoded
            let delivered = endCount - startCount
            let frames = received.withLock { $0 }
            let interval = Array(frames[startCount..<endCount])
            let rejected = await subscriberLog.events.filter { if case .videoFrameRejected = $0 { true } else { false } }
            let channelFrames = (endCPU?.frames ?? 0) - (startCPU?.frames ?? 0)
            let cpuPerFrame = Double((endCPU?.cpuNanoseconds ?? 0) - (startCPU?.cpuNanoseconds ?? 0)) / Double(max(channelFrames, 1)) / 1000
            let pageFrames = (endPage["frames"]?.number ?? 0) - (startPage["frames"]?.number ?? 0)
            let copyPerFrame = ((endPage["copyMs"]?.number ?? 0) - (startPage["copyMs"]?.number ?? 0)) / max(pageFrames, 1) * 1000
            let sendPerFrame = ((endPage["sendMs"]?.number ?? 0) - (startPage["sendMs"]?.number ?? 0)) / max(pageFrames, 1) * 1000
            progress("frames: measured over 10 s: decoded \(decoded), delivered \(delivered) (\(String(format: "%.1f", 100 * Double(delivered) / Double(max(decoded, 1)))) %), "
                     + "sizes \(Set(interval.map { "\($0.width)x\($0.height)" }).sorted()), rejected \(rejected.count), page formats \(JSONWriter.string(endPage["formats"] ?? .null))")
            progress("frames: Swift CPU \(String(format: "%.0f", cpuPerFrame)) µs/frame; page copyTo \(String(format: "%.0f", copyPerFrame)) µs, send \(String(format: "%.0f", sendPerFrame)) µs/frame (wall)")

            #expect(decoded >= 150, "at least 15 fps decoded over 10 s: \(decoded)")
            #expect(Double(delivered) >= 0.95 * Double(decoded), "delivered \(delivered) of \(decoded) decoded")
            #expect(interval.allSatisfy { $0.width == 960 && $0.height == 540 && $0.format == .i420 && $0.source == .remote },
                    "sizes in the interval: \(Set(interval.map { "\($0.width)x\($0.height) \($0.format)" }))")
            let layers: Set<String> = ["960x540", "480x270", "240x135"]
            #expect(frames.allSatisfy { layers.contains("\($0.width)x\($0.height)") }, "\(Set(frames.map { "\($0.width)x\($0.height)" }))")
            // The RTP timestamp is the sender's and must increase frame after frame. Chromium's
            // `VideoFrame.timestamp` of a remote frame is the receiver's render time, which its
            // timing estimator may step back once under load (seen once with the machine at
            // load 27): reported, and required to increase over the interval.
            let times = frames.compactMap(\.captureTimeMicroseconds)
            let backwards = zip(times, times.dropFirst()).enumerated().filter { $0.element.0 >= $0.element.1 }
                .map { "#\($0.offset): \($0.element.0) → \($0.element.1) µs" }
            if !backwards.isEmpty { progress("frames: capture time stepped back \(backwards.count) times: \(backwards.prefix(5))") }
            #expect(times.count == frames.count && (interval.first?.captureTimeMicroseconds ?? 0) < (interval.last?.captureTimeMicroseconds ?? 0), "capture times rise over the interval")
            #expect(zip(frames, frames.dropFirst()).allSatisfy { Int32(bitPattern: $1.rtpTimestamp &- $0.rtpTimestamp) > 0 }, "RTP timestamps increase")
            #expect(interval.allSatisfy { $0.lumaMean > 16 }, "the frames carry the picture, not zeros")
            #expect(rejected.isEmpty, "\(rejected.prefix(3))")

            // Cleared: no frame reaches the old sink any more, and the stats round trip without
            // frames on the same call is the reference for the one above.
            try await subscriberEngine.setVideoFrameSink(nil, on: subscriberPC)
            try await Task.sleep(for: .milliseconds(500))
            let countAfterClear = received.withLock { $0.count }
            let statsWithout = try await Self.statsRoundTrips(subscriberEngine, subscriberPC, count: 3)
            try await Task.sleep(for: .seconds(1))
            #expect(received.withLock { $0.count } == countAfterClear, "no frame after the sink was cleared")
            progress("frames: stats round trip with the sink \(statsDuring) ms, without \(statsWithout) ms")

            let local = preview.withLock { $0 }
            progress("frames: local preview \(local.count) frames, sizes \(Set(local.map { "\($0.width)x\($0.height)" }).sorted())")
            #expect(local.count >= 100 && local.allSatisfy { $0.source == .localPreview && $0.width == 960 && $0.height == 540 })
        } catch {
            Issue.record("frame channel call failed: \(error)")
        }
        for task in followers { task.cancel() }
        for session in sessions { await session.destroy() }
        for engine in engines { await engine.shutdown() }
        await janus.stop()
    }

    static func seen(_ frame: EngineVideoFrame) -> Seen {
        let mean = frame.frame.withFrame { view -> Int in
            let luma = view.plane(0)
            let row = luma.bytes[(view.height / 2 * luma.stride)..<(view.height / 2 * luma.stride + view.width)]
            return row.reduce(0) { $0 + Int($1) } / max(view.width, 1)
        }
        return Seen(width: frame.frame.width, height: frame.frame.height, format: frame.frame.format, rtpTimestamp: frame.frame.timestamp,
                    captureTimeMicroseconds: frame.captureTimeMicroseconds, source: frame.source, lumaMean: mean)
    }

    /// The inbound video's `framesDecoded` and frame size.
    static func inboundVideo(_ engine: ChromiumMediaEngine, _ pc: PeerConnectionID) async throws -> (decoded: Int, width: Int, height: Int) {
        let report = try await engine.stats(of: pc)
        let video = report.entries(ofType: .inboundRTP).first { $0.string("kind") == "video" }
        return (Int(video?.number("framesDecoded") ?? 0), Int(video?.number("frameWidth") ?? 0), Int(video?.number("frameHeight") ?? 0))
    }

    /// `count` stats round trips, ms each.
    static func statsRoundTrips(_ engine: ChromiumMediaEngine, _ pc: PeerConnectionID, count: Int) async throws -> [Int] {
        var times: [Int] = []
        for _ in 0..<count {
            let started = ContinuousClock.now
            _ = try await engine.stats(of: pc)
            let elapsed = ContinuousClock.now - started
            times.append(Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
        }
        return times
    }
}
