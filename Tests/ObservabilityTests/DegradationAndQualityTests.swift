@testable import Observability
import Testing

@Suite struct DegradationAndQualityTests {
    @Test(arguments: [
        (NetworkCondition.critical, NetworkCondition.excellent, false, NetworkDegradationSource.local),
        (.warning, .good, false, .local),
        (.good, .warning, false, .remote),
        (.excellent, .critical, true, .remote),
        (.warning, .critical, false, .bothOrUnclear),
        (.fair, .fair, false, .none),
        (.excellent, .unknown, false, .none),
        (.excellent, .unknown, true, .unknown),
        (.unknown, .unknown, true, .unknown),
        (.critical, .unknown, true, .local),
    ])
    func degradationSourceFollowsTheSpecTable(local: NetworkCondition, remote: NetworkCondition, poor: Bool, expected: NetworkDegradationSource) {
        #expect(NetworkDegradationSource.classify(local: local, remote: remote, videoPoor: poor) == expected)
    }

    /// Hand-computed: L = RTT + 2·jitter + 10; R = 93.2 − L/40 (L < 160) or 93.2 − (L − 120)/10,
    /// minus 2.5 per % loss; MOS = 1 + 0.035R + 7e-6·R(R−60)(100−R).
    @Test(arguments: [
        (100.0, 10.0, 1.0, 87.45, 4.27163, ConnectionQuality.excellent),
        (300.0, 20.0, 2.0, 65.2, 3.36459, .fair),
        (600.0, 50.0, 5.0, 21.7, 1.30396, .bad),
    ])
    func eModel(rtt: Double, jitter: Double, loss: Double, r: Double, mos: Double, level: ConnectionQuality) {
        let factor = ConnectionQualityScorer.rFactor(roundTripMilliseconds: rtt, jitterMilliseconds: jitter, lossPercent: loss)
        #expect(abs(factor - r) < 1e-9)
        let score = ConnectionQualityScorer.meanOpinionScore(rFactor: factor)
        #expect(abs(score - mos) < 1e-4)
        #expect(ConnectionQualityScorer.level(mos: score) == level)
    }

    @Test func connectionQualityReportsOnlyLevelChangesWithAntiFlapping() {
        var scorer = ConnectionQualityScorer()
        var changes: [ConnectionQuality?] = []
        for (rtt, loss) in [(20.0, 0.0), (20, 0), (600, 5), (20, 0), (600, 5), (600, 5), (20, 0), (20, 0), (20, 0), (20, 0), (20, 0)] {
            changes.append(scorer.receive(roundTripMilliseconds: rtt, jitterMilliseconds: 5, lossPercent: loss))
        }
        #expect(changes == [.excellent, nil, nil, nil, nil, .bad, nil, nil, nil, nil, .excellent])
    }
}
