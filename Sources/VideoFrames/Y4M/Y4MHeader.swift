/// The stream header of a YUV4MPEG2 (`.y4m`) file: `YUV4MPEG2 W1280 H720 F30:1 Ip A1:1 C420jpeg`.
///
/// Every parameter is kept: the typed ones below, and any other (`X` extensions, unknown
/// letters) in ``otherParameters``, written back unchanged.
public struct Y4MHeader: Sendable, Hashable {
    /// The 4:2:0 `C` tags this package reads (they differ only in chroma siting). A header
    /// without `C` is 4:2:0 too (`420jpeg` by the format's definition).
    public static let supportedColorspaces: Set<String> = ["420", "420jpeg", "420paldv", "420mpeg2"]

    /// Width in pixels (`W`).
    public var width: Int
    /// Height in pixels (`H`).
    public var height: Int
    /// Frames per second as a fraction (`F`); 30:1 when the header has none.
    public var frameRate: Y4MFrameRate {
        get { Y4MFrameRate(numerator: frameRateNumerator, denominator: frameRateDenominator) }
        set { (frameRateNumerator, frameRateDenominator) = (newValue.numerator, newValue.denominator) }
    }
    /// `F`'s numerator.
    public var frameRateNumerator: Int
    /// `F`'s denominator.
    public var frameRateDenominator: Int
    /// The `C` tag, or `nil` when absent.
    public var colorspace: String?
    /// `XCOLORRANGE=FULL` / `LIMITED` (written by ffmpeg), or `nil`.
    public var colorRange: ColorRange?
    /// Every other parameter, verbatim and in order (`Ip`, `A1:1`, `XYSCSS=420JPEG`, ...).
    public var otherParameters: [String]

    /// A header for 4:2:0 frames.
    public init(width: Int, height: Int, frameRate: Y4MFrameRate = Y4MFrameRate(numerator: 30, denominator: 1), colorspace: String? = "420jpeg",
                colorRange: ColorRange? = nil, otherParameters: [String] = []) {
        self.width = width
        self.height = height
        frameRateNumerator = frameRate.numerator
        frameRateDenominator = frameRate.denominator
        self.colorspace = colorspace
        self.colorRange = colorRange
        self.otherParameters = otherParameters
    }

    /// Bytes of one frame's pixels (after its `FRAME` line).
    public var frameByteCount: Int { VideoFrame.packedCount(format: .i420, width: width, height: height) }

    /// The largest numerator or denominator of a frame rate (30000:1001 and the like are far below).
    public static let maximumFrameRateTerm = 1_000_000

    /// The 90 kHz timestamp of frame `index` at ``frameRate``, wrapping at 2³² like RTP's.
    public func timestamp(ofFrame index: Int) -> UInt32 {
        // floor(index · 90 000 · D / N) mod 2³², without overflow for any index or rate:
        // index = q·N + r gives q·K + floor(r·K / N), with K = 90 000 · D; q·K wraps mod 2⁶⁴,
        // which keeps it exact mod 2³². Rates are clamped to what the parser accepts.
        let numerator = Int64(min(max(frameRateNumerator, 1), Self.maximumFrameRateTerm))
        let ticksPerFrame = 90_000 * Int64(min(max(frameRateDenominator, 1), Self.maximumFrameRateTerm))
        let (whole, remainder) = Int64(max(index, 0)).quotientAndRemainder(dividingBy: numerator)
        let part = remainder * ticksPerFrame / numerator
        return UInt32(truncatingIfNeeded: UInt64(whole) &* UInt64(ticksPerFrame) &+ UInt64(part))
    }

    // MARK: Text

    /// Parses a header line (without its newline). Throws ``VideoFrameError`` with
    /// ``VideoFrameError/Code/invalidHeader`` or, for a layout other than 8-bit 4:2:0,
    /// ``VideoFrameError/Code/unsupportedLayout``.
    public static func parse(_ line: some Collection<UInt8>) throws -> Y4MHeader {
        let text = String(decoding: line, as: UTF8.self)
        var words = text.split(separator: " ", omittingEmptySubsequences: true)[...]
        guard words.popFirst() == "YUV4MPEG2" else {
            throw VideoFrameError(.invalidHeader, "not a YUV4MPEG2 stream: the file must start with 'YUV4MPEG2 ', found '\(text.prefix(16))'")
        }
        var header = Y4MHeader(width: 0, height: 0, colorspace: nil)
        for word in words {
            let value = String(word.dropFirst())
            switch word.first {
            case "W": header.width = try positive(value, "W")
            case "H": header.height = try positive(value, "H")
            case "F":
                let parts = value.split(separator: ":")
                guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]), (1...Self.maximumFrameRateTerm).contains(n),
                      (1...Self.maximumFrameRateTerm).contains(d) else {
                    throw VideoFrameError(.invalidHeader, "frame rate 'F\(value)' is not N:D with 1 ≤ N, D ≤ \(Self.maximumFrameRateTerm)")
                }
                header.frameRate = Y4MFrameRate(numerator: n, denominator: d)
            case "C": header.colorspace = value
            case "X" where value.hasPrefix("COLORRANGE="):
                header.colorRange = value.hasSuffix("=FULL") ? .full : value.hasSuffix("=LIMITED") ? .limited : nil
                if header.colorRange == nil { header.otherParameters.append(String(word)) }
            default: header.otherParameters.append(String(word))
            }
        }
        guard header.width > 0, header.height > 0 else {
            throw VideoFrameError(.invalidHeader, "the header needs W and H: '\(text)'")
        }
        try FrameGeometry.validateSize(width: header.width, height: header.height)
        if let colorspace = header.colorspace, !supportedColorspaces.contains(colorspace) {
            throw VideoFrameError(.unsupportedLayout, "colorspace 'C\(colorspace)' is not supported: only 8-bit 4:2:0 (C420, C420jpeg, C420paldv, C420mpeg2 or no C) can be read; convert with ffmpeg -pix_fmt yuv420p")
        }
        return header
    }

    /// The header line, newline included.
    public func encoded() -> [UInt8] {
        var words = ["YUV4MPEG2", "W\(width)", "H\(height)", "F\(frameRateNumerator):\(frameRateDenominator)"]
        if let colorspace { words.append("C\(colorspace)") }
        if let colorRange { words.append("XCOLORRANGE=\(colorRange == .full ? "FULL" : "LIMITED")") }
        words += otherParameters
        return Array((words.joined(separator: " ") + "\n").utf8)
    }

    private static func positive(_ value: String, _ name: String) throws -> Int {
        guard let number = Int(value), number > 0 else {
            throw VideoFrameError(.invalidHeader, "'\(name)\(value)' is not a positive number")
        }
        return number
    }
}

/// A clip's frame rate as the Y4M header writes it, `F<numerator>:<denominator>` frames per second.
public struct Y4MFrameRate: Sendable, Hashable {
    /// Frames …
    public var numerator: Int
    /// … per this many seconds.
    public var denominator: Int

    /// Creates a frame rate, e.g. 30000/1001 for 29.97 frames per second.
    public init(numerator: Int, denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }
}
