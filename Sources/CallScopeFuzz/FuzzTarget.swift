import Jingle
import Observability
import RTCStats
import VideoFrames
import XMPP

/// One input format under fuzzing: every reader, the sender-stats decoder and the Y4M reader.
/// Each body must return normally for any bytes (a typed error or a counted drop is fine); a
/// trap, hang or sanitizer report is a bug.
enum FuzzTarget: String, CaseIterable {
    /// `StatsTimeline.read`: format detection, gzip and every reader behind it.
    case timeline
    /// `RecordingReader.read` on its own (no detection).
    case recording
    /// `RTCStatsDumpReader.read` on its own (v1 and v3 dumps).
    case rtcstats
    /// `WebRTCInternalsReader.read` on a parsed document.
    case webrtcInternals = "webrtc-internals"
    /// `StatsReport(json:)`: one getStats() result (the fast entry path and the general one).
    case report
    /// `JSONParser.parse`.
    case json
    /// `Gzip.decompressPrefix` under the default read limits.
    case gzip
    /// `SenderStatsDecoder.decode`, the public API the engine uses for untrusted messages.
    case senderStats = "sender-stats"
    /// `Y4MReader` over bytes, every frame.
    case y4m
    /// `XMPPElementReader.read` (one WebSocket message of an XMPP stream), then the roster
    /// reducer and the XEP-0215 parser on what it read.
    case xmpp
    /// Jingle: the bytes as a `<jingle/>` element (`XMPPElementReader` then `JingleRequest`),
    /// as an XEP-0353 message, and as SDP (`JingleSession(sdp:)`); whatever reads is written
    /// back (XML and SDP), as a peer would.
    case jingle

    /// Runs the target once on `bytes`.
    func run(_ bytes: [UInt8]) {
        switch self {
        case .timeline:
            if let timeline = try? StatsTimeline.read(bytes) {
                // Touch what a replay touches: every entry's fields and the summary.
                var count = timeline.quality.summaryLine.utf8.count
                for sample in timeline.samples { for entry in sample.report.entries { count &+= entry.fields.count } }
                blackHole(count)
            }
        case .recording:
            blackHole((try? RecordingReader.read(bytes))?.items.count ?? 0)
        case .rtcstats:
            blackHole((try? RTCStatsDumpReader.read(bytes))?.items.count ?? 0)
        case .webrtcInternals:
            if let document = try? JSONParser.parse(bytes) { blackHole((try? WebRTCInternalsReader.read(document))?.items.count ?? 0) }
        case .report:
            if let report = try? StatsReport(json: bytes) { blackHole(report.jsonArray().utf8.count) }
        case .json:
            if let value = try? JSONParser.parse(bytes) { blackHole(JSONWriter.string(value).utf8.count) }
        case .gzip:
            blackHole(Gzip.decompressPrefix(bytes, limits: StatsReadLimits(maximumExpandedBytes: 64 << 20, maximumLineBytes: 16 << 20)).output.count)
        case .senderStats:
            var decoder = SenderStatsDecoder()
            // Twice, later: the second exercises the stale / rate-limit checks on a kept state.
            blackHole(decoder.decode(bytes, receivedAt: 1000)?.sequence ?? 0)
            blackHole(decoder.decode(bytes, receivedAt: 2000)?.sequence ?? 0)
        case .y4m:
            guard var reader = try? Y4MReader(bytes: bytes) else { return }
            while let frame = try? reader.nextFrame() { blackHole(frame.width) }
        case .xmpp:
            guard let element = try? XMPPElementReader.read(bytes) else { return }
            var roster = RosterState()
            blackHole((try? roster.apply(element, ownJID: JID(local: "me", domain: "example.org")))?.count ?? 0)
            blackHole((try? ExternalService.parse(result: element))?.services.count ?? 0)
            blackHole(element.xmlString().utf8.count)
        case .jingle:
            if let element = try? XMPPElementReader.read(bytes) {
                if let request = try? JingleRequest(element: element) {
                    blackHole(request.element.xmlString().utf8.count)
                    blackHole((try? request.session.sdp(writtenBy: .initiator))?.utf8.count ?? 0)
                    blackHole(request.trickleCandidates.map(\.sdpCandidate.utf8.count).reduce(0, &+))
                }
                blackHole((try? JingleMessage(element: element))?.element.xmlString().utf8.count ?? 0)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            if let session = try? JingleSession(sdp: text, writtenBy: .responder) {
                blackHole(JingleRequest(action: .sessionAccept, sessionID: "s", session: session).element.xmlString().utf8.count)
                blackHole((try? session.sdp(writtenBy: .responder))?.utf8.count ?? 0)
            }
            blackHole((try? JingleTrickleCandidate(sdpCandidate: text, sdpMid: "0"))?.sdpCandidate.utf8.count ?? 0)
        }
    }
}

/// Keeps a result alive so the optimiser cannot drop the work.
@inline(never) func blackHole(_ value: Int) {
    if value == Int.min { print("unreachable") }
}
