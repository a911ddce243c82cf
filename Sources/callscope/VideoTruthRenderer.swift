import Calls
import Foundation
import VideoFrames

/// Hands each frame to a ``VideoTruthProbe`` with its arrival time (unix seconds, the clock
/// another process on this machine shares), logs its index when asked, then passes it on to
/// the renderer that was there before (`--save-video`'s).
final class VideoTruthRenderer: VideoRenderer {
    let probe: VideoTruthProbe
    let log: FileHandle?
    let next: (any VideoRenderer)?

    init(probe: VideoTruthProbe, log: FileHandle?, next: (any VideoRenderer)?) {
        self.probe = probe
        self.log = log
        self.next = next
    }

    func renderVideoFrame(_ frame: CallVideoFrame) {
        let time = Date().timeIntervalSince1970
        if case .index(let index) = probe.observe(frame.frame, at: time), let log {
            try? log.write(contentsOf: Data("\(index) \(String(format: "%.6f", time))\n".utf8))
        }
        next?.renderVideoFrame(frame)
    }
}
