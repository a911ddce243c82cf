import RTCStats

/// The counters that show media arriving: the selected candidate pair's received bytes and
/// STUN responses (the transport's `selectedCandidatePairId`, else the nominated succeeded
/// pair); without a pair, the inbound RTP bytes.
package struct SelectedPairProgress: Hashable, Sendable {
    /// The selected pair's `bytesReceived` (0 when absent).
    package var bytesReceived: Double
    /// The selected pair's `responsesReceived` (0 when absent).
    package var responsesReceived: Double

    /// Reads `report`.
    package init(_ report: StatsReport) {
        let pair = report.selectedCandidatePair
            ?? report.entries(ofType: .candidatePair).first { $0.bool("nominated") == true && $0.string("state") == "succeeded" }
        if let pair {
            bytesReceived = pair.number("bytesReceived") ?? 0
            responsesReceived = pair.number("responsesReceived") ?? 0
        } else {
            bytesReceived = report.entries(ofType: .inboundRTP).compactMap { $0.number("bytesReceived") }.reduce(0, +)
            responsesReceived = 0
        }
    }
}
