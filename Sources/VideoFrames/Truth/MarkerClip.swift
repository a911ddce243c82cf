import Foundation

/// A test clip whose every frame carries its own index as a ``FrameMarker``, over moving
/// content that gives an encoder real work and PSNR something to measure: a textured landscape
/// (value noise over seven octaves with a natural picture's falloff of detail, in luma and
/// chroma) panned along a closed path, and a coloured disc moving across it.
///
/// Frames are computed, not stored: ``frame(_:)`` makes frame `i` the same way every time, so
/// the sender's clip (written as Y4M with ``write(toPath:)``, the publisher's
/// `--camera-file`) and the receiver's reference for frame `i` are the same picture.
///
/// ```swift
/// let clip = try MarkerClip(width: 960, height: 540, frameRate: 15, frameCount: 300)
/// try clip.write(toPath: "/tmp/marker.y4m")
/// let reference = try clip.frame(42)          // I420, marker 42 in its top rows
/// ```
public struct MarkerClip: Sendable {
    /// Width in pixels (even).
    public let width: Int
    /// Height in pixels (even).
    public let height: Int
    /// Frames per second, written in the Y4M header (the rate a file camera plays it at).
    public let frameRate: Int
    /// Frames before the clip repeats (a file camera loops it).
    public let frameCount: Int

    /// The pannable texture: twice the frame each way, luma then the two chroma planes.
    private let textureLuma: [UInt8]
    private let textureU: [UInt8]
    private let textureV: [UInt8]

    /// Prepares a clip (its texture, computed once).
    /// - Throws: ``VideoFrameError`` with ``VideoFrameError/Code/invalidDimensions`` for an odd
    ///   or too small size (cells under 8 pixels), a frame rate outside 1...240, or a frame
    ///   count outside 2...``FrameMarker/maximumIndex`` + 1.
    public init(width: Int, height: Int, frameRate: Int, frameCount: Int) throws {
        guard width % 2 == 0, height % 2 == 0, width >= FrameMarker.columns * 8, height >= 72, width <= 3840, height <= 2160 else {
            throw VideoFrameError(.invalidDimensions, "a marker clip is even-sized from \(FrameMarker.columns * 8)x72 to 3840x2160, not \(width)x\(height)")
        }
        guard (1...240).contains(frameRate), (2...(FrameMarker.maximumIndex + 1)).contains(frameCount) else {
            throw VideoFrameError(.invalidDimensions, "a marker clip has 1...240 frames a second and 2...\(FrameMarker.maximumIndex + 1) frames, not \(frameRate) and \(frameCount)")
        }
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.frameCount = frameCount
        // Scales relative to the frame, so a smaller clip looks the same, only smaller.
        let (textureWidth, textureHeight) = (2 * width, 2 * height)
        let unit = Double(width) / 960
        // Luma: value noise over seven octaves from 256 to 4 pixels (at 960 wide), each half as
        // large and about 0.7 times as strong as the one before: the 1/f-like falloff of
        // natural pictures, so coarse coding and downscaling lose detail as they would on a
        // camera's. Chroma: the three coarsest octaves.
        let lumaOctaves: [(scale: Double, amplitude: Double)] = [(256, 44), (128, 30), (64, 21), (32, 15), (16, 10), (8, 7), (4, 5)]
        let chromaOctaves: [(scale: Double, amplitude: Double)] = [(256, 30), (128, 18), (64, 10)]
        textureLuma = ValueNoise.plane(width: textureWidth, height: textureHeight, spacing: 1 / unit, octaves: lumaOctaves, seed: 1)
            .map { UInt8(max(16, min(235, (122 + $0).rounded()))) }
        // Chroma is half the texture's size each way: its samples are 2 texture pixels apart.
        textureU = ValueNoise.plane(width: width, height: height, spacing: 2 / unit, octaves: chromaOctaves, seed: 2)
            .map { UInt8(max(16, min(240, (128 + $0).rounded()))) }
        textureV = ValueNoise.plane(width: width, height: height, spacing: 2 / unit, octaves: chromaOctaves, seed: 3)
            .map { UInt8(max(16, min(240, (128 + $0).rounded()))) }
    }

