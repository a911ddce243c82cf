import CallScopeCore
@testable import Observability
import Testing

/// The one anti-flapping rule every score shares, as a table: candidates in, adoptions out.
@Suite struct HysteresisTests {
    /// A level where a higher number is better and 0 is adopted at once.
    struct Score: HysteresisLevel {
        var value: Int
        func isWorse(than adopted: Score) -> Bool { value < adopted.value }
        var adoptsImmediately: Bool { value == 0 }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var candidates: [Int]
        /// The adopted value after each candidate.
        var adopted: [Int]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "the first candidate is adopted at once", candidates: [3], adopted: [3]),
        Case(name: "worse after two in a row", candidates: [5, 3, 3, 3], adopted: [5, 5, 3, 3]),
        Case(name: "one worse sample between good ones changes nothing", candidates: [5, 3, 5, 3, 5], adopted: [5, 5, 5, 5, 5]),
        Case(name: "the immediate level at once", candidates: [5, 0], adopted: [5, 0]),
        Case(name: "better after five in a row", candidates: [2, 4, 4, 4, 4, 4], adopted: [2, 2, 2, 2, 2, 4]),
        Case(name: "a run of better candidates is broken by the adopted level", candidates: [2, 4, 4, 2, 4, 4, 4, 4], adopted: [2, 2, 2, 2, 2, 2, 2, 2]),
        // Different better values count as one run; the last one is adopted.
        Case(name: "consecutive better candidates of different values count together", candidates: [1, 3, 4, 3, 4, 5], adopted: [1, 1, 1, 1, 1, 5]),
        Case(name: "a worse candidate restarts a recovery", candidates: [2, 4, 4, 4, 4, 1, 4], adopted: [2, 2, 2, 2, 2, 2, 2]),
    ]

    @Test(arguments: cases)
    func adoptions(_ table: Case) {
        var hysteresis = Hysteresis<Score>(degradeAfter: 2, recoverAfter: 5)
        var adopted: [Int] = []
        var reported: [Int] = []
        for candidate in table.candidates {
            for action in hysteresis.receive(Score(value: candidate)) {
                if case .adopt(let level) = action { reported.append(level.value) }
            }
            adopted.append(hysteresis.adopted?.value ?? -1)
        }
        #expect(adopted == table.adopted)
        // An adoption is reported exactly when the adopted value changes.
        var changes: [Int] = []
        var previous: Int?
        for value in table.adopted where value != previous {
            changes.append(value)
            previous = value
        }
        #expect(reported == changes)
    }

    @Test func resettingForgetsTheRun() {
        var hysteresis = Hysteresis<Score>(degradeAfter: 2, recoverAfter: 5)
        _ = hysteresis.receive(Score(value: 5))
        _ = hysteresis.receive(Score(value: 3))
        hysteresis.resetPending()
        #expect(hysteresis.receive(Score(value: 3)).isEmpty, "the run started again after the reset")
        #expect(hysteresis.receive(Score(value: 3)) == [.adopt(Score(value: 3))])
    }

    @Test func aStartingLevelMakesTheFirstChangeWaitToo() {
        var hysteresis = Hysteresis<Score>(degradeAfter: 2, recoverAfter: 3, adopted: Score(value: 5))
        #expect(hysteresis.receive(Score(value: 3)).isEmpty, "a worse first candidate is not adopted at once")
        #expect(hysteresis.pendingCount == 1)
        #expect(hysteresis.receive(Score(value: 3)) == [.adopt(Score(value: 3))])
        #expect(hysteresis.pendingCount == 0, "an adoption ends the run")
        #expect(hysteresis.receive(Score(value: 4)).isEmpty)
        #expect(hysteresis.receive(Score(value: 4)).isEmpty)
        #expect(hysteresis.receive(Score(value: 4)) == [.adopt(Score(value: 4))])
    }
}
