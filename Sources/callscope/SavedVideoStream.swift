import Calls
import CallScopeCore
import Foundation
import VideoFrames

/// `callscope call --save-video DIR`: one stream's frames (a subscriber's, or the publisher's
/// local preview) written as Y4M, as a ``VideoRenderer`` on the output's queue.
///
/// Y4M cannot change size inside a file, so each size gets a file of its own:
/// `LABEL-N-WxH.y4m` (N = 1, 2, ... in order of appearance). `LABEL.ndjson` beside them notes
/// each file as it starts (its first frame's number, size, rotation and capture time) and, at
/// the end, what was written, skipped and dropped. Frames that are not I420 are skipped and
/// counted (Y4M 4:2:0 holds I420 only).
final class SavedVideoStream: VideoRenderer {
    private struct State {
        var file: FileHandle?
        var writer: Y4MWriter?
        var segments = 0
        var framesWritten = 0
        var framesSkipped = 0
        var notes: [String] = []
        var failure: String?
        var finished = false
    }

    /// The file-name prefix, e.g. `subscriber-7` or `publisher-preview`.
    let label: String
    private let directory: URL
    private let frameRate: Int
    private let state = Locked(State())

    init(directory: URL, label: String, frameRate: Int) {
        self.directory = directory
        self.label = String(label.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        self.frameRate = frameRate
    }

    func renderVideoFrame(_ frame: CallVideoFrame) {
        state.withLock { state in
            guard !state.finished, state.failure == nil else { return }
            guard frame.frame.format == .i420 else {
                state.framesSkipped += 1
                return
            }
            do {
                if state.writer?.header.width != frame.width || state.writer?.header.height != frame.height {
                    try startSegment(for: frame, in: &state)
                }
                guard let writer = state.writer, let file = state.file else { return }
                var bytes: [UInt8] = []
                try frame.frame.withFrame { try writer.append($0, to: &bytes) }
                try file.write(contentsOf: bytes)
                state.framesWritten += 1
            } catch {
                state.failure = "\(error)"
            }
        }
    }

    private func startSegment(for frame: CallVideoFrame, in state: inout State) throws {
        try state.file?.close()
        state.segments += 1
        let name = "\(label)-\(state.segments)-\(frame.width)x\(frame.height).y4m"
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: url.path, contents: nil), let file = FileHandle(forWritingAtPath: url.path) else {
            throw SaveVideoFailure(description: "--save-video: cannot create \(url.path)")
        }
        let writer = Y4MWriter(header: Y4MHeader(width: frame.width, height: frame.height,
                                                 frameRate: Y4MFrameRate(numerator: frameRate, denominator: 1)))
        try file.write(contentsOf: writer.headerBytes())
        state.file = file
        state.writer = writer
        var fields = [#""file":"\#(name)""#, #""firstFrame":\#(frame.number)"#, #""width":\#(frame.width)"#, #""height":\#(frame.height)"#,
                      #""rotation":\#(frame.frame.rotation.rawValue)"#]
        if let time = frame.captureTimeMicroseconds { fields.append(#""captureTimeMicroseconds":\#(time)"#) }
        state.notes.append("{" + fields.joined(separator: ",") + "}")
    }

    /// Closes the current file and writes the sidecar with `stats` (the output's counts).
    /// Returns a one-line summary, or throws what went wrong while writing.
    func finish(stats: VideoDeliveryStats) throws -> String {
        let state = state.withLock { state -> State in
            state.finished = true
            try? state.file?.close()
            state.file = nil
            return state
        }
        let dropped = stats.dropped.sorted { $0.key.rawValue < $1.key.rawValue }.map { #""\#($0.key.rawValue)":\#($0.value)"# }
        var end = [#""end":true"#, #""files":\#(state.segments)"#, #""framesWritten":\#(state.framesWritten)"#,
                   #""framesSkipped":\#(state.framesSkipped)"#, #""framesReceived":\#(stats.framesReceived)"#,
                   #""dropped":{\#(dropped.joined(separator: ","))}"#]
        if let reason = stats.lastInvalidFrameReason { end.append(#""lastInvalidFrameReason":\#(Self.quoted(reason))"#) }
        let sidecar = (state.notes + ["{" + end.joined(separator: ",") + "}"]).joined(separator: "\n") + "\n"
        let url = directory.appendingPathComponent("\(label).ndjson")
        guard FileManager.default.createFile(atPath: url.path, contents: Data(sidecar.utf8)) else {
            throw SaveVideoFailure(description: "--save-video: cannot write \(url.path)")
        }
        if let failure = state.failure { throw SaveVideoFailure(description: "--save-video: \(label): \(failure)") }
        return "\(label): \(state.framesWritten) frames in \(state.segments) file(s), \(stats.dropped.values.reduce(0, +)) dropped"
    }

    private static func quoted(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed])) ?? Data("[\"\"]".utf8)
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }
}

/// `--save-video` could not do its work (the message says why).
struct SaveVideoFailure: Error, CustomStringConvertible {
    let description: String
}
