import Testing
@testable import VideoFrames

/// Frame timestamps to monotonic presentation times.
@Suite("Presentation clock")
struct PresentationClockTests {
    static func times(_ timestamps: [UInt32], clock: PresentationClock = PresentationClock()) -> [PresentationTime] {
        var clock = clock
        return timestamps.map { clock.presentationTime(for: $0) }
    }

    @Test("regular 30 fps frames keep their intervals, from the origin")
    func regular() {
        let times = Self.times([1_000_000, 1_003_000, 1_006_000, 1_009_003])
        #expect(times.map(\.value) == [0, 3000, 6000, 9003])
        #expect(times.map(\.kind) == [.first, .regular, .regular, .regular])
        #expect(times.map(\.duration) == [3000, 3000, 3000, 3003])
        #expect(times[3].timescale == 90_000)
        #expect(abs(times[3].seconds - 0.1000333) < 1e-6)
    }

    @Test("the 32-bit wrap is unwrapped")
    func wrap() {
        let times = Self.times([UInt32.max - 2999, UInt32.max &- 0 &+ 1, 3000, 6000])
        #expect(times.map(\.value) == [0, 3000, 6000, 9000])
        #expect(times.allSatisfy { $0.kind != .discontinuity })
    }

    @Test("a long pause continues one frame later, then follows the new timestamps")
    func gap() {
        let times = Self.times([0, 3000, 6000, 6000 + 90_000 * 5, 6000 + 90_000 * 5 + 3000])
        #expect(times.map(\.value) == [0, 3000, 6000, 9000, 12000])
        #expect(times[3].kind == .discontinuity)
        #expect(times[4].kind == .regular)
    }

    @Test("a reset far back is a discontinuity, not a jump back")
    func reset() {
        let times = Self.times([500_000, 503_000, 7, 3007])
        #expect(times.map(\.value) == [0, 3000, 6000, 9000])
        #expect(times[2].kind == .discontinuity)
    }

    @Test("late and repeated frames hold one tick after the previous")
    func late() {
        let times = Self.times([0, 3000, 6000, 4500, 6000, 9000])
        #expect(times.map(\.value) == [0, 3000, 6000, 6001, 6002, 9000])
        #expect(times.map(\.kind) == [.first, .regular, .regular, .late, .late, .regular])
        #expect(times[5].duration == 3000)
    }

    @Test("custom rate, gap and origin")
    func configuration() {
        let clock = PresentationClock(clockRate: 1000, maximumGap: 0.5, nominalFrameRate: 20, origin: 10_000)
        #expect(clock.nominalFrameDuration == 50 && clock.maximumGap == 500)
        let times = Self.times([0, 40, 600, 640], clock: clock)
        #expect(times.map(\.value) == [10_000, 10_040, 10_080, 10_120])
        #expect(times[0].duration == 50 && times[2].kind == .discontinuity)
    }

    @Test("any sequence of timestamps gives strictly increasing times", arguments: [1, 2, 3, 4] as [UInt64])
    func monotonic(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var clock = PresentationClock()
        var timestamp = UInt32.random(in: 0...UInt32.max, using: &rng)
        var last: Int64?
        for _ in 0..<20_000 {
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<80: timestamp &+= UInt32.random(in: 2900...3100, using: &rng)
            case 80..<88: timestamp &-= UInt32.random(in: 0...6000, using: &rng)
            case 88..<94: timestamp &+= UInt32.random(in: 0...UInt32.max, using: &rng)
            default: break
            }
            let time = clock.presentationTime(for: timestamp)
            if let last { #expect(time.value > last) }
            last = time.value
        }
    }
}
