import Dispatch
import Foundation
import RTCStats
import VideoFrames
import VideoFramesReference

/// `callscope frames`: converts Y4M clips to raw BGRA / NV12, and benchmarks the converters
/// against libyuv and memcpy in the same run.
struct FramesCommand: Command {
    static let name = "frames"
    static let summary = "Convert Y4M clips to BGRA/NV12, and benchmark the converters."
    static let help = """
    callscope frames convert IN.y4m[.gz] --to bgra|nv12 [--matrix bt601|bt709] [--range limited|full] -o OUT
        Converts every frame of a YUV4MPEG2 (4:2:0) clip and writes the frames back to back,
        without padding. --matrix defaults to bt601; --range to the clip's XCOLORRANGE, else
        limited. Frames before a truncation are written, then the truncation is reported.

    callscope frames bench [--json] [--seconds S]
        ms per frame of I420 → BGRA, NV12 → BGRA and BGRA → I420 at 720p and 1080p: ours on one
        thread (AVX2 kernels where the CPU has them) and on all cores, the Swift SIMD kernels on
        one thread, libyuv (when installed) and a memcpy of the output, in one run, with cached
        ("hot") and streaming frames; libyuv also restricted to its 128-bit code.
        CALLSCOPE_FRAMES_KERNEL=swift makes "ours" the Swift SIMD kernels.
    """

    enum Action {
        case convert(input: String, output: String, to: PixelFormat, matrix: ColorMatrix, range: ColorRange?)
        case bench(json: Bool, seconds: Double)
    }

    let action: Action

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        switch remaining.popFirst() {
        case "convert":
            var input: String?, output: String?, format: PixelFormat?, matrix = ColorMatrix.bt601, range: ColorRange?
            while let argument = remaining.popFirst() {
                switch argument {
                case "--to":
                    guard let value = remaining.popFirst(), let parsed = PixelFormat(rawValue: value), parsed != .i420 else { throw UsageError("--to takes 'bgra' or 'nv12'") }
                    format = parsed
                case "--matrix":
                    guard let value = remaining.popFirst(), let parsed = ColorMatrix(rawValue: value) else { throw UsageError("--matrix takes 'bt601' or 'bt709'") }
                    matrix = parsed
                case "--range":
                    guard let value = remaining.popFirst(), let parsed = ColorRange(rawValue: value) else { throw UsageError("--range takes 'limited' or 'full'") }
                    range = parsed
                case "-o", "--output":
                    guard let value = remaining.popFirst() else { throw UsageError("\(argument) takes a file name") }
                    output = value
                case let option where option.hasPrefix("-") && option != "-":
                    throw UsageError("unknown option '\(option)' for frames convert")
                default:
                    guard input == nil else { throw UsageError("frames convert takes one input file") }
                    input = argument
                }
            }
            guard let input else { throw UsageError("frames convert needs an input .y4m (or .y4m.gz) file") }
            guard let format else { throw UsageError("frames convert needs --to bgra|nv12") }
            guard let output else { throw UsageError("frames convert needs -o OUT") }
            action = .convert(input: input, output: output, to: format, matrix: matrix, range: range)
        case "bench":
            var json = false, seconds = 0.25
            while let argument = remaining.popFirst() {
                switch argument {
                case "--json": json = true
                case "--seconds":
                    guard let value = remaining.popFirst().flatMap(Double.init), value > 0 else { throw UsageError("--seconds takes a positive number") }
                    seconds = value
                default: throw UsageError("unknown option '\(argument)' for frames bench")
                }
            }
            action = .bench(json: json, seconds: seconds)
        case let other:
            throw UsageError(other.map { "unknown frames command '\($0)'" } ?? "frames needs a command: convert or bench")
        }
    }

    func run() throws -> ExitCode {
        switch action {
        case let .convert(input, output, format, matrix, range): try convert(input: input, output: output, to: format, matrix: matrix, range: range)
        case let .bench(json, seconds): FramesBench(seconds: seconds).run(json: json)
        }
        return .success
    }

    // MARK: Convert

    /// Converts every frame of a Y4M file (gzip-compressed when its name ends in `.gz`) and
    /// writes them back to back, without padding. Frames before a truncation are written; the
    /// truncation is then reported as an error.
    func convert(input: String, output: String, to format: PixelFormat, matrix: ColorMatrix, range: ColorRange?) throws {
        if input.hasSuffix(".gz") {
            guard let data = FileManager.default.contents(atPath: input) else { throw VideoFrameError(.io, "cannot read \(input)") }
            var reader = try Y4MReader(bytes: Gzip.decompress([UInt8](data)))
            try convert(&reader, output: output, to: format, matrix: matrix, range: range)
        } else {
            var reader = try Y4MReader(path: input)
            try convert(&reader, output: output, to: format, matrix: matrix, range: range)
        }
    }

    func convert<Source: ByteSource>(_ reader: inout Y4MReader<Source>, output: String, to format: PixelFormat, matrix: ColorMatrix, range: ColorRange?) throws {
        let header = reader.header
        let space = YUVColorSpace(matrix: matrix, range: range ?? header.colorRange ?? .limited)
        let converter = FrameConverter(colorSpace: space, parallelism: .automatic)
        guard FileManager.default.createFile(atPath: output, contents: nil), let handle = FileHandle(forWritingAtPath: output) else {
            throw VideoFrameError(.io, "cannot create \(output)")
        }
        defer { try? handle.close() }
        var source = try VideoFrameBuffer(format: .i420, width: header.width, height: header.height)
        var destination = try VideoFrameBuffer(format: format, width: header.width, height: header.height)
        var frames = 0
        while try reader.readFrame(into: &source) {
            try source.withFrame { frame in try destination.withMutableFrame { try converter.convert(frame, into: $0) } }
            try handle.write(contentsOf: destination.storage)
            frames += 1
        }
        FileHandle.standardError.write(Data("\(frames) frames \(header.width)x\(header.height) I420 → \(format) (\(space)) written to \(output)\n".utf8))
    }
}

