import Testing
@testable import Observability

/// A step-down the router made on its own, without any `SubscriberReceiveLimit` from a policy
/// (docs/network-condition.md, issue 23 item 5), on synthetic reports (``SubscriberTimelineHarness``)
/// worked out by hand from the engine's rules:
/// - interval `k` is judged at report `k + 2` (lookahead 2: the publisher's uplink is
///   `excellent`), on the loss over intervals `k − 1` and `k`; the first level is adopted at
///   report 4 (two judged intervals with media);
/// - loss < 1 % excellent, < 15 % warning, else critical; a worse level after 2 samples
///   (critical at once, or after 5 inside a managed step-down), a better one after 5;
/// - fewer than 70 % of the recent peak received with ≥ 5 % loss is queueing: `bandwidth`.
///
/// The cap: intervals 6 and 7 lose 35 of 100 (65 received: queueing); the router forwards
/// 270p instead of 540p from report 9 (frames of the lower layer), no loss after interval 7;
/// 540p again from report 40.
@Suite struct RouterStepDownTests {
    typealias H = SubscriberTimelineHarness

    static func cap(_ more: [(ClosedRange<Int>, (inout H.Second) -> Void)] = []) -> [H.Second] {
        H.timeline(50, [(6...7, { $0.lost = 35 }), (9...39, { $0.height = 270 })] + more)
    }

    /// - report 8 (intervals 5–6: 35/200 = 17.5 %, queueing): critical / bandwidth;
    /// - report 9: the measured downlink is critical, 270p arrives below the 540p of its healthy
    ///   seconds while the publisher offers 540p: `.downlink` inferred; interval 7 (35 %,
    ///   queueing) is critical / bandwidth again;
    /// - report 10: interval 8 is critical / packetLoss (no queueing), which inside the step-down
    ///   needs 5 in a row; reports 11…15 (no loss, floored to warning / bandwidth): adopted at 15;
    /// - report 40: 540p again, the limit ends; reports 40…44 excellent, adopted at 44.
    @Test func aRouterStepDownKeepsTheSourceLocalUntilTheLayerIsBack() {
        let outcomes = H.run(Self.cap())
        #expect(H.events(outcomes) == [4: "excellent/none", 8: "critical/bandwidth", 15: "warning/bandwidth", 44: "excellent/none"])
        for report in 15...43 {
            #expect((outcomes[report].condition, outcomes[report].reason, outcomes[report].source) == (.warning, .bandwidth, .local), "report \(report)")
        }
        #expect(outcomes[44].source == .none)
        // Under the steady cap (from 5 s after its onset at interval 6 to its end at report 40):
        // one condition event.
        #expect(H.events(outcomes).keys.filter { (11..<40).contains($0) }.count == 1)
    }

    /// What the counters alone give, and so what the engine said before it inferred anything:
    /// critical / packetLoss at report 10 (adopted at once), excellent after 5 clean at 15,
    /// source `none` while the router still holds the subscriber on 270p.
    static let countersAlone = [4: "excellent/none", 8: "critical/bandwidth", 10: "critical/packetLoss", 15: "excellent/none"]

    /// - "no layers offered": the publisher's messages list no layers (a lower layer may be the
    ///   app's own preference);
    /// - "limits from a policy": a policy speaks for the stream (it set `.none`): its limits, not a guess.
    @Test(arguments: ["no layers offered", "limits from a policy"])
    func nothingIsInferredWithout(name: String) {
        let policy = name == "limits from a policy"
        let seconds = policy ? Self.cap() : Self.cap([(0...49, { $0.offered = [] })])
        let outcomes = H.run(seconds, limitsFromPolicy: policy)
        #expect(H.events(outcomes) == Self.countersAlone, "\(name)")
        #expect(outcomes[20].source == .none, "\(name)")
    }

    /// A lower layer while the downlink is healthy (the app asked for less): no limit inferred.
    @Test func aLowerLayerOnAHealthyDownlinkIsNoStepDown() {
        let outcomes = H.run(H.timeline(40, [(20...39, { $0.height = 270 })]))
        #expect(H.events(outcomes) == [4: "excellent/none"])
        #expect(outcomes[30].source == .none)
    }

    /// The publisher stops offering more than 270p from report 25: its own side limits now, the
    /// inferred limit ends; interval 23 (clean, not floored) is the first of the 5 better samples
    /// that adopt excellent at report 29.
    @Test func theLimitEndsWhenThePublisherOffersNoMore() {
        let outcomes = H.run(Self.cap([(25...49, { $0.offered = [135, 270] })]))
        #expect(H.events(outcomes) == [4: "excellent/none", 8: "critical/bandwidth", 15: "warning/bandwidth", 29: "excellent/none"])
    }
}
