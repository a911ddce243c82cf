@testable import Calls
import Observability
import Foundation
import RTCStats
import Testing

/// The path classifier on reports built by hand from the W3C field names (docs/spec/sessions.md §5).
@Suite struct CandidatePairPathTrackerTests {
    /// One candidate pair and its local candidate.
    struct Pair {
        var id: String
        var state = "succeeded"
        var responses: Double? = 10
        var lastReceived: Double?
        var lastSent: Double?
        var candidateType = "host"
        var relayProtocol: String?
        var transport = "udp"
    }

    static func report(at time: Double, _ pairs: [Pair]) -> StatsReport {
        var entries: [StatsEntry] = []
        for pair in pairs {
            var local: [StatsField] = [StatsField("candidateType", .string(pair.candidateType)), StatsField("protocol", .string(pair.transport))]
            if let relay = pair.relayProtocol { local.append(StatsField("relayProtocol", .string(relay))) }
            entries.append(StatsEntry(id: "L-\(pair.id)", type: .localCandidate, timestamp: time, fields: local))
            var fields = [StatsField("state", .string(pair.state)), StatsField("localCandidateId", .string("L-\(pair.id)")),
                          StatsField("remoteCandidateId", .string("R-\(pair.id)"))]
            if let value = pair.responses { fields.append(StatsField("responsesReceived", .number(value))) }
            if let value = pair.lastReceived { fields.append(StatsField("lastPacketReceivedTimestamp", .number(value))) }
            if let value = pair.lastSent { fields.append(StatsField("lastPacketSentTimestamp", .number(value))) }
            entries.append(StatsEntry(id: pair.id, type: .candidatePair, timestamp: time, fields: fields))
        }
        return StatsReport(entries: entries)
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var pair: Pair
        var expected: ConnectionPaths
        var testDescription: String { name }
    }

    // Report time 100_000 ms; the pair's first report has no previous counters.
    static let rows: [Row] = [
        Row(name: "host, packet 1 s ago", pair: Pair(id: "a", lastReceived: 99_000), expected: .udpDirect),
        Row(name: "srflx, sent 2.9 s ago", pair: Pair(id: "a", lastSent: 97_100, candidateType: "srflx"), expected: .udpDirect),
        Row(name: "prflx, received exactly 3 s ago", pair: Pair(id: "a", lastReceived: 97_000, candidateType: "prflx"), expected: .udpDirect),
        Row(name: "host, last packet 3.1 s ago", pair: Pair(id: "a", lastReceived: 96_900, lastSent: 96_900), expected: []),
        Row(name: "host, no packet times", pair: Pair(id: "a"), expected: []),
        Row(name: "relay udp", pair: Pair(id: "a", lastReceived: 99_500, candidateType: "relay", relayProtocol: "udp"), expected: .udpRelay),
        Row(name: "relay tcp", pair: Pair(id: "a", lastReceived: 99_500, candidateType: "relay", relayProtocol: "tcp"), expected: .tcpRelay),
        Row(name: "relay tls", pair: Pair(id: "a", lastReceived: 99_500, candidateType: "relay", relayProtocol: "tls"), expected: .tcpRelay),
        // Seed 003 has no direct TCP path: a direct ICE-TCP pair is not udpDirect (issue 23 item 13).
        Row(name: "host over ICE-TCP", pair: Pair(id: "a", lastReceived: 99_500, transport: "tcp"), expected: .tcpRelay),
        Row(name: "in-progress before any response, fresh packet", pair: Pair(id: "a", state: "in-progress", responses: 0, lastReceived: 99_900), expected: []),
        Row(name: "in-progress without a response count, fresh packet", pair: Pair(id: "a", state: "in-progress", responses: nil, lastReceived: 99_900), expected: []),
        // libwebrtc's consent ping on a working pair: `in-progress` until its answer.
        Row(name: "in-progress after responses, fresh packet", pair: Pair(id: "a", state: "in-progress", lastReceived: 99_900), expected: .udpDirect),
        Row(name: "in-progress after responses, received 1.1 s ago", pair: Pair(id: "a", state: "in-progress", lastReceived: 98_900), expected: []),
        Row(name: "in-progress after responses, only sent recently", pair: Pair(id: "a", state: "in-progress", lastSent: 99_900), expected: []),
        Row(name: "failed, fresh packet", pair: Pair(id: "a", state: "failed", lastReceived: 99_900), expected: []),
    ]

    @Test(arguments: rows) func classifiesOnePair(_ row: Row) {
        var tracker = CandidatePairPathTracker()
        let change = tracker.receive(Self.report(at: 100_000, [row.pair]))
        #expect(tracker.paths == row.expected)
        // The first report changes the paths from empty only when something works.
        #expect(change == (row.expected.isEmpty ? nil : row.expected))
    }

    @Test func risingResponsesKeepAPairAliveWithoutPacketTimes() {
        var tracker = CandidatePairPathTracker()
        #expect(tracker.receive(Self.report(at: 1_000, [Pair(id: "a", responses: 4)])) == nil)
        #expect(tracker.receive(Self.report(at: 2_000, [Pair(id: "a", responses: 5)])) == .udpDirect)
        // Frozen responses and no packet times: stale, although still `succeeded`.
        #expect(tracker.receive(Self.report(at: 3_000, [Pair(id: "a", responses: 5)])) == [])
        #expect(tracker.paths.isOnline == false)
    }

