import CallsChromium
import Foundation
import RTCStats

/// The Swift end of Chromium's frame channel per 960x540 frame (docs/video-chromium.md):
/// the server's CPU, the wall time, and a copy of the planes beside them.
extension BenchCommand {
    func measureFrameChannel() throws -> FrameChannelBenchmark.Result {
        try FrameChannelBenchmark.run(frames: 300)
    }

    static func jsonValue(_ result: FrameChannelBenchmark.Result) -> JSONValue {
        .object([
            StatsField("frames", .number(Double(result.frames))),
            StatsField("plane_bytes_per_frame", .number(Double(result.planeBytes))),
            StatsField("server_cpu_us_per_frame", .number(Self.round(result.serverCPUMicroseconds))),
            StatsField("wall_us_per_frame", .number(Self.round(result.wallMicroseconds))),
            StatsField("copy_us_per_frame", .number(Self.round(result.memcpyMicroseconds))),
        ])
    }

    static func text(_ result: FrameChannelBenchmark.Result) -> String {
        String(format: "frame channel (Chromium → Swift), 960x540 I420, %d frames: server CPU %.0f µs/frame, wall %.0f µs/frame, a copy of the planes into new memory %.0f µs (CPU/copy %.1f)",
               result.frames, result.serverCPUMicroseconds, result.wallMicroseconds, result.memcpyMicroseconds,
               result.serverCPUMicroseconds / max(result.memcpyMicroseconds, 0.001))
    }
}
