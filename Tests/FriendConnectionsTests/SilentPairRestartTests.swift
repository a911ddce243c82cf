import FriendConnections
import Testing

/// When a friend connection restarts ICE: once its selected pair has been silent for three
/// keepalive intervals (1.5 s at 500 ms) with a check unanswered, once per silence. As a table,
/// then as sequences.
@Suite struct SilentPairRestartTests {
    typealias Pair = CandidatePairObservation

    static func pair(selected: Bool, lastAnswer milliseconds: Int64?, unanswered: Int = 1) -> Pair {
        Pair(localType: .host, remoteType: .host, succeeded: true, lastResponseAt: milliseconds.map { .milliseconds($0) }, selected: selected,
             unansweredChecks: unanswered)
    }

    /// (name, pairs read at t = 10 s, restart?).
    static let rows: [(String, [Pair], Bool)] = [
        ("no pairs", [], false),
        ("no pair selected", [pair(selected: false, lastAnswer: 1_000)], false),
        ("selected never answered", [pair(selected: true, lastAnswer: nil)], false),
        ("selected silent 1.49 s", [pair(selected: true, lastAnswer: 8_510)], false),
        ("selected silent 1.5 s", [pair(selected: true, lastAnswer: 8_500)], true),
        ("selected silent 9 s", [pair(selected: true, lastAnswer: 1_000)], true),
        ("selected silent 2 s, its checks answered (a friend's slow keepalives)", [pair(selected: true, lastAnswer: 8_000, unanswered: 0)], false),
        ("another pair answers, the selected silent 2 s", [pair(selected: true, lastAnswer: 8_000), pair(selected: false, lastAnswer: 9_900)], true),
        ("another pair silent, the selected answered", [pair(selected: true, lastAnswer: 9_900), pair(selected: false, lastAnswer: 1_000)], false),
    ]

    @Test(arguments: rows.indices)
    func firstRead(_ index: Int) {
        let (name, pairs, restart) = Self.rows[index]
        var restarts = SilentPairRestart(interval: .milliseconds(500))
        let restarted = restarts.restartNow(after: pairs, at: .seconds(10))
        #expect(restarted == restart, "\(name)")
    }

    /// A blackout: the same silent pair read every 100 ms restarts once, though its last answer
    /// read from the report moves by a few milliseconds from read to read; an answer and a new
    /// silence restart again.
    @Test func oncePerSilence() {
        var restarts = SilentPairRestart(interval: .milliseconds(500))
        let reads = stride(from: 9_000, through: 14_000, by: 100).enumerated().map { index, at in
            restarts.restartNow(after: [Self.pair(selected: true, lastAnswer: 8_000 - Int64(index % 3))], at: .milliseconds(Int64(at)))
        }
        #expect(reads.filter { $0 }.count == 1)
        #expect(reads.firstIndex(of: true) == 5, "at 9.5 s, 1.5 s after the answer")
        let answeredAgain = [Self.pair(selected: true, lastAnswer: 14_100)]
        let soonAfterTheAnswer = restarts.restartNow(after: answeredAgain, at: .milliseconds(14_200))
        let silentAgain = restarts.restartNow(after: answeredAgain, at: .milliseconds(15_600))
        #expect(!soonAfterTheAnswer && silentAgain)
    }

    /// A silence that no read saw end (the reads were 1.5 s apart) is the same silence.
    @Test func noReadBetweenIsOneSilence() {
        var restarts = SilentPairRestart(interval: .milliseconds(500))
        let first = restarts.restartNow(after: [Self.pair(selected: true, lastAnswer: 8_000)], at: .milliseconds(9_600))
        let later = restarts.restartNow(after: [Self.pair(selected: true, lastAnswer: 9_000)], at: .milliseconds(11_000))
        #expect(first && !later)
    }
}