/// `callscope frames bench`: ms per frame at 720p and 1080p for our I420/NV12 → BGRA and
/// BGRA → I420 (one thread, then all cores; the Swift SIMD kernels on one thread beside the
/// run-time-selected ones), libyuv's `I420ToARGBMatrix` / `NV12ToARGBMatrix` / `ARGBToI420`
/// and a memcpy of the output, measured in the same run on the same frames; libyuv a second
/// time restricted to its 128-bit code (SSSE3), the Swift kernels' vector width. Two regimes: "hot", the same
/// buffers every time (they stay in cache), and "streaming", frames taken in turn from a set
/// larger than the last-level cache, as frames arriving from a decoder are.
struct FramesBench {
    let seconds: Double

    struct Row {
        var size: String, path: String, regime: String
        var ours = 0.0, oursThreads = 0.0, oursSwift = 0.0, libyuv: Double?, libyuv128: Double?, memcpy = 0.0
        var maxDifference: Int?
    }

    func run(json: Bool) {
        let library = LibYUV.shared
        var rows: [Row] = []
        for (name, width, height) in [("720p", 1280, 720), ("1080p", 1920, 1080)] {
            for (from, to) in [(PixelFormat.i420, PixelFormat.bgra), (.nv12, .bgra), (.bgra, .i420)] {
                for regime in ["hot", "streaming"] {
                    rows.append(measure(size: name, width: width, height: height, from: from, to: to, regime: regime, library: library))
                }
            }
        }
        let threads = Parallelism.activeProcessorCount
        if json {
            print(Self.json(rows, library: library, threads: threads))
            return
        }
        print("callscope frames bench — ms per frame, BT.601 limited (\(Self.machine()); libyuv: \(library?.path ?? "not found"))")
        print("ours: the \(FrameConverter.VectorKernel.selected.rawValue) kernels (\(FrameConverter.VectorKernel.environmentVariable)=swift forces the Swift SIMD ones); swift: the Swift SIMD kernels")
        print("size   path        regime       ours  ours×\(threads)    swift   libyuv   memcpy  ours/libyuv  swift/libyuv  ours/memcpy  libyuv/memcpy  libyuv128  ours/libyuv128  max|ours−libyuv|")
        for row in rows {
            let lib = row.libyuv.map { String(format: "%8.3f", $0) } ?? "       –"
            let ratio = row.libyuv.map { String(format: "%12.2f %13.2f", row.ours / $0, row.oursSwift / $0) } ?? "           –              –"
            let narrow = row.libyuv128.map { String(format: "%11.3f %15.2f", $0, row.ours / $0) } ?? "          – " + "              –"
            let libRatio = row.libyuv.map { String(format: "%14.2f", $0 / row.memcpy) } ?? "             –"
            let diff = row.maxDifference.map { String($0) } ?? "–"
            print(Self.pad(row.size, 6) + " " + Self.pad(row.path, 11) + " " + Self.pad(row.regime, 9) + String(format: " %7.3f %7.3f %8.3f ", row.ours, row.oursThreads, row.oursSwift) + lib
                  + String(format: " %8.3f ", row.memcpy) + ratio + String(format: " %12.2f", row.ours / row.memcpy) + libRatio + narrow + "  \(diff)")
        }
    }

