import Foundation
import RTCStats
import WebRTC

extension StatsReport {
    /// A report from Apple's (Google's) WebRTC framework: `peerConnection.statistics { report in
    /// … StatsReport(appleStatistics: report) … }`.
    ///
    /// Each `RTCStatistics` (`id`, `type`, `timestamp_us`, `values`) goes through RTCStats'
    /// portable `init(appleStatistics:)` over `(id, type, timestampMicroseconds, values)` tuples,
    /// which the Linux tests check on real Chromium reports; this initialiser only takes the
    /// objects apart.
    public init(appleStatistics report: RTCStatisticsReport) {
        self.init(appleStatistics: report.statistics.values.map { statistics in
            (id: statistics.id, type: statistics.type, timestampMicroseconds: statistics.timestamp_us,
             values: statistics.values.mapValues { $0 as Any })
        })
    }
}
