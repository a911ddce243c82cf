import Foundation
import VideoFrames

/// `callscope marker-clip`: writes a ``MarkerClip`` as Y4M, the publisher's `--camera-file`
/// for `callscope call --video-truth`.
struct VideoMarkerClipCommand: Command {
    static let name = "marker-clip"
    static let summary = "Write a Y4M clip whose frames carry their index, for call --video-truth."
    static let help = """
    callscope marker-clip -o OUT.y4m [--width W] [--height H] [--fps N] [--frames N]
        Writes a YUV4MPEG2 clip (I420) whose every frame carries its own index as 2 rows of 16
        black/white cells across the top (the index and its CRC-16), over a panned texture and a
        moving disc. Defaults: 960x540, 15 fps, 150 frames (a 10 s loop; 117 MB). Play it as the
        publisher's camera (callscope call --publish --camera-file OUT.y4m) and give the same
        file to the receiving call's --video-truth (docs/video.md, "Received-video truth").
    """

    let output: String
    let width: Int, height: Int, frameRate: Int, frameCount: Int

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        var output: String?
        var values = ["--width": 960, "--height": 540, "--fps": 15, "--frames": 150]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-o", "--output":
                guard let path = remaining.popFirst() else { throw UsageError("\(argument) needs a path") }
                output = path
            case _ where values[argument] != nil:
                guard let text = remaining.popFirst(), let value = Int(text), value > 0 else { throw UsageError("\(argument) takes a whole number > 0") }
                values[argument] = value
            default: throw UsageError("unknown option '\(argument)' for marker-clip")
            }
        }
        guard let output else { throw UsageError("marker-clip needs -o OUT.y4m") }
        self.output = output
        (width, height, frameRate, frameCount) = (values["--width"]!, values["--height"]!, values["--fps"]!, values["--frames"]!)
        do {
            _ = try MarkerClip(width: width, height: height, frameRate: frameRate, frameCount: frameCount)
        } catch let error as VideoFrameError {
            throw UsageError(error.message)
        }
    }

    func run() throws -> ExitCode {
        let clip = try MarkerClip(width: width, height: height, frameRate: frameRate, frameCount: frameCount)
        try clip.write(toPath: output)
        print("\(output): \(frameCount) frames of \(width)x\(height) at \(frameRate) fps (\(String(format: "%.1f", clip.duration)) s loop)")
        return .success
    }
}
