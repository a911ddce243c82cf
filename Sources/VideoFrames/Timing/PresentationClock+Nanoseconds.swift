extension PresentationClock {
    /// A ``VideoFrame/timestamp`` (`clockRate` Hz, wrapping at 2³²) for a capture time in
    /// nanoseconds, e.g. WebRTC's `RTCVideoFrame.timeStampNs`: `nanoseconds · clockRate / 10⁹`,
    /// rounded down, modulo 2³². Consecutive frames keep their true spacing to within one tick,
    /// which is what the clock needs; the wrap is the one it expects.
    public static func timestamp(nanoseconds: Int64, clockRate: Int32 = 90_000) -> UInt32 {
        // Whole seconds and the remainder apart, so the product cannot overflow for any Int64.
        let rate = Int64(max(clockRate, 1))
        let seconds = nanoseconds / 1_000_000_000, remainder = nanoseconds % 1_000_000_000
        var ticks = seconds &* rate &+ remainder * rate / 1_000_000_000
        if remainder < 0, (remainder * rate) % 1_000_000_000 != 0 { ticks &-= 1 }   // round down, not towards zero
        return UInt32(truncatingIfNeeded: ticks)
    }
}
