import CallScopeReplay
import CallScopeTestSupport
import Foundation
import Observability
import RTCStats
import Testing

/// A recording whose lines are out of time order (merged or concatenated
/// files) replays to the same callbacks as the ordered one, instead of the engine dropping the
/// samples that arrive after a later one.
@Suite struct ReplayOrderTests {
    @Test func aShuffledRecordingReplaysLikeTheOrderedOne() throws {
        let url = Synthetic.repositoryRoot().appendingPathComponent("Recordings/baseline-simulcast.ndjson.gz")
        let plain = try Gzip.decompress([UInt8](try Data(contentsOf: url)))
        var lines = plain.split(separator: 0x0A).map(Array.init)
        let header = lines.removeFirst()
        var generator = SeededGenerator(seed: 9)
        lines.shuffle(using: &generator)
        let shuffled = Array(([header] + lines).joined(separator: [0x0A]))

        func callbacks(_ bytes: [UInt8]) throws -> [String] {
            try ReplayDriver.replay(StatsTimeline.read(bytes))
                .filter { $0.ndjsonLine.contains("videoNetworkStatsUpdated") }.map(\.ndjsonLine)
        }
        let ordered = try callbacks(plain)
        #expect(ordered.count >= 70, "one video callback per publisher and subscriber sample")
        #expect(try callbacks(shuffled) == ordered)
    }
}
