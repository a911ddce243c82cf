import Testing
@testable import VideoFrames

/// The received-video truth's timeline on synthetic arrivals: freezes and pauses by the W3C /
/// libwebrtc definitions, new frames across the clip's loops, delivered / sent, latency.
@Suite("Received video timeline")
struct ReceivedVideoTimelineTests {
    /// Arrival times: `count` frames `interval` apart from `start`.
    static func regular(from start: Double, count: Int, interval: Double = 1.0 / 30) -> [Double] {
        (0..<count).map { start + Double($0) * interval }
    }

    @Test("a 400 ms gap in 30 fps video is a freeze, 150 ms is not, 6 s is a pause")
    func freezesAndPauses() {
        // 2 s at 30 fps, +150 ms, 1 s, +400 ms, 1 s, +6 s, 1 s.
        var times = Self.regular(from: 0, count: 61)
        for gap in [0.150, 0.400, 6.0] {
            times += Self.regular(from: times.last! + gap, count: 31)
        }
        let stalls = FreezeDetector.stalls(in: times)
        // The 150 ms interval: avg over 30 = (29/30 + 0.150)/30 = 0.03722 s, threshold
        // max(0.1117, 0.1872) = 0.1872 s > 0.150: no freeze. The 400 ms one: avg 0.04556 s,
        // threshold 0.1956 s: a freeze.
        #expect(stalls.freezes.count == 1)
        #expect(abs((stalls.freezes.first?.duration ?? 0) - 0.4) < 1e-9)
        #expect(abs((stalls.freezes.first?.start ?? 0) - (2 + 0.150 + 1)) < 1e-9)
        #expect(stalls.pauses.count == 1 && abs((stalls.pauses.first?.duration ?? 0) - 6) < 1e-9)
        // The rest: 60 + 3 × 30 intervals of 1/30 s and the 150 ms one, 151 in all.
        #expect(abs((stalls.meanInterval ?? 0) - (150 / 30.0 + 0.150) / 151) < 1e-9)
    }

    @Test("a long interval before five intervals have been seen is not judged a freeze")
    func warmUp() {
        let stalls = FreezeDetector.stalls(in: [0, 0.033, 0.066, 1.0, 1.033, 1.066, 1.099])
        #expect(stalls.freezes.isEmpty && stalls.pauses.isEmpty)
    }

    @Test("frames of a looping clip are new across loops, and an 11 s gap longer than the loop is measured")
    func loops() {
        // A 30-frame clip at 30 fps received for 2 s (two loops), nothing for 11 s, then 1 s.
        var timeline = ReceivedVideoTimeline(clipFrameCount: 30, frameRate: 30)
        for sequence in 0..<60 { timeline.record(.index(sequence % 30), at: Double(sequence) / 30, width: 960, height: 540) }
        let resume = 59 + 330              // 11 s later: frame 389, index 389 % 30 = 29
        for sequence in resume..<(resume + 30) { timeline.record(.index(sequence % 30), at: Double(sequence) / 30, width: 480, height: 270) }
        #expect(timeline.newFrames.map(\.sequence) == Array(0..<60) + Array(resume..<(resume + 30)))
        let summary = timeline.summary()
        #expect(summary.newFrames == 90 && summary.sent == resume + 30 && summary.delivered == 90)
        #expect(abs((summary.longestGap?.duration ?? 0) - 11) < 1e-9)
        #expect(summary.pauses.count == 1 && summary.freezes.isEmpty)
        #expect(summary.sizes == ["960x540": 60, "480x270": 30])
    }

    @Test("repeated indices are not new; late frames are counted; delivered / sent counts the holes")
    func repeatsAndHoles() {
        var timeline = ReceivedVideoTimeline(clipFrameCount: 300, frameRate: 30)
        // Indices 10...19 without 13 and 17, 15 shown twice, 17 arriving after 18.
        let arrivals = [10, 11, 12, 14, 15, 15, 16, 18, 17, 19]
        for (n, index) in arrivals.enumerated() { timeline.record(.index(index), at: Double(n) / 30, width: 240, height: 135) }
        #expect(timeline.repeated == 1 && timeline.late == 1)
        let summary = timeline.summary()
        #expect(summary.newFrames == 8 && summary.sent == 10 && summary.delivered == 9)
        #expect(abs(summary.deliveredFraction - 0.9) < 1e-12)
    }

    @Test("latency: each new frame against the capture side's arrival of the same index")
    func latency() {
        var capture = ReceivedVideoTimeline(clipFrameCount: 30, frameRate: 30)
        var received = ReceivedVideoTimeline(clipFrameCount: 30, frameRate: 30)
        // Captured frames 0..<90 (three loops) at 1/30 s; received 120 ms later, every other one
        // 20 ms later still.
        for sequence in 0..<90 {
            let time = 100 + Double(sequence) / 30
            capture.record(.index(sequence % 30), at: time, width: 960, height: 540)
            received.record(.index(sequence % 30), at: time + 0.120 + (sequence % 2 == 0 ? 0 : 0.020), width: 960, height: 540)
        }
        let latency = received.summary(capture: capture).latency
        #expect(latency?.count == 90)
        #expect(abs((latency?.minimum ?? 0) - 0.120) < 1e-9 && abs((latency?.maximum ?? 0) - 0.140) < 1e-9)
        #expect(abs((latency?.mean ?? 0) - 0.130) < 1e-9)
    }

    @Test("an index the clip does not have and an invalid time are counted, not timed")
    func badInput() {
        var timeline = ReceivedVideoTimeline(clipFrameCount: 150, frameRate: 15)
        timeline.record(.index(3), at: 10, width: 960, height: 540)
        #expect(timeline.record(.index(150), at: 10.1, width: 960, height: 540) == nil)
        #expect(timeline.record(.index(4), at: .nan, width: 960, height: 540) == nil)
        #expect(timeline.record(.index(4), at: .infinity, width: 960, height: 540) == nil)
        #expect(timeline.record(.index(4), at: 1e300, width: 960, height: 540) == nil)
        timeline.record(.index(5), at: 10.2, width: 960, height: 540)
        #expect(timeline.unreadable == [.indexOutsideClip: 1] && timeline.framesWithInvalidTime == 3)
        #expect(timeline.newFrames.map(\.sequence) == [3, 5])
    }

    @Test("a summary over a window sees only the new frames inside it")
    func window() {
        var timeline = ReceivedVideoTimeline(clipFrameCount: 300, frameRate: 10)
        for sequence in 0..<100 { timeline.record(.index(sequence), at: Double(sequence) / 10, width: 960, height: 540) }
        let summary = timeline.summary(over: 2.0...4.0)
        #expect(summary.newFrames == 21 && summary.sent == 21 && summary.delivered == 21)
        #expect(abs(summary.seconds - 2) < 1e-9)
    }
}
