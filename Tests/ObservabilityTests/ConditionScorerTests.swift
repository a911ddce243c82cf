import CallScopeTestSupport
@testable import Observability
import Testing

@Suite struct ConditionScorerTests {
    // MARK: Thresholds (docs/spec/observability.md §5)

    @Test(arguments: [
        (0.0, NetworkCondition.excellent), (0.0099, .excellent), (0.01, .good), (0.0249, .good), (0.025, .fair),
        (0.0499, .fair), (0.05, .warning), (0.0999, .warning), (0.10, .critical), (0.5, .critical),
    ])
    func lossLevelsWithTheSpecsStartingThresholds(loss: Double, expected: NetworkCondition) {
        let scorer = ConditionScorer(thresholds: ConditionThresholds(loss: .init(excellent: 0.01, good: 0.025, fair: 0.05, warning: 0.10)))
        let (level, reason) = scorer.classify(ConditionSample(lossFraction: loss, headroom: nil))
        #expect(level == expected)
        #expect(reason == (expected >= .good ? .none : .packetLoss))
    }

    @Test(arguments: [
        (1.5, false, NetworkCondition.excellent), (1.0, false, .excellent), (1.0, true, .good), (0.99, false, .good),
        (0.8, false, .good), (0.79, false, .fair), (0.5, false, .fair), (0.49, false, .warning), (0.25, false, .warning),
        (0.24, false, .critical), (0.0, false, .critical),
    ])
    func headroomLevels(headroom: Double, limited: Bool, expected: NetworkCondition) {
        let scorer = ConditionScorer()
        let (level, reason) = scorer.classify(ConditionSample(lossFraction: nil, headroom: headroom, bandwidthLimited: limited, estimate: 1_000_000))
        #expect(level == expected)
        #expect(reason == (expected >= .good ? .none : .bandwidth))
    }

    /// Tuned on the rig's 10 % random-loss recording: per-interval loss ranged 7–13 %, so a 10 %
    /// bound made the condition flip between warning and critical under a steady impairment.
    @Test(arguments: [(0.10, NetworkCondition.warning), (0.149, .warning), (0.15, .critical)])
    func theDefaultCriticalLossBoundIsFifteenPercent(loss: Double, expected: NetworkCondition) {
        #expect(ConditionScorer().classify(ConditionSample(lossFraction: loss, headroom: nil)).0 == expected)
    }

    @Test func anEstimateBelow100kbpsWithVideoIsCritical() {
        let scorer = ConditionScorer()
        #expect(scorer.classify(ConditionSample(lossFraction: 0, headroom: 2, estimate: 99_000, videoOn: true)).0 == .critical)
        #expect(scorer.classify(ConditionSample(lossFraction: 0, headroom: 2, estimate: 99_000, videoOn: false)).0 == .excellent)
    }

    @Test func theWorseInputSetsLevelAndReason() {
        let scorer = ConditionScorer()
        #expect(scorer.classify(ConditionSample(lossFraction: 0.07, headroom: 0.9)) == (.warning, .packetLoss))
        #expect(scorer.classify(ConditionSample(lossFraction: 0.03, headroom: 0.3)) == (.warning, .bandwidth))
        #expect(scorer.classify(ConditionSample(lossFraction: 0.07, headroom: 0.3)) == (.warning, .bandwidth), "a tie goes to bandwidth")
        #expect(scorer.classify(ConditionSample(lossFraction: 0.2, headroom: nil, queueing: true)) == (.critical, .bandwidth), "loss behind a queue is a cap")
        #expect(scorer.classify(ConditionSample(lossFraction: 0.015, headroom: 0.85)) == (.good, .none))
    }

    // MARK: Anti-flapping

    private func run(_ losses: [Double]) -> [(Int, NetworkCondition)] {
        var scorer = ConditionScorer()
        var changes: [(Int, NetworkCondition)] = []
        for (index, loss) in losses.enumerated() {
            for case .conditionChanged(let level, _) in scorer.receive(ConditionSample(lossFraction: loss, headroom: nil)) {
                changes.append((index, level))
            }
        }
        return changes
    }

    @Test func unknownUntilTwoMediaSamplesThenAdoptedAtOnce() {
        let changes = run([0, 0, 0])
        #expect(changes.map(\.0) == [1])
        #expect(changes.map(\.1) == [.excellent])
    }

    @Test func aWorseLevelNeedsTwoConsecutiveSamples() {
        // excellent, then one warning sample (ignored), then two (adopted at the second).
        let changes = run([0, 0, 0.07, 0, 0.07, 0.07, 0.07])
        #expect(changes.map(\.0) == [1, 5])
        #expect(changes.map(\.1) == [.excellent, .warning])
    }

    @Test func criticalIsAdoptedAtOnce() {
        let changes = run([0, 0, 0.2])
        #expect(changes.map(\.0) == [1, 2])
        #expect(changes.last?.1 == .critical)
    }

    @Test func aBetterLevelNeedsFiveConsecutiveSamples() {
        let changes = run([0, 0, 0.2, 0, 0, 0, 0, 0.2, 0, 0, 0, 0, 0])
        // critical at 2 and again at 7 is no change; recovery needs 5 clean samples: 8…12.
        #expect(changes.map(\.0) == [1, 2, 12])
        #expect(changes.map(\.1) == [.excellent, .critical, .excellent])
    }

    @Test func noEventWithoutAChange() {
        #expect(run(Array(repeating: 0.07, count: 30)).count == 1)
    }

    @Test func aReasonChangeAtTheSameLevelIsAnEvent() {
        var scorer = ConditionScorer()
        var actions: [ConditionScorer.Action] = []
        for _ in 0..<3 { actions += scorer.receive(ConditionSample(lossFraction: 0.07, headroom: 2)) }
        for _ in 0..<3 { actions += scorer.receive(ConditionSample(lossFraction: 0, headroom: 0.3)) }
        #expect(actions == [.conditionChanged(.warning, .packetLoss), .conditionChanged(.warning, .bandwidth)])
    }

    // MARK: Properties

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func randomInputsNeverStormNorCrash(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        var scorer = ConditionScorer()
        var events = 0
        let count = 3000
        for _ in 0..<count {
            let pick = Int.random(in: 0..<10, using: &generator)
            let loss: Double? = pick == 0 ? .nan : pick == 1 ? nil : pick == 2 ? -.infinity : Double.random(in: 0...0.3, using: &generator)
            let headroom: Double? = pick == 3 ? .infinity : Double.random(in: 0...2, using: &generator)
            let sample = ConditionSample(lossFraction: loss, headroom: headroom, bandwidthLimited: Bool.random(using: &generator),
                                         estimate: pick == 4 ? .nan : Double.random(in: 0...3_000_000, using: &generator))
            events += scorer.receive(sample).count
            // Once a condition was reported it never goes back to unknown.
            if events > 0 { #expect(scorer.condition != .unknown) }
        }
        // Every change needs 2 samples, except critical (at once) which then needs 5 to leave.
        #expect(events <= count / 2 + 1)
    }
}
