/// What one stream's frames showed, frame by frame: the marker each carried, when it arrived
/// and at what size, and the PSNR of those measured. ``summary(over:capture:)`` turns it into
/// the truth of the stream (``ReceivedVideoSummary``).
///
/// A file camera loops its clip, so marker indices repeat every ``clipFrameCount`` frames;
/// each index is unwrapped to the occurrence nearest to where the previous frame and the time
/// since it (at ``frameRate``) say it should be, which is exact while the time between two
/// readable frames is known to better than half a loop.
///
/// A frame is **new** when its unwrapped index is higher than any seen before; a frame with an
/// index seen before is **repeated**, one lower than the highest but not seen is **late**.
/// Unreadable frames are counted by reason and take no part in the timing.
public struct ReceivedVideoTimeline: Sendable {
    /// One new frame.
    public struct NewFrame: Hashable, Sendable {
        /// The index unwrapped over the clip's loops (the first frame's occurrence is loop 0).
        public var sequence: Int
        /// The index the marker carried.
        public var index: Int
        /// When it arrived (the caller's clock, seconds).
        public var time: Double
        /// Its width in pixels.
        public var width: Int
        /// Its height in pixels.
        public var height: Int
    }

    /// One PSNR measurement.
    public struct QualitySample: Hashable, Sendable {
        /// When the frame arrived.
        public var time: Double
        /// Its width in pixels.
        public var width: Int
        /// Its height in pixels.
        public var height: Int
        /// Its PSNR against the source frame of its index at its size.
        public var psnr: PeakSignalToNoise
    }

    /// Frames in one loop of the clip.
    public let clipFrameCount: Int
    /// The clip's frames per second.
    public let frameRate: Double
    /// Every new frame, in order of arrival.
    public private(set) var newFrames: [NewFrame] = []
    /// Every PSNR measured.
    public private(set) var quality: [QualitySample] = []
    /// Arrival times of frames whose index had been seen before.
    public private(set) var repeatedTimes: [Double] = []
    /// Arrival times of frames older than the newest seen but not seen before.
    public private(set) var lateTimes: [Double] = []
    /// Arrival times of frames without a readable marker, with the reason.
    public private(set) var unreadableFrames: [(time: Double, reason: UnreadableMarkerReason)] = []
    /// Arrival times of frames whose PSNR was not measured (the measurement was busy with an
    /// earlier frame, or the reference could not be made at the frame's size).
    public private(set) var qualitySkippedTimes: [Double] = []
    private var seen: Set<Int> = []
    private var last: (sequence: Int, time: Double)?

    /// A timeline for a clip of `clipFrameCount` frames played at `frameRate`.
    public init(clipFrameCount: Int, frameRate: Double) {
        self.clipFrameCount = max(clipFrameCount, 1)
        self.frameRate = frameRate > 0 ? frameRate : 30
    }

    /// Frames whose index had been seen before.
    public var repeated: Int { repeatedTimes.count }
    /// Frames older than the newest seen but not seen before.
    public var late: Int { lateTimes.count }
    /// Frames without a readable marker, by reason.
    public var unreadable: [UnreadableMarkerReason: Int] { Self.count(unreadableFrames.map(\.reason)) }
    /// Frames whose PSNR was not measured.
    public var qualitySkipped: Int { qualitySkippedTimes.count }
    /// Every frame observed (readable or not).
    public var framesObserved: Int { seen.count + repeated + unreadableFrames.count }

