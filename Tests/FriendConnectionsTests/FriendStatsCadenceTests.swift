import FriendConnections
import Testing

/// When a friend connection's stats are read: every 500 ms, every 100 ms while the selected
/// pair has been silent for 1 s (two keepalive intervals) up to 4 s. As a table.
@Suite struct FriendStatsCadenceTests {
    typealias Pair = CandidatePairObservation

    static func pair(selected: Bool, lastAnswer milliseconds: Int64?) -> Pair {
        Pair(localType: .relay, localRelayProtocol: .udp, remoteType: .host, succeeded: true,
             lastResponseAt: milliseconds.map { .milliseconds($0) }, selected: selected)
    }

    /// (name, the selected pair's silence in ms at the read (nil: never answered; no entry: no
    /// pair selected), the next delay in ms). Reads at t = 10 s.
    static let rows: [(String, [Pair], Int64)] = [
        ("no pairs", [], 500),
        ("no pair selected, all silent", [pair(selected: false, lastAnswer: 7_000)], 500),
        ("selected never answered", [pair(selected: true, lastAnswer: nil)], 500),
        ("selected answered 0.4 s ago", [pair(selected: true, lastAnswer: 9_600)], 500),
        ("selected silent 0.99 s", [pair(selected: true, lastAnswer: 9_010)], 500),
        ("selected silent 1 s: fast", [pair(selected: true, lastAnswer: 9_000)], 100),
        ("selected silent 2.5 s: fast", [pair(selected: true, lastAnswer: 7_500)], 100),
        ("selected silent 3.99 s: fast", [pair(selected: true, lastAnswer: 6_010)], 100),
        ("selected silent 4 s: normal again", [pair(selected: true, lastAnswer: 6_000)], 500),
        ("another pair answered, the selected silent 2 s: fast", [pair(selected: true, lastAnswer: 8_000), pair(selected: false, lastAnswer: 9_900)], 100),
    ]

    @Test(arguments: rows.indices)
    func nextRead(_ index: Int) {
        let (name, pairs, delay) = Self.rows[index]
        let cadence = FriendStatsCadence(interval: .milliseconds(500))
        #expect(cadence.delay(after: pairs, at: .seconds(10)) == .milliseconds(delay), "\(name)")
    }

    /// A fast interval longer than the normal one is the normal one.
    @Test func fastIsNeverSlower() {
        #expect(FriendStatsCadence(interval: .milliseconds(50), fastInterval: .milliseconds(100)).fastInterval == .milliseconds(50))
    }
}
