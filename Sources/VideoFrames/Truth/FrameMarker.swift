/// The index a frame carries as a visible marker: 2 rows of 16 black or white cells across the
/// top of the picture, each row 1/9 of the height and each cell 1/16 of the width, so that the
/// grid scales with the frame and survives simulcast downscaling (at 240x135 a cell is 15x15
/// pixels) and coarse VP8 coding.
///
/// The first row holds the index (16 bits, most significant first), the second its CRC-16
/// (CCITT, initial value 0xFFFF) over the index's two bytes: a reading is an index only when
/// every cell is clearly black or white and the checksum matches; anything else is
/// ``FrameMarkerReading/unreadable(_:)`` with the reason, never a guess.
///
/// ```swift
/// try FrameMarker.draw(index: 42, into: frame)          // a MutableVideoFrame, I420 or NV12
/// FrameMarker.read(received)                            // .index(42), or .unreadable(reason)
/// ```
public enum FrameMarker {
    /// Cells per row.
    public static let columns = 16
    /// Rows of cells: the index, then its checksum.
    public static let rows = 2
    /// The part of the frame's height one row of cells takes (the grid spans `rows` of them).
    public static let rowHeightFraction = 1.0 / 9.0
    /// The largest index a marker carries.
    public static let maximumIndex = 0xFFFF
    /// Luma of a 0 cell and of a 1 cell (limited range black and white).
    public static let black: UInt8 = 16, white: UInt8 = 235
    /// Cell averages at or below this read as 0, at or above ``oneAtLeast`` as 1; between the
    /// two a cell is ambiguous and the frame unreadable.
    public static let zeroAtMost = 96.0, oneAtLeast = 160.0
    /// The smallest cell, in pixels each way, that is read (below, the frame is too small).
    public static let minimumCellPixels = 2

    /// The pixel bounds of cell (`row`, `column`) in a frame of `width` x `height`: x and y
    /// ranges, proportional to the frame.
    public static func cellBounds(row: Int, column: Int, width: Int, height: Int) -> (x: Range<Int>, y: Range<Int>) {
        let rowHeight = Double(height) * rowHeightFraction
        let x = (column * width / columns)..<((column + 1) * width / columns)
        let y = Int((Double(row) * rowHeight).rounded(.down))..<Int((Double(row + 1) * rowHeight).rounded(.down))
        return (x, y)
    }

    /// The 32 bits drawn for `index`: the index in the first row, its checksum in the second.
    static func bits(for index: Int) -> [Bool] {
        let check = Int(crc16(index))
        return (0..<16).map { index >> (15 - $0) & 1 == 1 } + (0..<16).map { check >> (15 - $0) & 1 == 1 }
    }

