import CallScopeTesting
@testable import Calls
import Connectivity
import Foundation
import Observability
import RTCStats
import Testing

/// The far leg (issue 12): a participant's own paths to the router arrive in its sender-stats
/// messages (wire version 3) and show on the participant as `remotePaths`; a message with
/// hostile paths is dropped and counted and changes nothing.
@Suite(.timeLimit(.minutes(1))) struct CallSessionFarLegTests {
    static func message(seq: Int, paths: String) -> String {
        #"{"type":"callscope-sender-stats","v":3,"seq":\#(seq),"t":\#(1_800_000_000_000 + seq),"connectionMaxAllocatedBitrate":2000000,"paths":\#(paths)}"#
    }

    @Test func aParticipantsOwnPathsReachItsRemotePathsAndHostileOnesAreDropped() async throws {
        let rig = CallSessionTests.Rig(configuration: CallSessionConfiguration(statsInterval: .seconds(3600), subscriberHealthInterval: nil))
        try await rig.session.connect()
        let subscriber = CallSubscriber(stream: try await rig.stream("7"))
        try await rig.session.subscribe(subscriber)
        #expect(await rig.session.participants.first?.remotePaths == nil, "nothing said yet")
        let pc = PeerConnectionID("pc-1")
        rig.engine.emit(.dataChannelMessage(pc, label: "7", text: Self.message(seq: 1, paths: #"["udpRelay","tcpRelay"]"#)))
        await eventually("remote paths") { await rig.session.participants.first?.remotePaths == [.udpRelay, .tcpRelay] }
        let changed = rig.events.all.compactMap { event -> ConnectionPaths? in
            if case .participantPathsChanged(let participant) = event { participant.remotePaths } else { nil }
        }
        #expect(changed == [[.udpRelay, .tcpRelay]])
        #expect(await rig.session.participants.first?.paths == [], "our own leg is not theirs")
        // Hostile: an unknown name, a repeated one, a number, too many, not an array.
        let hostile = [#"["satellite"]"#, #"["udpDirect","udpDirect"]"#, "[1]", #"["udpDirect","udpRelay","tcpRelay","udpDirect"]"#, #""udpDirect""#]
        for (index, paths) in hostile.enumerated() {
            rig.engine.emit(.dataChannelMessage(pc, label: "7", text: Self.message(seq: 2 + index, paths: paths)))
        }
        await eventually("all dropped") { subscriber.statsMonitor.senderStatsCounts.dropped == hostile.count }
        #expect(subscriber.statsMonitor.senderStatsCounts.accepted == 1)
        #expect(await rig.session.participants.first?.remotePaths == [.udpRelay, .tcpRelay], "unchanged by hostile messages")
        await rig.session.disconnect()
    }
}
