/// The YCbCr matrix of a video stream.
public enum ColorMatrix: String, Sendable, Hashable, CaseIterable {
    /// ITU-R BT.601 (SD video, JPEG; what WebRTC assumes when it is not told): Kr 0.299, Kb 0.114.
    case bt601
    /// ITU-R BT.709 (HD video): Kr 0.2126, Kb 0.0722.
    case bt709

    /// The red weight of luma.
    public var kr: Double { self == .bt601 ? 0.299 : 0.2126 }
    /// The blue weight of luma.
    public var kb: Double { self == .bt601 ? 0.114 : 0.0722 }
    /// The green weight of luma, `1 - kr - kb`.
    public var kg: Double { 1 - kr - kb }
}

/// The code range of a video stream's samples.
public enum ColorRange: String, Sendable, Hashable, CaseIterable {
    /// "Video" range: Y 16...235, Cb and Cr 16...240 (cameras, codecs).
    case limited
    /// "Full" / JPEG range: Y, Cb and Cr 0...255, chroma centred on 128.
    case full
}

/// A matrix and a range: all a conversion between YUV and RGB needs to know.
public struct YUVColorSpace: Sendable, Hashable, CustomStringConvertible {
    /// The matrix.
    public var matrix: ColorMatrix
    /// The range.
    public var range: ColorRange

    /// A colour space.
    public init(matrix: ColorMatrix, range: ColorRange) {
        self.matrix = matrix
        self.range = range
    }

    /// BT.601, limited range: libyuv's `I420ToARGB`.
    public static let bt601Limited = YUVColorSpace(matrix: .bt601, range: .limited)
    /// BT.601, full range (JPEG): libyuv's `J420ToARGB`.
    public static let bt601Full = YUVColorSpace(matrix: .bt601, range: .full)
    /// BT.709, limited range: libyuv's `H420ToARGB`.
    public static let bt709Limited = YUVColorSpace(matrix: .bt709, range: .limited)
    /// BT.709, full range: libyuv's `kYuvF709Constants`.
    public static let bt709Full = YUVColorSpace(matrix: .bt709, range: .full)
    /// The four, for tests and tables.
    public static let all: [YUVColorSpace] = [.bt601Limited, .bt601Full, .bt709Limited, .bt709Full]

    /// `bt601-limited`, `bt709-full`, ...
    public var description: String { "\(matrix.rawValue)-\(range.rawValue)" }

    // MARK: Exact conversions

    /// Luma scale: 255/219 for limited range, 1 for full.
    var lumaScale: Double { range == .limited ? 255.0 / 219.0 : 1 }
    /// Luma offset: 16 for limited range, 0 for full.
    var lumaOffset: Double { range == .limited ? 16 : 0 }
    /// Chroma scale: 255/224 for limited range, 1 for full.
    var chromaScale: Double { range == .limited ? 255.0 / 224.0 : 1 }

    /// The exact RGB, in 0...255 units and not clamped, of a Y, Cb, Cr sample: the textbook
    /// formula in `Double`, the yardstick of the integer converters.
    public func rgb(y: Double, u: Double, v: Double) -> SIMD3<Double> {
        let (kr, kb, kg) = (matrix.kr, matrix.kb, matrix.kg)
        let luma = lumaScale * (y - lumaOffset)
        let cb = chromaScale * (u - 128), cr = chromaScale * (v - 128)
        return SIMD3(luma + 2 * (1 - kr) * cr,
                     luma - 2 * (1 - kb) * kb / kg * cb - 2 * (1 - kr) * kr / kg * cr,
                     luma + 2 * (1 - kb) * cb)
    }

    /// The exact Y, Cb, Cr, not rounded or clamped, of an RGB colour in 0...255 units.
    public func yuv(r: Double, g: Double, b: Double) -> SIMD3<Double> {
        let (kr, kb, kg) = (matrix.kr, matrix.kb, matrix.kg)
        let luma = kr * r + kg * g + kb * b
        return SIMD3(lumaOffset + luma / lumaScale,
                     128 + (b - luma) / (2 * (1 - kb)) / chromaScale,
                     128 + (r - luma) / (2 * (1 - kr)) / chromaScale)
    }
}
