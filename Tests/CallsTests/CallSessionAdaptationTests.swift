import CallScopeCore
import CallScopeTesting
@testable import Calls
import Foundation
import Observability
import RTCStats
import Testing

/// The layer policy inside the session, over the fake router and engine on the manual clock:
/// the subscriber's reports and the publisher's sender stats in, `configure` on the
/// subscription's handle and the subscriber's events out.
@Suite(.timeLimit(.minutes(1))) struct CallSessionAdaptationTests {
    static let offer = "v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:1\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:2\r\n"

    static func senderStats(_ sequence: Int, layers: [SenderStatsMessage.Layer] = SubscriberAdaptationTests.allLayers) -> String {
        let message = SenderStatsMessage(sequence: sequence, timestamp: 1_800_000_000_000 + Double(sequence) * 1000, connectionMaxAllocatedBitrate: 2_214_000,
                                         connectionEstimatedBandwidth: 2_000_000, layers: layers, audioFallbackEnabled: true, videoEnabled: true)
        return String(decoding: message.encoded(), as: UTF8.self)
    }

    @Test func theRoutersLayerIsAskedForOnTheVideoMidAndItsSwitchReachesTheSubscriber() async throws {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(statsInterval: .seconds(1), subscriberHealthInterval: nil))
        rig.signaling.setSubscriptionOffer(Self.offer)
        let limits = Locked<[String]>([])
        await rig.session.setStatsRecorder { record in
            if case .receiveLimitChanged(let stream, let pc, let limit, let time) = record {
                limits.withLock { $0.append("\(stream.streamId) \(pc) \(limit.rawValue) on the report of \(Int(time))") }
            }
        }
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        let events = Collector(subscriber.events)
        try await rig.session.subscribe(subscriber)
        let pc = PeerConnectionID("pc-1")
        rig.engine.emit(.dataChannelMessage(pc, label: "callscope", text: Self.senderStats(1)))
        await eventually("sender stats received") { subscriber.statsMonitor.latestSenderStats != nil }
        rig.engine.setReport(SubscriberAdaptationTests.report(time: 1_800_000_001_000, pairBytes: 200_000, videoReceived: 100, videoLost: 0, framesDecoded: 15), for: pc)
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(1))
        // First interval, no estimate: the preferred (top) layer, on the offer's video mid.
        await eventually("configure sent") { rig.signaling.calls.contains("configure sub-1 mid=1 substream=2 temporal=2") }
        rig.signaling.emit(.forwardedLayerChanged(RouterHandleID("sub-1"), mid: "1", substream: 2, temporal: nil))
        rig.signaling.emit(.forwardedLayerChanged(RouterHandleID("sub-1"), mid: "1", substream: nil, temporal: 2))
        rig.signaling.emit(.forwardedLayerChanged(RouterHandleID("sub-9"), mid: "1", substream: 0, temporal: 0))   // not ours
        await eventually("layerChanged") { events.all.contains(.layerChanged(substream: 2, temporal: 2)) }
        // subscribeToVideo off: paused on the mid at the next interval.
        subscriber.subscribeToVideo = false
        rig.engine.setReport(SubscriberAdaptationTests.report(time: 1_800_000_002_000, pairBytes: 400_000, videoReceived: 200, videoLost: 0, framesDecoded: 30), for: pc)
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(1))
        await eventually("paused") { rig.signaling.calls.contains("configure sub-1 mid=1 send=false") }
        await eventually("videoDisabled") { events.all.contains(.videoDisabled(.subscriberPropertyChanged)) }
        #expect(subscriber.receiveLimit == .videoOff)
        // Recorded when decided, stamped with the report it was decided on (a replay applies it
        // from the next report, as the monitor did).
        #expect(limits.withLock { $0 } == ["7 pc-1 videoOff on the report of 1800000002000"])
        #expect(events.all.filter { if case .layerChanged = $0 { true } else { false } } == [.layerChanged(substream: 2, temporal: 2)])
        await rig.session.disconnect()
    }

    /// The router's reply to a `configure` can be stuck behind the very downlink cap the policy
    /// reacts to (measured on the rig: 20-44 s at 100 kbit/s): the stats samples, and with them
    /// the policy, go on meanwhile, and the next `configure` goes out without waiting for it.
    @Test func aConfigureWhoseReplyIsStuckHoldsNeitherTheSamplesNorTheNextConfigure() async throws {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(statsInterval: .seconds(1), subscriberHealthInterval: nil))
        rig.signaling.setSubscriptionOffer(Self.offer)
        rig.signaling.holdConfigureReplies()
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        try await rig.session.subscribe(subscriber)
        let pc = PeerConnectionID("pc-1")
        rig.engine.emit(.dataChannelMessage(pc, label: "callscope", text: Self.senderStats(1)))
        await eventually("sender stats received") { subscriber.statsMonitor.latestSenderStats != nil }
        func samples() -> Int { rig.engine.calls.filter { $0 == "stats pc-1" }.count }
        rig.engine.setReport(SubscriberAdaptationTests.report(time: 1_800_000_001_000, pairBytes: 200_000, videoReceived: 100, videoLost: 0, framesDecoded: 15), for: pc)
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(1))
        await eventually("configure sent, its reply held") { rig.signaling.calls.contains("configure sub-1 mid=1 substream=2 temporal=2") }
        let before = samples()
        subscriber.subscribeToVideo = false
        rig.engine.setReport(SubscriberAdaptationTests.report(time: 1_800_000_002_000, pairBytes: 400_000, videoReceived: 200, videoLost: 0, framesDecoded: 30), for: pc)
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: .seconds(1))
        await eventually("the next sample taken while the reply is held") { samples() > before }
        await eventually("the next configure sent while the first reply is held") { rig.signaling.calls.contains("configure sub-1 mid=1 send=false") }
        let configures = rig.signaling.calls.filter { $0.hasPrefix("configure ") }
        #expect(configures == ["configure sub-1 mid=1 substream=2 temporal=2", "configure sub-1 mid=1 send=false"])
        rig.signaling.releaseConfigureReplies()
        await rig.session.disconnect()
    }

    /// `subscribeToAudio` (seed 004's `OTSubscriberKit.subscribeToAudio`): `false` pauses the
    /// offer's audio mid (0) at the router at the next interval, `true` resumes it; the video's
    /// configuration (mid 1) is left alone, and an unchanged value sends nothing.
    @Test func subscribeToAudioPausesAndResumesTheAudioMidOnly() async throws {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(statsInterval: .seconds(1), subscriberHealthInterval: nil))
        rig.signaling.setSubscriptionOffer(Self.offer)
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        try await rig.session.subscribe(subscriber)
        let pc = PeerConnectionID("pc-1")
        func interval(_ second: Double) async {
            rig.engine.setReport(SubscriberAdaptationTests.report(time: 1_800_000_000_000 + second * 1000, pairBytes: 200_000 * second,
                                                                  videoReceived: 100 * second, videoLost: 0, framesDecoded: 15 * second), for: pc)
            let before = rig.engine.calls.filter { $0 == "stats pc-1" }.count
            await rig.clock.waitForSleepers(1)
            rig.clock.advance(by: .seconds(1))
            await eventually("sample \(second)") { rig.engine.calls.filter { $0 == "stats pc-1" }.count > before }
        }
        func audioConfigures() -> [String] { rig.signaling.calls.filter { $0.hasPrefix("configure sub-1 mid=0") } }
        #expect(subscriber.subscribeToAudio)
        await interval(1)
        #expect(audioConfigures().isEmpty, "the router forwards audio already")
        subscriber.subscribeToAudio = false
        await interval(2)
        await eventually("audio paused") { audioConfigures() == ["configure sub-1 mid=0 send=false"] }
        await interval(3)
        subscriber.subscribeToAudio = true
        await interval(4)
        await eventually("audio resumed") { audioConfigures() == ["configure sub-1 mid=0 send=false", "configure sub-1 mid=0 send=true"] }
        #expect(!rig.signaling.calls.contains { $0.hasPrefix("configure sub-1 mid=1 send=") }, "the video is not paused")
        await rig.session.disconnect()
    }
}
