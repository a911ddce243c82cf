import Dispatch
import Foundation

/// Measures one stream against a ``MarkerClip``: give it each frame as it arrives
/// (``observe(_:at:)``, from any one thread at a time, e.g. a renderer) and read the
/// ``timeline`` or ``summary(over:capture:)`` whenever you like.
///
/// The marker is read at once, on the caller's thread (a few hundred pixels); the PSNR against
/// the clip's frame of the same index, box-scaled to the received size (``BoxScaler``), runs
/// on a queue of the probe's own, one frame at a time: a frame that arrives while it is busy
/// is not measured and is counted (``ReceivedVideoTimeline/qualitySkipped``), so the
/// measurement never holds up the frames or grows a queue.
public final class VideoTruthProbe: @unchecked Sendable {
    // `@unchecked`: every mutable field is read and written under `lock` only.
    private let lock = NSLock()
    private var state: ReceivedVideoTimeline
    private var measuring = false
    private let clip: MarkerClip
    private let queue: DispatchQueue
    private let measuresQuality: Bool

    /// A probe for frames of `clip`; with `measuresQuality` false it reads the markers only
    /// (a publisher's preview, whose frames are the clip's own).
    public init(clip: MarkerClip, label: String = "stream", measuresQuality: Bool = true) {
        self.clip = clip
        self.measuresQuality = measuresQuality
        state = ReceivedVideoTimeline(clipFrameCount: clip.frameCount, frameRate: Double(clip.frameRate))
        queue = DispatchQueue(label: "callscope.videotruth.\(label)")
    }

    /// Everything noted so far.
    public var timeline: ReceivedVideoTimeline { lock.withLock { state } }

    /// The stream's truth (see ``ReceivedVideoTimeline/summary(over:capture:)``).
    public func summary(over window: ClosedRange<Double>? = nil, capture: VideoTruthProbe? = nil) -> ReceivedVideoSummary {
        timeline.summary(over: window, capture: capture?.timeline)
    }

    /// Notes `frame`, which arrived at `time` (seconds on a clock shared by every probe you
    /// compare, never decreasing), and returns what its marker said.
    @discardableResult
    public func observe(_ frame: RetainedVideoFrame, at time: Double) -> FrameMarkerReading {
        let reading = frame.withFrame { FrameMarker.read($0) }
        let startMeasuring = lock.withLock { () -> Bool in
            guard state.record(reading, at: time, width: frame.width, height: frame.height) != nil, measuresQuality else { return false }
            if measuring {
                state.recordQualitySkipped(at: time)
                return false
            }
            measuring = true
            return true
        }
        guard startMeasuring, case .index(let index) = reading else { return reading }
        queue.async { [self] in
            let psnr = try? measure(frame, index: index)
            lock.withLock {
                if let psnr { state.recordQuality(psnr, at: time, width: frame.width, height: frame.height) } else { state.recordQualitySkipped(at: time) }
                measuring = false
            }
        }
        return reading
    }

    /// Waits until the measurement in progress (if any) has been noted.
    public func drain() {
        queue.sync {}
    }

    /// PSNR of `frame` against the clip's frame `index` at `frame`'s size.
    private func measure(_ frame: RetainedVideoFrame, index: Int) throws -> PeakSignalToNoise {
        let source = try clip.frame(index)
        let reference = source.width == frame.width && source.height == frame.height
            ? source : try source.withFrame { try BoxScaler.scaled($0, width: frame.width, height: frame.height) }
        return try frame.withFrame { received in try reference.withFrame { try PeakSignalToNoise.measure(received, against: $0) } }
    }
}
