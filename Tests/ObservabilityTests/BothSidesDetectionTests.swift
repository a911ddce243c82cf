import Testing
@testable import Observability

/// The second side of a both-sides impairment (issue 23 item 6): the publisher's uplink is
/// already degraded (its messages say `critical` / `bandwidth`, no upstream loss) and the
/// subscriber's downlink starts losing. On synthetic reports (``SubscriberTimelineHarness``),
/// worked out by hand:
/// - the first message (sent at 0.5 s) arrives before report 1: the remote uplink is known from
///   report 1; once it has been degraded for three reports in a row (more than the lookahead of
///   two), an interval is judged at its own report (loss the upstream figures do not explain
///   leaves the source `bothOrUnclear` at worst), on the loss over it and the interval before;
///   so at report 3 intervals 1–3 are judged and the first level is adopted;
/// - loss < 1 % excellent, < 15 % warning; a worse level after 2 samples.
@Suite struct BothSidesDetectionTests {
    typealias H = SubscriberTimelineHarness

    static func remoteDegraded(_ second: inout H.Second) { second.remote = (.critical, .bandwidth) }

    /// The downlink loses 12 of 100 from interval 10 (the onset between 9 and 10 s):
    /// - report 10 (intervals 9–10: 12/200 = 6 %): warning, the first worse sample;
    /// - report 11 (10–11: 24/200 = 12 %): warning adopted: source `bothOrUnclear`, 2 s after
    ///   the onset at the latest (the engine said so at report 13 before, judging 2 reports late);
    /// - nothing more while both impairments hold: no event in the 30 s after.
    @Test func theDownlinkSideIsSeenWithinThreeSeconds() {
        let outcomes = H.run(H.timeline(45, [(0...44, Self.remoteDegraded), (10...44, { $0.lost = 12 })]))
        #expect(H.events(outcomes) == [3: "excellent/bandwidth", 11: "warning/packetLoss"])
        for report in 3...10 { #expect(outcomes[report].source == .remote, "report \(report)") }
        for report in 11...44 { #expect(outcomes[report].source == .bothOrUnclear, "report \(report)") }
    }

    /// Loss the publisher's own reports explain (12 % upstream, 12 % received) stays the
    /// remote's: (p − u) / (1 − u) = 0, every interval, without the lookahead too.
    @Test func upstreamLossTheReportsExplainStaysRemote() {
        let outcomes = H.run(H.timeline(30, [(0...29, { $0.remote = (.critical, .packetLoss); $0.upstreamLoss = 0.12 }),
                                              (10...29, { $0.lost = 12 })]))
        #expect(H.events(outcomes) == [3: "excellent/packetLoss"])
        for report in 3...29 { #expect(outcomes[report].source == .remote, "report \(report)") }
    }

    /// Not at the remote's onset: the publisher's cap begins with a burst lost upstream (40 of
    /// 100 in interval 10 at the subscriber), the remote uplink is `critical` from the message
    /// before report 11, and the burst's upstream loss (80 %) comes in the message before report
    /// 12, as on the rig. Intervals 10 and 11 are judged at reports 12 and 13 (the lookahead
    /// still holds: the remote has been degraded for fewer than three reports when interval 10
    /// is due), each on 40/200 = 20 % less the mean upstream loss since its window began
    /// (0, 0, 0.8 → 0.27 at report 12; 0, 0, 0.8, 0 → 0.2 at report 13): 0. The source stays
    /// `remote`; judged at once from report 11, interval 10 would have been 20 % with no upstream
    /// report yet: `critical`, `bothOrUnclear`.
    @Test func anUpstreamBurstAtTheRemotesOnsetIsNotCalledBothOrUnclear() {
        let outcomes = H.run(H.timeline(25, [(11...24, Self.remoteDegraded), (10...10, { $0.lost = 40 }), (12...12, { $0.upstreamLoss = 0.8 })]))
        // The downlink stays excellent: no event after its first level (a remote condition read
        // from the message's own `condition` fires none either, as `RemotePublisherView` does today).
        #expect(H.events(outcomes) == [4: "excellent/none"])
        for report in 11...24 { #expect(outcomes[report].source == .remote, "report \(report)") }
    }
}
