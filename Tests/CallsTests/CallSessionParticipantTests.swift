import CallScopeTesting
@testable import Calls
import Foundation
import Observability
import RTCStats
import Testing

/// Connected vs path lost (docs/spec/sessions.md §5): participants from the router's join and leave, their
/// paths from the subscribers' sampled stats, never one from the other.
@Suite(.timeLimit(.minutes(1))) struct CallSessionParticipantTests {
    /// A report with one pair: `alive` puts its last packet 100 ms before the report time (the
    /// classifier's limit is 3 s), else 10 s before; `relay` makes the local candidate a relay.
    static func report(at time: Double, alive: Bool, relay: String? = nil) -> StatsReport {
        var local = [StatsField("candidateType", .string(relay == nil ? "host" : "relay"))]
        if let relay { local.append(StatsField("relayProtocol", .string(relay))) }
        return StatsReport(entries: [
            StatsEntry(id: "L1", type: .localCandidate, timestamp: time, fields: local),
            StatsEntry(id: "CP1", type: .candidatePair, timestamp: time, fields: [
                StatsField("state", .string("succeeded")), StatsField("localCandidateId", .string("L1")),
                StatsField("responsesReceived", .number(3)), StatsField("bytesReceived", .number(time)),
                StatsField("lastPacketReceivedTimestamp", .number(time - (alive ? 100 : 10_000))),
            ]),
        ])
    }

    func names(_ events: [CallSessionEvent]) -> [String] {
        RoomRosterTests.names(events).filter { $0.hasPrefix("participant") || $0.hasPrefix("connection") }
    }

    @Test func pathsFollowTheStatsAndEmptyPathsKeepTheParticipant() async throws {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(subscriberHealthInterval: nil))
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        try await rig.session.subscribe(subscriber)
        let pc = PeerConnectionID("pc-1")
        // Seconds 1–2 direct, 3 relay over TCP, 4–5 nothing works, 6 direct again.
        let plan: [(Double, Bool, String?)] = [(1, true, nil), (2, true, nil), (3, true, "tcp"), (4, false, nil), (5, false, nil), (6, true, nil)]
        for (second, alive, relay) in plan {
            rig.engine.setReport(Self.report(at: second * 1000, alive: alive, relay: relay), for: pc)
            await rig.clock.waitForSleepers(1)
            rig.clock.advance(by: .seconds(1))
            await eventually("sample \(second)") { rig.engine.calls.filter { $0 == "stats pc-1" }.count == Int(second) }
            if second == 5 {
                await eventually("paths empty") { await rig.session.participants.first?.paths == [] }
                #expect(await rig.session.participants.map(\.connectionId) == ["7"], "still in the call")
            }
        }
        await eventually("back to direct") { names(rig.events.all).last == "participantPathsChanged 7 udpDirect" }
        #expect(names(rig.events.all) == [
            "connectionCreated 7", "participantDidConnect 7",
            "participantPathsChanged 7 udpDirect", "participantPathsChanged 7 tcpRelay",
            "participantPathsChanged 7 none", "participantPathsChanged 7 udpDirect",
        ])
        // Only the router's leave ends the participant.
        rig.signaling.emit(.participantLeft(FeedID("7")))
        await eventually("left") { names(rig.events.all).last == "participantDidDisconnect 7" }
        #expect(await rig.session.participants.isEmpty)
    }

    @Test func endingTheSessionDisconnectsEveryParticipantBeforeDidDisconnect() async throws {
        let rig = CallSessionTests.Rig()
        try await rig.session.connect()
        await rig.session.disconnect()
        await eventually("didDisconnect") { rig.events.all.last == .didDisconnect }
        let all = RoomRosterTests.names(rig.events.all)
        #expect(Array(all.suffix(2)) == ["participantDidDisconnect 7", "didDisconnect"])
    }

    @Test func bookReportsQualityOnChangeOnlyAndIgnoresStrangers() {
        var book = ParticipantBook()
        let seven = CallConnection(connectionId: "7", creationTime: CallSessionTests.t0, data: nil)
        #expect(RoomRosterTests.names(book.expand([.connectionCreated(seven)])) == ["connectionCreated 7", "participantDidConnect 7"])
        final class Key {}
        let key = Key(), source = ObjectIdentifier(key)
        #expect(RoomRosterTests.names(book.sample(.udpDirect, source: source, participant: "7")) == ["participantPathsChanged 7 udpDirect"])
        #expect(RoomRosterTests.names(book.qualityChanged(.good, source: source, participant: "7")) == ["participantConnectionQualityChanged 7 good"])
        #expect(book.qualityChanged(.good, source: source, participant: "7").isEmpty)
        #expect(RoomRosterTests.names(book.qualityChanged(.poor, source: source, participant: "7")) == ["participantConnectionQualityChanged 7 poor"])
        #expect(book.qualityChanged(.poor, source: source, participant: "99").isEmpty)
        #expect(book.ignoredSamples == 1)
        // A repeated connection is not a second connect.
        #expect(RoomRosterTests.names(book.expand([.connectionCreated(seven)])) == ["connectionCreated 7"])
        withExtendedLifetime(key) {}
    }

    /// Seed 003: every participant has a level from the start, `.unknown` before statistics.
    @Test func aParticipantIsUnknownUntilScored() throws {
        var book = ParticipantBook()
        let seven = CallConnection(connectionId: "7", creationTime: CallSessionTests.t0, data: nil)
        let events = book.expand([.connectionCreated(seven)])
        guard case .participantDidConnect(let participant) = events.last else { Issue.record("\(events)"); return }
        #expect(participant.connectionQuality == .unknown)
        #expect(book.participants["7"]?.connectionQuality == .unknown)
    }

    /// Two subscriptions to one participant (camera and screen): one level, the worse of the
    /// two; when one ends, the other's.
    @Test func twoSubscriptionsToOneParticipantGiveTheWorseLevel() {
        var book = ParticipantBook()
        _ = book.expand([.connectionCreated(CallConnection(connectionId: "7", creationTime: CallSessionTests.t0, data: nil))])
        final class Key {}
        let a = Key(), b = Key()
        let ka = ObjectIdentifier(a), kb = ObjectIdentifier(b)
        _ = book.sample(.udpDirect, source: ka, participant: "7")
        _ = book.sample(.udpDirect, source: kb, participant: "7")
        #expect(RoomRosterTests.names(book.qualityChanged(.excellent, source: ka, participant: "7")) == ["participantConnectionQualityChanged 7 excellent"])
        #expect(RoomRosterTests.names(book.qualityChanged(.poor, source: kb, participant: "7")) == ["participantConnectionQualityChanged 7 poor"])
        // The camera's later score does not hide the screen's poor one (the last writer does not win).
        #expect(book.qualityChanged(.good, source: ka, participant: "7").isEmpty)
        #expect(book.participants["7"]?.connectionQuality == .poor)
        #expect(RoomRosterTests.names(book.subscriptionEnded(kb)) == ["participantConnectionQualityChanged 7 good"])
        withExtendedLifetime((a, b)) {}
    }

    /// A participant no path leads to is not `excellent`, whatever its last score: `.bad` until a
    /// path works again.
    @Test func noWorkingPathIsNotExcellent() {
        var book = ParticipantBook()
        _ = book.expand([.connectionCreated(CallConnection(connectionId: "7", creationTime: CallSessionTests.t0, data: nil))])
        final class Key {}
        let key = Key(), source = ObjectIdentifier(key)
        _ = book.sample(.udpDirect, source: source, participant: "7")
        _ = book.qualityChanged(.excellent, source: source, participant: "7")
        #expect(RoomRosterTests.names(book.sample([], source: source, participant: "7"))
                == ["participantPathsChanged 7 none", "participantConnectionQualityChanged 7 bad"])
        #expect(RoomRosterTests.names(book.sample(.udpRelay, source: source, participant: "7"))
                == ["participantPathsChanged 7 udpRelay", "participantConnectionQualityChanged 7 excellent"])
        withExtendedLifetime(key) {}
    }

    @Test func twoSubscribersToOneParticipantUnionTheirPaths() {
        var book = ParticipantBook()
        let seven = CallConnection(connectionId: "7", creationTime: CallSessionTests.t0, data: nil)
        _ = book.expand([.connectionCreated(seven)])
        final class Key {}
        let a = Key(), b = Key()
        let ka = ObjectIdentifier(a), kb = ObjectIdentifier(b)
        #expect(RoomRosterTests.names(book.sample(.udpDirect, source: ka, participant: "7"))
                == ["participantPathsChanged 7 udpDirect"])
        #expect(RoomRosterTests.names(book.sample(.udpRelay, source: kb, participant: "7"))
                == ["participantPathsChanged 7 udpDirect+udpRelay"])
        #expect(RoomRosterTests.names(book.subscriptionEnded(ka)) == ["participantPathsChanged 7 udpRelay"])
        #expect(book.subscriptionEnded(ka).isEmpty)
        withExtendedLifetime((a, b)) {}
    }
}
