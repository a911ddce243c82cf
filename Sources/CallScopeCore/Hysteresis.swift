/// A level that ``Hysteresis`` can adopt: it says whether it is worse than another and whether
/// it is adopted at once.
package protocol HysteresisLevel: Equatable, Sendable {
    /// Whether moving from `adopted` to `self` is a change for the worse.
    func isWorse(than adopted: Self) -> Bool
    /// Adopted without waiting (e.g. `critical`).
    var adoptsImmediately: Bool { get }
}

extension HysteresisLevel {
    package var adoptsImmediately: Bool { false }
}

/// Anti-flapping as a value-type state machine, shared by every score that must not flap
/// (network condition, connection quality, discoverability, layer policy): a candidate in, the adoption out.
///
/// The first candidate is adopted at once; afterwards a worse one after `degradeAfter`
/// consecutive worse candidates (or at once when it ``HysteresisLevel/adoptsImmediately``), a
/// better one after `recoverAfter` consecutive better ones. A candidate equal to the adopted
/// level resets the count. An adoption is reported only when the level really changes.
package struct Hysteresis<Level: HysteresisLevel>: Sendable {
    /// What the caller does after a candidate.
    package enum Action: Equatable, Sendable {
        /// `level` is now the adopted level: report the change.
        case adopt(Level)
    }

    /// The adopted level; `nil` before the first candidate.
    package private(set) var adopted: Level?
    package let degradeAfter: Int
    package let recoverAfter: Int
    /// The direction of the consecutive candidates counted so far (`true` = worse).
    private var pendingWorse: Bool?
    /// The consecutive candidates counted so far, all worse or all better than the adopted level.
    package private(set) var pendingCount = 0

    /// A machine that adopts its first candidate at once, or starts from `adopted` when given
    /// (then every change counts, the first one too).
    package init(degradeAfter: Int, recoverAfter: Int, adopted: Level? = nil) {
        self.degradeAfter = degradeAfter
        self.recoverAfter = recoverAfter
        self.adopted = adopted
    }

    /// Feeds one candidate level. `immediateAfter`, when given, is how many consecutive worse
    /// candidates a level that ``HysteresisLevel/adoptsImmediately`` needs instead of one (a
    /// known, managed impairment: a short burst on top of it is not a new condition).
    package mutating func receive(_ candidate: Level, immediateAfter: Int? = nil) -> [Action] {
        guard let current = adopted else { return adopt(candidate) }
        if candidate == current {
            resetPending()
            return []
        }
        let worse = candidate.isWorse(than: current)
        pendingCount = pendingWorse == worse ? pendingCount + 1 : 1
        pendingWorse = worse
        if worse {
            let needed = candidate.adoptsImmediately ? max(1, immediateAfter ?? 1) : degradeAfter
            if pendingCount >= needed { return adopt(candidate) }
        } else if pendingCount >= recoverAfter {
            return adopt(candidate)
        }
        return []
    }

    /// Forgets the consecutive candidates counted so far (an interval that says nothing).
    package mutating func resetPending() {
        pendingWorse = nil
        pendingCount = 0
    }

    private mutating func adopt(_ level: Level) -> [Action] {
        resetPending()
        guard level != adopted else { return [] }
        adopted = level
        return [.adopt(level)]
    }
}