    @Test func staleSucceededPairDoesNotCountNextToTheSelectedOne() {
        // Chromium: the unused relay pair stays `succeeded` with frozen responses and old packets.
        var tracker = CandidatePairPathTracker()
        let selected = Pair(id: "sel", responses: 20, lastReceived: 9_900)
        let unused = Pair(id: "old", responses: 3, lastReceived: 2_000, lastSent: 2_000, candidateType: "relay", relayProtocol: "udp")
        #expect(tracker.receive(Self.report(at: 10_000, [selected, unused])) == .udpDirect)
        var moved = selected
        moved.responses = 21
        moved.lastReceived = 10_900
        #expect(tracker.receive(Self.report(at: 11_000, [moved, unused])) == nil, "no change, no report")
    }

    @Test func severalPathsAtOnceAndBackToNone() {
        var tracker = CandidatePairPathTracker()
        let direct = Pair(id: "d", lastReceived: 4_900)
        let tcp = Pair(id: "t", lastSent: 4_800, candidateType: "relay", relayProtocol: "TCP")
        let udp = Pair(id: "u", lastReceived: 4_700, candidateType: "relay", relayProtocol: "udp")
        #expect(tracker.receive(Self.report(at: 5_000, [direct, tcp, udp])) == [.udpDirect, .tcpRelay, .udpRelay])
        #expect(tracker.paths.description == "udpDirect+udpRelay+tcpRelay")
        #expect(tracker.receive(Self.report(at: 9_000, [direct, tcp, udp])) == [])
        #expect(tracker.paths.description == "none")
    }

    @Test func aReportWithoutPairsIsNoPath() {
        var tracker = CandidatePairPathTracker()
        #expect(tracker.receive(StatsReport(entries: [])) == nil)
        #expect(tracker.reportsWithoutTime == 1)
        #expect(tracker.paths == [])
    }

    @Test func aMissingLocalCandidateCountsAsDirect() {
        var tracker = CandidatePairPathTracker()
        let pair = StatsEntry(id: "p", type: .candidatePair, timestamp: 1_000, fields: [
            StatsField("state", .string("succeeded")), StatsField("localCandidateId", .string("missing")),
            StatsField("lastPacketReceivedTimestamp", .number(900)),
        ])
        #expect(tracker.receive(StatsReport(entries: [pair])) == .udpDirect)
    }
}

/// The classifier on real Chromium reports, all captured unedited (Fixtures/README.md says from
/// which run). Expected values read off the reports by hand: on loopback only the selected host
/// pair is alive (the other `succeeded` pair is stale); through coturn only the selected relay
/// pair is `succeeded`, its last packet received 4–15 ms before the report.
@Suite struct CandidatePairPathTrackerFixtureTests {
    static func fixture(_ name: String) throws -> StatsReport {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
        return try StatsReport(json: Array(Data(contentsOf: url)))
    }

    @Test(arguments: [("chromium-loopback", ConnectionPaths.udpDirect), ("chromium-relay-udp", .udpRelay), ("chromium-relay-tcp", .tcpRelay)])
    func consecutiveReports(_ prefix: String, _ expected: ConnectionPaths) throws {
        var tracker = CandidatePairPathTracker()
        #expect(tracker.receive(try Self.fixture("\(prefix)-1")) == expected)
        #expect(tracker.receive(try Self.fixture("\(prefix)-2")) == nil, "unchanged: no report")
        #expect(tracker.paths == expected)
    }

    /// Through a TCP relay Chromium reports the local candidate's `protocol` as `udp` (the relay's
    /// leg to the peer) and `relayProtocol` as `tcp` (ours to the relay): the classifier reads
    /// `relayProtocol`. The direct pair the call had before UDP was dropped is `in-progress`
    /// with its 9 responses: no path.
    @Test func aTCPRelayIsToldByRelayProtocolNotProtocol() throws {
        let report = try Self.fixture("chromium-relay-tcp-1")
        let selected = try #require(report["CPPuZ4q8cC_/Hsx3mN0"])
        let local = try #require(selected.string("localCandidateId").flatMap { report[$0] })
        #expect(local.string("protocol") == "udp")
        #expect(local.string("relayProtocol") == "tcp")
        #expect(report["CPcZvS0lE3_cf1ahn6h"]?.string("state") == "in-progress")
        let directOnly = StatsReport(entries: report.entries.filter { $0.type != .candidatePair || $0.id == "CPcZvS0lE3_cf1ahn6h" })
        var tracker = CandidatePairPathTracker()
        #expect(tracker.receive(directOnly) == nil, "no path, as before the first report")
        #expect(tracker.receive(report) == .tcpRelay)
    }

    @Test func theStaleSucceededPairAloneIsNoPath() throws {
        // Keep only the stale pair (succeeded, responses frozen at 1, no packet times).
        let real = try Self.fixture("chromium-loopback-2")
        let stale = StatsReport(entries: real.entries.filter { $0.type != .candidatePair || $0.id == "CPjsM5btKK_x1GfbcEU" })
        var tracker = CandidatePairPathTracker()
        _ = tracker.receive(try Self.fixture("chromium-loopback-1"))
        #expect(tracker.receive(stale) == [])
    }

    @Test func aBlackedOutSelectedPairLeavesSucceededAndIsNoPath() throws {
        var tracker = CandidatePairPathTracker()
        #expect(tracker.receive(try Self.fixture("chromium-loopback-1")) == .udpDirect)
        // 1.7 s into a real blackout: the selected pair is in-progress, every other pair too.
        #expect(tracker.receive(try Self.fixture("chromium-blackout-1")) == [])
    }
}