    /// CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF) of `value`'s two bytes, high first.
    static func crc16(_ value: Int) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for byte in [UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)] {
            crc = crc16(crc, byte)
        }
        return crc
    }

    /// One byte into a running CRC-16/CCITT.
    static func crc16(_ crc: UInt16, _ byte: UInt8) -> UInt16 {
        var crc = crc ^ (UInt16(byte) << 8)
        for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        return crc
    }

    /// Draws `index`'s cells into the luma of `frame` (I420 or NV12) and makes the chroma under
    /// them neutral (128), so the marker is grey-scale.
    /// - Throws: ``VideoFrameError`` with ``VideoFrameError/Code/unsupportedConversion`` for
    ///   BGRA, ``VideoFrameError/Code/invalidDimensions`` for an index out of
    ///   `0...maximumIndex` or a frame whose cells would be smaller than
    ///   ``minimumCellPixels``.
    public static func draw(index: Int, into frame: MutableVideoFrame) throws {
        guard frame.format.isYUV else {
            throw VideoFrameError(.unsupportedConversion, "a frame marker is drawn into I420 or NV12, not \(frame.format)")
        }
        guard (0...maximumIndex).contains(index) else {
            throw VideoFrameError(.invalidDimensions, "a frame marker carries an index from 0 to \(maximumIndex), not \(index)")
        }
        guard frame.width / columns >= minimumCellPixels, Int(Double(frame.height) * rowHeightFraction) >= minimumCellPixels else {
            throw VideoFrameError(.invalidDimensions, "a \(frame.width)x\(frame.height) frame is too small for a marker (cells under \(minimumCellPixels) pixels)")
        }
        let bits = bits(for: index)
        let luma = frame.plane(0), chroma = frame.plane(1)
        for row in 0..<rows {
            for column in 0..<columns {
                let cell = cellBounds(row: row, column: column, width: frame.width, height: frame.height)
                let value = bits[row * columns + column] ? white : black
                for y in cell.y {
                    let start = y * luma.stride
                    for x in cell.x { luma.bytes[start + x] = value }
                }
                // Neutral chroma under the cell (both planes for I420, the pairs for NV12).
                let chromaX = (cell.x.lowerBound / 2)..<((cell.x.upperBound + 1) / 2)
                for y in (cell.y.lowerBound / 2)..<((cell.y.upperBound + 1) / 2) {
                    if frame.format == .nv12 {
                        for x in chromaX { chroma.bytes[y * chroma.stride + 2 * x] = 128; chroma.bytes[y * chroma.stride + 2 * x + 1] = 128 }
                    } else {
                        let v = frame.plane(2)
                        for x in chromaX { chroma.bytes[y * chroma.stride + x] = 128; v.bytes[y * v.stride + x] = 128 }
                    }
                }
            }
        }
    }

    /// Reads the index from `frame` at any size (the grid is scaled to it): each cell's
    /// average luma over its middle half each way (away from edges blurred by scaling and
    /// coding), then the checksum.
    public static func read(_ frame: VideoFrame) -> FrameMarkerReading {
        guard frame.format.isYUV else { return .unreadable(.unsupportedFormat) }
        guard frame.width / columns >= minimumCellPixels, Int(Double(frame.height) * rowHeightFraction) >= minimumCellPixels else {
            return .unreadable(.tooSmall)
        }
        let luma = frame.plane(0)
        var value = 0, check = 0
        for row in 0..<rows {
            for column in 0..<columns {
                let cell = cellBounds(row: row, column: column, width: frame.width, height: frame.height)
                let xs = middleHalf(cell.x), ys = middleHalf(cell.y)
                var sum = 0
                for y in ys {
                    let start = y * luma.stride
                    for x in xs { sum += Int(luma.bytes[start + x]) }
                }
                let mean = Double(sum) / Double(xs.count * ys.count)
                let bit: Int
                if mean <= zeroAtMost { bit = 0 } else if mean >= oneAtLeast { bit = 1 } else { return .unreadable(.ambiguousCell) }
                if row == 0 { value = value << 1 | bit } else { check = check << 1 | bit }
            }
        }
        guard UInt16(check) == crc16(value) else { return .unreadable(.checksumMismatch) }
        return .index(value)
    }

    /// The middle half of `range` (at least one element).
    private static func middleHalf(_ range: Range<Int>) -> Range<Int> {
        let quarter = range.count / 4
        let lower = range.lowerBound + quarter
        return lower..<max(range.upperBound - quarter, lower + 1)
    }
}

/// What ``FrameMarker/read(_:)`` found in a frame.
public enum FrameMarkerReading: Hashable, Sendable {
    /// The frame carries this index.
    case index(Int)
    /// No index could be read, and none is guessed.
    case unreadable(UnreadableMarkerReason)
}

/// Why a frame's marker could not be read.
public enum UnreadableMarkerReason: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The frame is BGRA: markers are read from YUV luma.
    case unsupportedFormat
    /// The frame is so small that a cell is under ``FrameMarker/minimumCellPixels``.
    case tooSmall
    /// A cell is neither clearly black nor clearly white (no marker, or too damaged).
    case ambiguousCell
    /// Every cell was clear but the checksum row does not match the index row.
    case checksumMismatch
    /// The marker is valid but its index is beyond the clip's frames (another clip's frame);
    /// set by ``ReceivedVideoTimeline``, which knows the clip's length.
    case indexOutsideClip

    /// The reason's name.
    public var description: String { rawValue }
}
