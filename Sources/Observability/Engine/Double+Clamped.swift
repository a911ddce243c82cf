extension Double {
    /// The value as an `Int`, rounded, with non-finite and out-of-range values clamped: stats
    /// come from untrusted reports, and a plain conversion traps on them.
    var clampedInt: Int {
        guard isFinite else { return 0 }
        return Int(Swift.min(Swift.max(rounded(), -9.0e15), 9.0e15))
    }

    /// A frame dimension in pixels: 0 when absent, negative or absurd (above 65 536).
    var pixels: Int {
        guard isFinite, self > 0, self <= 65_536 else { return 0 }
        return Int(rounded())
    }
}
