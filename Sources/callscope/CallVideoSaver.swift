import Calls
import CallScopeCore
import Foundation

/// `callscope call --save-video DIR`: every subscriber's frames and the publisher's local
/// preview written as Y4M into DIR (``SavedVideoStream`` says how), and the check, at start,
/// that the media engine delivers frames at all.
final class CallVideoSaver: Sendable {
    static let help = """
    --save-video DIR writes each subscribed stream's decoded frames (and, with --publish, the
    local preview) as Y4M into DIR, a new file at each size change (Y4M cannot change size):
    subscriber-ID-N-WxH.y4m / publisher-preview-N-WxH.y4m, with ID.ndjson beside them noting
    each file's first frame, size, rotation and capture time and, at the end, the frames written
    and dropped. It fails at start when the media engine cannot deliver frames.
    """
    /// Frames that may wait for the disk per stream before the oldest is dropped (counted).
    static let queueLimit = 30

    private let directory: URL
    private let frameRate: Int
    private let saved = Locked<[(base: String, stream: SavedVideoStream, output: VideoFrameOutput)]>([])

    /// Creates `path` (and its parents) when missing.
    init(directory path: String, frameRate: Int) throws {
        directory = URL(fileURLWithPath: path, isDirectory: true)
        self.frameRate = frameRate
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw SaveVideoFailure(description: "--save-video: cannot create the directory \(path): \(error.localizedDescription)")
        }
    }

    /// Throws unless `engine` can deliver video frames: asks for them on a peer connection of
    /// its own, made and closed for the purpose.
    static func checkFrames(from engine: any MediaEngine) async throws {
        let probe = try await engine.makePeerConnection(PeerConnectionConfiguration())
        do {
            try await engine.setVideoFrameSink({ _ in }, on: probe)
            try await engine.setVideoFrameSink(nil, on: probe)
        } catch {
            try? await engine.closePeerConnection(probe)
            throw SaveVideoFailure(description: "--save-video: the media engine cannot deliver video frames (\(error)); nothing would be written")
        }
        try await engine.closePeerConnection(probe)
    }

    /// Saves the subscriber's frames from now on.
    func save(_ subscriber: CallSubscriber) {
        attach(subscriber.videoOutput, label: "subscriber-\(subscriber.stream.streamId)")
    }

    /// Saves the publisher's local preview from now on.
    func save(_ publisher: CallPublisher) {
        attach(publisher.videoOutput, label: "publisher-preview")
    }

    private func attach(_ output: VideoFrameOutput, label: String) {
        let stream = saved.withLock { saved -> SavedVideoStream in
            // A stream subscribed again (after it was lost) gets files of its own.
            let earlier = saved.filter { $0.base == label }.count
            let stream = SavedVideoStream(directory: directory, label: earlier == 0 ? label : "\(label)_\(earlier + 1)", frameRate: frameRate)
            saved.append((label, stream, output))
            return stream
        }
        output.queueLimit = Self.queueLimit
        output.renderer = stream
    }

    /// Stops saving, closes every file and writes the sidecars; one summary line per stream.
    func finish() throws -> [String] {
        let all = saved.withLock { $0 }
        var lines: [String] = []
        var failure: (any Error)?
        for (_, stream, output) in all {
            output.renderer = nil
            do { lines.append(try stream.finish(stats: output.stats)) } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
        return lines
    }
}
