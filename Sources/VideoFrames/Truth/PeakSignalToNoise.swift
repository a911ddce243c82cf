import Foundation

/// Peak signal-to-noise ratio of a received frame against its reference, per plane, in dB:
/// `10 · log10(255² / MSE)` over the plane's samples. Identical planes (MSE 0) are reported as
/// ``identical`` dB rather than infinity, so that averages and JSON stay finite.
public struct PeakSignalToNoise: Hashable, Sendable {
    /// What identical planes are reported as.
    public static let identical = 100.0

    /// Luma.
    public var y: Double
    /// Blue-difference chroma.
    public var u: Double
    /// Red-difference chroma.
    public var v: Double

    /// Creates a measurement.
    public init(y: Double, u: Double, v: Double) {
        self.y = y
        self.u = u
        self.v = v
    }

    /// `received` against `reference`, both YUV (I420 or NV12) of the same size.
    /// - Throws: ``VideoFrameError`` with ``VideoFrameError/Code/sizeMismatch`` for different
    ///   sizes, ``VideoFrameError/Code/unsupportedConversion`` for BGRA.
    public static func measure(_ received: VideoFrame, against reference: VideoFrame) throws -> PeakSignalToNoise {
        guard received.format.isYUV, reference.format.isYUV else {
            throw VideoFrameError(.unsupportedConversion, "PSNR is measured on YUV frames, not \(received.format) against \(reference.format)")
        }
        guard received.width == reference.width, received.height == reference.height else {
            throw VideoFrameError(.sizeMismatch, "PSNR needs frames of one size: \(received.width)x\(received.height) against \(reference.width)x\(reference.height)")
        }
        let luma = squaredError(received, reference, plane: 0, width: received.width, height: received.height)
        let (chromaWidth, chromaHeight) = (PixelFormat.chromaSize(received.width), PixelFormat.chromaSize(received.height))
        let u = squaredError(received, reference, plane: 1, width: chromaWidth, height: chromaHeight)
        let v = squaredError(received, reference, plane: 2, width: chromaWidth, height: chromaHeight)
        return PeakSignalToNoise(y: decibels(luma), u: decibels(u), v: decibels(v))
    }

    /// PSNR in dB for a mean squared error on 8-bit samples.
    public static func decibels(meanSquaredError: Double) -> Double {
        meanSquaredError <= 0 ? identical : min(identical, 10 * log10(255 * 255 / meanSquaredError))
    }

    private static func decibels(_ error: (sum: Int, count: Int)) -> Double {
        decibels(meanSquaredError: Double(error.sum) / Double(max(error.count, 1)))
    }

    /// The sum of squared differences of one component (0 Y, 1 U, 2 V) and the sample count.
    private static func squaredError(_ a: VideoFrame, _ b: VideoFrame, plane component: Int, width: Int, height: Int) -> (sum: Int, count: Int) {
        func access(_ frame: VideoFrame) -> (VideoPlane, step: Int, offset: Int) {
            if component > 0, frame.format == .nv12 { return (frame.plane(1), 2, component - 1) }
            return (frame.plane(component), 1, 0)
        }
        let (planeA, stepA, offsetA) = access(a), (planeB, stepB, offsetB) = access(b)
        var sum = 0
        for row in 0..<height {
            let startA = row * planeA.stride + offsetA, startB = row * planeB.stride + offsetB
            for x in 0..<width {
                let difference = Int(planeA.bytes[startA + x * stepA]) - Int(planeB.bytes[startB + x * stepB])
                sum += difference * difference
            }
        }
        return (sum, width * height)
    }
}