    /// Seconds before the clip repeats.
    public var duration: Double { Double(frameCount) / Double(frameRate) }

    /// The Y4M header of the clip.
    public var header: Y4MHeader {
        Y4MHeader(width: width, height: height, frameRate: Y4MFrameRate(numerator: frameRate, denominator: 1))
    }

    /// Frame `index` (taken modulo ``frameCount``): the panned texture, the disc, the marker.
    public func frame(_ index: Int) throws -> VideoFrameBuffer {
        let index = ((index % frameCount) + frameCount) % frameCount
        var buffer = try VideoFrameBuffer(format: .i420, width: width, height: height, timestamp: header.timestamp(ofFrame: index))
        let phase = 2 * Double.pi * Double(index) / Double(frameCount)
        // The pan: a closed path over the texture (even offsets keep chroma aligned).
        let panX = 2 * Int((Double(width) / 4 * (1 - cos(phase))).rounded(.down) / 2)
        let panY = 2 * Int((Double(height) / 4 * (1 - cos(2 * phase + 1))).rounded(.down) / 2)
        let discX = Double(width) * (0.5 + 0.35 * sin(3 * phase)), discY = Double(height) * (0.62 + 0.25 * sin(2 * phase + 0.5))
        let radius = Double(height) / 9
        try buffer.withMutableFrame { frame in
            let (y, u, v) = (frame.plane(0), frame.plane(1), frame.plane(2))
            textureLuma.withUnsafeBytes { texture in
                for row in 0..<height {
                    let from = texture.baseAddress! + (row + panY) * 2 * width + panX
                    (y.bytes.baseAddress! + row * y.stride).copyMemory(from: from, byteCount: width)
                }
            }
            for (plane, source) in [(u, textureU), (v, textureV)] {
                source.withUnsafeBytes { texture in
                    for row in 0..<(height / 2) {
                        let from = texture.baseAddress! + (row + panY / 2) * width + panX / 2
                        (plane.bytes.baseAddress! + row * plane.stride).copyMemory(from: from, byteCount: width / 2)
                    }
                }
            }
            // The disc, with a soft one-pixel edge.
            for row in max(0, Int(discY - radius) - 1)..<min(height, Int(discY + radius) + 2) {
                for column in max(0, Int(discX - radius) - 1)..<min(width, Int(discX + radius) + 2) {
                    let distance = ((Double(column) - discX) * (Double(column) - discX) + (Double(row) - discY) * (Double(row) - discY)).squareRoot()
                    let cover = max(0, min(1, radius + 0.5 - distance))
                    guard cover > 0 else { continue }
                    let at = row * y.stride + column
                    y.bytes[at] = UInt8((Double(y.bytes[at]) * (1 - cover) + 196 * cover).rounded())
                    if row % 2 == 0, column % 2 == 0 {
                        let chroma = row / 2 * u.stride + column / 2
                        u.bytes[chroma] = UInt8((Double(u.bytes[chroma]) * (1 - cover) + 84 * cover).rounded())
                        v.bytes[chroma] = UInt8((Double(v.bytes[chroma]) * (1 - cover) + 178 * cover).rounded())
                    }
                }
            }
            try FrameMarker.draw(index: index, into: frame)
        }
        return buffer
    }

    /// The whole clip as a Y4M stream written to `path` (replaced when it exists), frame by
    /// frame: `width · height · 1.5 · frameCount` bytes of pixels.
    /// - Throws: ``VideoFrameError`` with ``VideoFrameError/Code/io`` when the file cannot be
    ///   written.
    public func write(toPath path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw VideoFrameError(.io, "cannot create \(path)")
        }
        defer { try? file.close() }
        let writer = Y4MWriter(header: header)
        do {
            try file.write(contentsOf: writer.headerBytes())
            var bytes: [UInt8] = []
            for index in 0..<frameCount {
                bytes.removeAll(keepingCapacity: true)
                try frame(index).withFrame { try writer.append($0, to: &bytes) }
                try file.write(contentsOf: bytes)
            }
        } catch let error as VideoFrameError {
            throw error
        } catch {
            throw VideoFrameError(.io, "writing \(path): \(error.localizedDescription)")
        }
    }
}