    private static func count(_ reasons: [UnreadableMarkerReason]) -> [UnreadableMarkerReason: Int] {
        reasons.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    /// Frames noted with a time that is not a finite number of seconds below 10¹² (ignored).
    public private(set) var framesWithInvalidTime = 0

    /// Notes a frame that arrived at `time` (seconds, never decreasing) with `reading`.
    /// Returns its unwrapped sequence number, `nil` when it was unreadable (an index the clip
    /// does not have, ≥ ``clipFrameCount``, counts as ``UnreadableMarkerReason/indexOutsideClip``)
    /// or its time was invalid.
    @discardableResult
    public mutating func record(_ reading: FrameMarkerReading, at time: Double, width: Int, height: Int) -> Int? {
        guard time.isFinite, abs(time) < 1e12 else {
            framesWithInvalidTime += 1
            return nil
        }
        let index: Int
        switch reading {
        case .unreadable(let reason):
            unreadableFrames.append((time, reason))
            return nil
        case .index(let read) where read >= clipFrameCount || read < 0:
            unreadableFrames.append((time, .indexOutsideClip))
            return nil
        case .index(let read):
            index = read
        }
        let sequence = unwrap(index, at: time)
        last = (sequence, time)
        if let newest = newFrames.last?.sequence, sequence <= newest {
            if seen.contains(sequence) { repeatedTimes.append(time) } else { lateTimes.append(time); seen.insert(sequence) }
            return sequence
        }
        seen.insert(sequence)
        newFrames.append(NewFrame(sequence: sequence, index: index, time: time, width: width, height: height))
        return sequence
    }

    /// Notes the PSNR of a frame that arrived at `time`.
    public mutating func recordQuality(_ psnr: PeakSignalToNoise, at time: Double, width: Int, height: Int) {
        quality.append(QualitySample(time: time, width: width, height: height, psnr: psnr))
    }

    /// Notes a frame whose PSNR was not measured (it arrived at `time`).
    public mutating func recordQualitySkipped(at time: Double) { qualitySkippedTimes.append(time) }

    /// The occurrence of `index` nearest to where the previous frame and the elapsed time put it.
    func unwrap(_ index: Int, at time: Double) -> Int {
        guard let last else { return index }
        let expected = Double(last.sequence) + (time - last.time) * frameRate
        let loops = ((expected - Double(index)) / Double(clipFrameCount)).rounded()
        return index + Int(loops) * clipFrameCount
    }

    /// The stream's truth over `window` (arrival times; the whole timeline when `nil`).
    /// `capture`, the publisher's own timeline of the same clip on the same clock (its local
    /// preview), gives the latency of each new frame: its arrival here minus the arrival there
    /// of the latest occurrence of the same index before it (within half a loop).
    public func summary(over window: ClosedRange<Double>? = nil, capture: ReceivedVideoTimeline? = nil) -> ReceivedVideoSummary {
        let frames = window.map { window in newFrames.filter { window.contains($0.time) } } ?? newFrames
        var summary = ReceivedVideoSummary()
        summary.newFrames = frames.count
        func inWindow(_ time: Double) -> Bool { window?.contains(time) ?? true }
        summary.repeated = repeatedTimes.filter(inWindow).count
        summary.late = lateTimes.filter(inWindow).count
        summary.unreadable = Self.count(unreadableFrames.filter { inWindow($0.time) }.map(\.reason))
        if let first = frames.first, let lastFrame = frames.last {
            let span = first.sequence...lastFrame.sequence
            summary.sent = span.count
            summary.delivered = seen.filter { span.contains($0) }.count
            summary.seconds = lastFrame.time - first.time
        }
        let times = frames.map(\.time)
        if let gap = zip(times, times.dropFirst()).map({ VideoStall(start: $0, duration: $1 - $0) }).max(by: { $0.duration < $1.duration }) {
            summary.longestGap = gap
        }
        let stalls = FreezeDetector.stalls(in: times)
        summary.freezes = stalls.freezes
        summary.pauses = stalls.pauses
        summary.meanFrameInterval = stalls.meanInterval
        var sizes: [String: Int] = [:]
        for frame in frames { sizes["\(frame.width)x\(frame.height)", default: 0] += 1 }
        summary.sizes = sizes
        let samples = window.map { window in quality.filter { window.contains($0.time) } } ?? quality
        summary.quality = Dictionary(grouping: samples) { "\($0.width)x\($0.height)" }
            .map { Self.quality(of: $1, size: $0) }
            .sorted { $0.frames > $1.frames }
        summary.qualitySkipped = qualitySkippedTimes.filter(inWindow).count
        if let capture {
            let captured = Dictionary(grouping: capture.newFrames, by: \.index).mapValues { $0.map(\.time) }
            let half = Double(clipFrameCount) / frameRate / 2
            var latencies: [Double] = []
            for frame in frames {
                if let sent = captured[frame.index]?.last(where: { $0 <= frame.time && frame.time - $0 < half }) {
                    latencies.append(frame.time - sent)
                }
            }
            summary.latency = ReceivedVideoSummary.Spread(latencies)
            summary.latencyUnmatched = frames.count - latencies.count
        }
        return summary
    }

    /// The PSNR of `samples` (one size, at least one sample).
    private static func quality(of samples: [QualitySample], size: String) -> ReceivedVideoSummary.Quality {
        let count = Double(samples.count)
        let ys: [Double] = samples.map(\.psnr.y), us: [Double] = samples.map(\.psnr.u), vs: [Double] = samples.map(\.psnr.v)
        return ReceivedVideoSummary.Quality(size: size, frames: samples.count, meanY: ys.reduce(0, +) / count, minimumY: ys.min() ?? 0,
                                            meanU: us.reduce(0, +) / count, meanV: vs.reduce(0, +) / count)
    }
}