    func measure(size: String, width: Int, height: Int, from format: PixelFormat, to target: PixelFormat, regime: String, library: LibYUV?) -> Row {
        // Streaming: enough distinct frame + destination pairs to exceed a 32 MB cache twice.
        let pairBytes = width * height * 11 / 2
        let count = regime == "hot" ? 1 : max(2, (64 << 20) / pairBytes + 1)
        let sources = (0..<count).map { Self.sourceFrame(format, width: width, height: height, seed: $0) }
        var destinations = (0..<count).map { _ in try! VideoFrameBuffer(format: target, width: width, height: height) }
        var copies = destinations
        let single = FrameConverter(colorSpace: .bt601Limited, parallelism: .none)
        let parallel = FrameConverter(colorSpace: .bt601Limited, parallelism: .automatic)
        let swiftSIMD = FrameConverter(colorSpace: .bt601Limited, implementation: .swiftSIMD, parallelism: .none)
        var next = 0
        func step(_ body: (VideoFrame, MutableVideoFrame) throws -> Void) {
            next = (next + 1) % count
            sources[next].withFrame { source in
                _ = destinations[next].withMutableFrame { try? body(source, $0) }
            }
        }
        var row = Row(size: size, path: "\(format.rawValue)→\(target.rawValue)", regime: regime)
        var best = [Double](repeating: .infinity, count: 6)
        let bytes = destinations[0].storage.count
        let libraryHasIt = library?.supports(from: format, to: target, colorSpace: .bt601Limited) ?? false
        for _ in 0..<5 {
            best[0] = min(best[0], time { step { try single.convert($0, into: $1) } })
            best[1] = min(best[1], time { step { try parallel.convert($0, into: $1) } })
            best[5] = min(best[5], time { step { try swiftSIMD.convert($0, into: $1) } })
            if let library, libraryHasIt {
                best[2] = min(best[2], time { step { try library.convert($0, into: $1, colorSpace: .bt601Limited) } })
                if library.canRestrictVectorWidth {
                    best[4] = min(best[4], library.withoutWideVectors { time { step { try library.convert($0, into: $1, colorSpace: .bt601Limited) } } })
                }
            }
            best[3] = min(best[3], time {
                next = (next + 1) % count
                let from = destinations[next].storage
                copies[next].withUnsafeMutableBytes { to in from.withUnsafeBytes { to.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: bytes) } }
            })
        }
        (row.ours, row.oursThreads, row.oursSwift, row.memcpy) = (best[0], best[1], best[5], best[3])
        if let library, libraryHasIt {
            row.libyuv = best[2]
            row.libyuv128 = library.canRestrictVectorWidth ? best[4] : nil
            row.maxDifference = Self.maxDifference(sources[0], to: target, library: library)
        }
        return row
    }

    static func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(width - text.count, 0)) }

    /// The best mean ms per call of `body` over batches lasting `seconds / 5` each.
    func time(_ body: () -> Void) -> Double {
        body()
        var runs = 0
        let start = DispatchTime.now().uptimeNanoseconds
        var elapsed: UInt64 = 0
        repeat {
            body()
            runs += 1
            elapsed = DispatchTime.now().uptimeNanoseconds - start
        } while Double(elapsed) < seconds * 1e9 / 5 || runs < 3
        return Double(elapsed) / 1e6 / Double(runs)
    }

    /// The largest per-channel difference between our output and libyuv's for `source`.
    static func maxDifference(_ source: VideoFrameBuffer, to target: PixelFormat, library: LibYUV) -> Int {
        var ours = try! VideoFrameBuffer(format: target, width: source.width, height: source.height)
        var theirs = ours
        source.withFrame { frame in
            ours.withMutableFrame { try? FrameConverter().convert(frame, into: $0) }
            theirs.withMutableFrame { try? library.convert(frame, into: $0, colorSpace: .bt601Limited) }
        }
        return zip(ours.storage, theirs.storage).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }

    /// A camera-like frame: smooth gradients with some seeded noise.
    static func sourceFrame(_ format: PixelFormat, width: Int, height: Int, seed: Int) -> VideoFrameBuffer {
        var frame = try! VideoFrameBuffer(format: format, width: width, height: height)
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        frame.withUnsafeMutableBytes { bytes in
            let luma = width * height
            for i in 0..<bytes.count {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let noise = Int(state >> 60)
                let (x, y) = i < luma ? (i % width, i / width) : ((i - luma) % (width / 2 * 2) / 2, (i - luma) / width)
                bytes[i] = UInt8(clamping: (i < luma ? 16 + (x + y) * 219 / (width + height) : 64 + (x * 128 / max(width / 2, 1) + y) % 128) + noise)
            }
        }
        return frame
    }

    static func json(_ rows: [Row], library: LibYUV?, threads: Int) -> String {
        func number(_ value: Double?) -> String { value.map { String(format: "%.4f", $0) } ?? "null" }
        var sizes: [String] = []
        for size in ["720p", "1080p"] {
            var paths: [String] = []
            for path in ["i420→bgra", "nv12→bgra", "bgra→i420"] {
                let key = path.replacingOccurrences(of: "→", with: "_to_")
                var regimes: [String] = []
                for row in rows where row.size == size && row.path == path {
                    regimes.append("\"\(row.regime)\":{\"ours_ms\":\(number(row.ours)),\"ours_threads_ms\":\(number(row.oursThreads)),\"libyuv_ms\":\(number(row.libyuv)),\"memcpy_ms\":\(number(row.memcpy)),\"ours_over_libyuv\":\(number(row.libyuv.map { row.ours / $0 })),\"ours_swift_simd_ms\":\(number(row.oursSwift)),\"ours_swift_simd_over_libyuv\":\(number(row.libyuv.map { row.oursSwift / $0 })),\"libyuv_ssse3_ms\":\(number(row.libyuv128)),\"ours_over_libyuv_ssse3\":\(number(row.libyuv128.map { row.ours / $0 })),\"ours_over_memcpy\":\(number(row.ours / row.memcpy)),\"max_abs_diff_vs_libyuv\":\(row.maxDifference.map(String.init) ?? "null")}")
                }
                let hot = rows.first { $0.size == size && $0.path == path && $0.regime == "hot" }!
                paths.append("\"\(key)\":{\"ours_ms\":\(number(hot.ours)),\"ours_threads_ms\":\(number(hot.oursThreads)),\"libyuv_ms\":\(number(hot.libyuv)),\"memcpy_ms\":\(number(hot.memcpy)),\(regimes.joined(separator: ","))}")
            }
            sizes.append("\"\(size)\":{\(paths.joined(separator: ","))}")
        }
        let path = library.map { "\"\($0.path)\"" } ?? "null"
        return "{\(sizes.joined(separator: ",")),\"threads\":\(threads),\"libyuv\":\(path),\"color_space\":\"bt601-limited\",\"kernel\":\"\(FrameConverter.VectorKernel.selected.rawValue)\",\"machine\":\"\(machine())\"}"
    }

    static func machine() -> String {
        var model = "unknown CPU"
        if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
           let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let colon = line.firstIndex(of: ":") {
            model = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        #if arch(x86_64)
        let arch = "x86_64, Swift code compiled for baseline SSE2, AVX2 kernels in C chosen at run time"
        #elseif arch(arm64)
        let arch = "arm64"
        #else
        let arch = "other"
        #endif
        return "\(model), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(arch)"
    }
}
