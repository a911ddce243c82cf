import VideoFrames

/// The fixed header the engine page puts in front of every frame it sends over the frame
/// channel: who the frame is for, its size and timing, and its planes' strides. The planes
/// follow back to back, plane `i` taking `stride(i) × rows(i)` bytes.
///
/// Layout (little-endian, 48 bytes):
///
/// | offset | type | field |
/// |---|---|---|
/// | 0 | 4 bytes | magic `CSVF` |
/// | 4 | u8 | version (1) |
/// | 5 | u8 | source: 0 remote, 1 local preview |
/// | 6 | u8 | format: 0 I420, 1 NV12 |
/// | 7 | u8 | flags: bit 0 = the RTP timestamp is the decoder's |
/// | 8 | u32 | sink id (the engine's number for the peer connection) |
/// | 12 | u32 | width |
/// | 16 | u32 | height |
/// | 20 | u32 | RTP timestamp (90 kHz) |
/// | 24 | i64 | `VideoFrame.timestamp`, µs |
/// | 32 | 3 × u32 | strides of planes 0, 1, 2 (plane 2: 0 for NV12) |
/// | 44 | u32 | reserved (0) |
struct FrameMessageHeader: Hashable, Sendable {
    /// Bytes in the header.
    static let size = 48
    /// `CSVF` read as a little-endian `UInt32`.
    static let magic: UInt32 = 0x4656_5343
    /// The only version there is.
    static let version: UInt8 = 1
    /// The largest plane data accepted for one frame (a 16384 x 16384 I420 frame is 384 MiB;
    /// nothing we receive comes near 64 MiB, and a bigger claim is hostile).
    static let maximumPlaneBytes = 64 << 20

    var source: FrameChannelSource
    var format: PixelFormat
    var sinkID: UInt32
    var width: Int
    var height: Int
    var rtpTimestamp: UInt32
    /// Whether ``rtpTimestamp`` came from the decoder (else it is derived from the µs one).
    var hasDecoderRTPTimestamp: Bool
    var timestampMicroseconds: Int64
    var strides: [Int]

    /// The plane bytes that must follow: each plane's stride times its rows.
    var planeByteCount: Int {
        (0..<format.planeCount).reduce(0) { $0 + strides[$1] * format.rows(plane: $1, height: height) }
    }

    /// Whether every stride is the plane's row length, so the planes are one packed frame.
    var isPacked: Bool {
        (0..<format.planeCount).allSatisfy { strides[$0] == format.rowBytes(plane: $0, width: width) }
    }

    /// The sink id and source, read from a header that may be invalid otherwise (so a
    /// rejection can name the connection); `nil` when even these are unreadable.
    static func route(_ bytes: UnsafeRawBufferPointer) -> (sinkID: UInt32, source: FrameChannelSource)? {
        guard bytes.count >= 12, bytes.loadUnaligned(as: UInt32.self).littleEndian == magic,
              let source = FrameChannelSource(wireValue: bytes[5]) else { return nil }
        return (UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt32.self)), source)
    }

    /// Reads and checks a header: the magic and version, a known source and format, a frame
    /// size, strides no smaller than a row, and plane data of at most ``maximumPlaneBytes``.
    init(_ bytes: UnsafeRawBufferPointer) throws(FrameChannelRejection) {
        guard bytes.count >= Self.size else {
            throw FrameChannelRejection("truncated header: \(bytes.count) of \(Self.size) bytes")
        }
        func u32(_ offset: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        guard u32(0) == Self.magic else { throw FrameChannelRejection("not a frame message (magic \(String(u32(0), radix: 16)))") }
        guard bytes[4] == Self.version else { throw FrameChannelRejection("frame message version \(bytes[4]), expected \(Self.version)") }
        guard let source = FrameChannelSource(wireValue: bytes[5]) else { throw FrameChannelRejection("unknown frame source \(bytes[5])") }
        let formats: [UInt8: PixelFormat] = [0: .i420, 1: .nv12]
        guard let format = formats[bytes[6]] else { throw FrameChannelRejection("unknown pixel format \(bytes[6])") }
        let width = Int(u32(12)), height = Int(u32(16))
        guard width > 0, height > 0, width <= VideoFrame.maximumDimension, height <= VideoFrame.maximumDimension else {
            throw FrameChannelRejection("frame size \(width)x\(height) is not 1...\(VideoFrame.maximumDimension) on each side")
        }
        let strides = [Int(u32(32)), Int(u32(36)), Int(u32(40))]
        var total = 0
        for plane in 0..<format.planeCount {
            let row = format.rowBytes(plane: plane, width: width)
            guard strides[plane] != 0 else { throw FrameChannelRejection("zero stride on plane \(plane) of a \(format) \(width)x\(height) frame") }
            guard strides[plane] >= row else {
                throw FrameChannelRejection("stride \(strides[plane]) on plane \(plane) is shorter than its \(row)-byte row (\(format) \(width)x\(height))")
            }
            total += strides[plane] * format.rows(plane: plane, height: height)   // ≤ 2^32 · 2^14: no overflow in Int64
        }
        guard total <= Self.maximumPlaneBytes else {
            throw FrameChannelRejection("\(total) bytes of planes for \(format) \(width)x\(height): more than the \(Self.maximumPlaneBytes) accepted")
        }
        self.source = source
        self.format = format
        self.sinkID = u32(8)
        self.width = width
        self.height = height
        self.rtpTimestamp = u32(20)
        self.hasDecoderRTPTimestamp = bytes[7] & 1 != 0
        self.timestampMicroseconds = Int64(littleEndian: bytes.loadUnaligned(fromByteOffset: 24, as: Int64.self))
        self.strides = strides
    }

    /// The header's bytes (what the page writes), for tests and the benchmark's sender.
    static func encode(source: FrameChannelSource, format: PixelFormat, sinkID: UInt32, width: Int, height: Int,
                       rtpTimestamp: UInt32?, timestampMicroseconds: Int64, strides: [Int]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size)
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
        append(magic)
        bytes += [version, source.wireValue, format == .nv12 ? 1 : 0, rtpTimestamp == nil ? 0 : 1]
        append(sinkID)
        append(UInt32(truncatingIfNeeded: width))
        append(UInt32(truncatingIfNeeded: height))
        append(rtpTimestamp ?? 0)
        append(timestampMicroseconds)
        for index in 0..<3 { append(UInt32(truncatingIfNeeded: index < strides.count ? strides[index] : 0)) }
        append(UInt32(0))
        return bytes
    }
}

/// Where in the page a frame came from.
enum FrameChannelSource: UInt8, Hashable, Sendable {
    /// A remote (received, decoded) video track.
    case remote = 0
    /// A captured local video track.
    case localPreview = 1

    init?(wireValue: UInt8) { self.init(rawValue: wireValue) }
    var wireValue: UInt8 { rawValue }
}

/// Why a frame message was not made a frame: the text of a counted drop.
struct FrameChannelRejection: Error, Hashable, Sendable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
