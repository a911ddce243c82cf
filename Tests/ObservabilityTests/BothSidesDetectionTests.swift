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
}
