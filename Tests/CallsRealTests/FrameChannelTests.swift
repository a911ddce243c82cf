import CallScopeCore
import Calls
import Observability
import RTCStats
@testable import CallsChromium
import Foundation
import Testing
import VideoFrames

/// The frame channel's Swift end without Chromium (docs/video-chromium.md): the WebSocket
/// handshake answered with RFC 6455's own example accept value, the 48-byte header checks, and the server fed by
/// a test client: frames arrive whole and in order, broken ones are counted rejections with a
/// reason and never end the connection.
@Suite struct FrameChannelTests {
    /// A header written from the layout table in `FrameMessageHeader`'s documentation, field
    /// by field (not with the code's encoder).
    static func handHeader(magic: [UInt8] = Array("CSVF".utf8), version: UInt8 = 1, source: UInt8 = 0, format: UInt8 = 0, flags: UInt8 = 1,
                           sink: UInt32 = 1, width: UInt32, height: UInt32, rtp: UInt32 = 90_000, micros: Int64 = 1_000_000,
                           strides: [UInt32]) -> [UInt8] {
        func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        var bytes = magic + [version, source, format, flags] + le(sink) + le(width) + le(height) + le(rtp) + le(micros)
        for index in 0..<3 { bytes += le(index < strides.count ? strides[index] : 0) }
        return bytes + le(UInt32(0))
    }

    /// Planes with a pattern that differs by plane, row and column, so a misplaced row shows.
    static func pattern(_ count: Int, seed: Int = 0) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 961 &+ seed) }
    }

    @Test func aGoodHeaderReads() throws {
        let bytes = Self.handHeader(source: 1, format: 1, sink: 7, width: 961, height: 541, rtp: 123_456, micros: -5, strides: [1024, 1024])
        let header = try bytes.withUnsafeBytes { try FrameMessageHeader($0) }
        #expect(header.source == .localPreview && header.format == .nv12 && header.sinkID == 7)
        #expect(header.width == 961 && header.height == 541 && header.rtpTimestamp == 123_456 && header.timestampMicroseconds == -5)
        // NV12 961x541: 541 rows of 1024, then ceil(541/2) = 271 rows of 1024.
        #expect(header.planeByteCount == 1024 * 541 + 1024 * 271)
        #expect(!header.isPacked)
    }

    @Test(arguments: [
        (handHeader(width: 960, height: 540, strides: [960, 0, 480]), "zero stride on plane 1"),
        (handHeader(width: 960, height: 540, strides: [959, 480, 480]), "stride 959 on plane 0 is shorter than its 960-byte row"),
        (handHeader(format: 1, width: 961, height: 2, strides: [961, 961]), "stride 961 on plane 1 is shorter than its 962-byte row"),
        (handHeader(width: 0, height: 540, strides: [960, 480, 480]), "frame size 0x540"),
        (handHeader(width: 20_000, height: 540, strides: [20_000, 10_000, 10_000]), "frame size 20000x540"),
        (handHeader(width: 16_384, height: 16_384, strides: [16_384, 8_192, 8_192]), "more than the 67108864 accepted"),
        (handHeader(magic: Array("RIFF".utf8), width: 960, height: 540, strides: [960, 480, 480]), "not a frame message"),
        (handHeader(version: 2, width: 960, height: 540, strides: [960, 480, 480]), "version 2"),
        (handHeader(source: 9, width: 960, height: 540, strides: [960, 480, 480]), "unknown frame source 9"),
        (handHeader(format: 7, width: 960, height: 540, strides: [960, 480, 480]), "unknown pixel format 7"),
        (Array(handHeader(width: 960, height: 540, strides: [960, 480, 480]).prefix(20)), "truncated header: 20 of 48 bytes"),
    ])
    func aBadHeaderIsRejectedWithItsReason(bytes: [UInt8], reason: String) {
        #expect(throws: FrameChannelRejection.self) { try bytes.withUnsafeBytes { try FrameMessageHeader($0) } }
        do {
            _ = try bytes.withUnsafeBytes { try FrameMessageHeader($0) }
        } catch let rejection as FrameChannelRejection {
            #expect(rejection.description.contains(reason), "\(rejection.description)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    /// A server with collecting callbacks.
    final class Collector: Sendable {
        let frames = Locked<[FrameChannelServer.Frame]>([])
        let rejections = Locked<[FrameChannelServer.Rejection]>([])
        func server() throws -> FrameChannelServer {
            try FrameChannelServer(deliver: { frame in self.frames.withLock { $0.append(frame) } },
                                   reject: { rejection in self.rejections.withLock { $0.append(rejection) } })
        }
        /// Waits (up to 10 s) until `count` frames and rejections in all arrived.
        func wait(for count: Int) async {
            for _ in 0..<1000 where frames.withLock({ $0.count }) + rejections.withLock({ $0.count }) < count {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }

    static func path(of server: FrameChannelServer) -> String {
        String(server.url.drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" })
    }

    @Test func framesArriveWholeAndInOrderAndBrokenOnesAreCountedRejections() async throws {
        let collector = Collector()
        let server = try collector.server()
        defer { server.stop() }
        let client = try FrameChannelClient(port: server.port, path: Self.path(of: server))
        #expect(client.handshakeReply.hasPrefix("HTTP/1.1 101"))
        #expect(client.handshakeReply.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"))

        // 1. I420 960x540 packed, cut into 7 WebSocket frames: Y 518400 + U 129600 + V 129600.
        let i420 = Self.pattern(960 * 540 * 3 / 2)
        try client.sendMessage(Self.handHeader(sink: 3, width: 960, height: 540, rtp: 4_000_000_000, micros: 42, strides: [960, 480, 480]) + i420, pieces: 7)
        // 2. Truncated: 100 bytes of the V plane missing.
        try client.sendMessage(Self.handHeader(width: 960, height: 540, strides: [960, 480, 480]) + i420.dropLast(100))
        // 3. Zero stride.
        try client.sendMessage(Self.handHeader(sink: 3, width: 960, height: 540, strides: [960, 480, 0]) + i420)
        // 4. Trailing bytes after the planes.
        try client.sendMessage(Self.handHeader(sink: 3, width: 960, height: 540, strides: [960, 480, 480]) + i420 + [1, 2, 3])
        // 5. NV12 961x541 with rows padded to 1024, no decoder RTP timestamp (flags 0).
        let padded = Self.pattern(1024 * 541 + 1024 * 271, seed: 5)
        try client.sendMessage(Self.handHeader(source: 1, format: 1, flags: 0, sink: 4, width: 961, height: 541, micros: 2_000_000, strides: [1024, 1024]) + padded, pieces: 3)
        // 6. A text message.
        try client.sendMessage(Array("hello".utf8), opcode: 0x1)
        // 7. An odd-sized I420 frame, packed: 3x3 has 2x2 chroma, 9 + 4 + 4 bytes.
        try client.sendMessage(Self.handHeader(sink: 3, width: 3, height: 3, rtp: 7, strides: [3, 2, 2]) + Array(1...17))
        await collector.wait(for: 7)

        let frames = collector.frames.withLock { $0 }
        let rejections = collector.rejections.withLock { $0 }
        try #require(frames.count == 3, "frames: \(frames.count), rejections: \(rejections.map(\.reason))")
        #expect(frames[0].sinkID == 3 && frames[0].source == .remote && frames[0].timestampMicroseconds == 42)
        #expect(frames[0].buffer.format == .i420 && frames[0].buffer.width == 960 && frames[0].buffer.height == 540)
        #expect(frames[0].buffer.timestamp == 4_000_000_000)
        #expect(frames[0].buffer.storage == i420)

        let nv12 = frames[1].buffer
        #expect(frames[1].source == .localPreview && nv12.format == .nv12 && nv12.width == 961 && nv12.height == 541)
        // Without a decoder timestamp: 2 s at 90 kHz.
        #expect(nv12.timestamp == 180_000)
        // Rows repacked: Y rows of 961 out of 1024, UV rows of 2·481 = 962 out of 1024.
        nv12.withFrame { frame in
            for row in [0, 1, 540] {
                let expected = Array(padded[(row * 1024)..<(row * 1024 + 961)])
                #expect(Array(frame.plane(0).bytes[(row * frame.plane(0).stride)..<(row * frame.plane(0).stride + 961)]) == expected)
            }
            for row in [0, 270] {
                let start = 1024 * 541 + row * 1024
                let expected = Array(padded[start..<(start + 962)])
                #expect(Array(frame.plane(1).bytes[(row * frame.plane(1).stride)..<(row * frame.plane(1).stride + 962)]) == expected)
            }
        }
        #expect(frames[2].buffer.width == 3 && frames[2].buffer.storage == Array(1...17))

        try #require(rejections.count == 4, "\(rejections.map(\.reason))")
        #expect(rejections[0].reason == "truncated planes: 777500 of 777600 bytes for I420 960x540" && rejections[0].sinkID == 1)
        #expect(rejections[1].reason.contains("zero stride on plane 2") && rejections[1].sinkID == 3 && rejections[1].source == .remote)
        #expect(rejections[2].reason.hasPrefix("3 bytes after the planes"))
        #expect(rejections[3].reason.contains("text message of 5 bytes"))
        let statistics = server.statistics
        #expect(statistics.frames == 3 && statistics.rejected == 4 && statistics.planeBytes == 777_600 + 961 * 541 + 962 * 271 + 17)
        try client.sendClose()
    }

    @Test func aConnectionWithoutTheTokenIsRefused() async throws {
        let collector = Collector()
        let server = try collector.server()
        defer { server.stop() }
        let client = try FrameChannelClient(port: server.port, path: "/frames/guessed")
        #expect(client.handshakeReply.hasPrefix("HTTP/1.1 403"))
        await collector.wait(for: 1)
        #expect(collector.rejections.withLock { $0.map(\.reason) } == ["frame channel: a connection without the token was refused"])
    }

    @Test func aBrokenProtocolEndsTheConnectionWithAReason() async throws {
        let collector = Collector()
        let server = try collector.server()
        defer { server.stop() }
        let client = try FrameChannelClient(port: server.port, path: Self.path(of: server))
        try client.write([0x82, 0x05] + Array("abcde".utf8))   // unmasked client frame (RFC 6455 §5.1: must fail)
        await collector.wait(for: 1)
        #expect(collector.rejections.withLock { $0.map(\.reason) } == ["frame channel connection dropped: a client frame without a mask"])
    }
}

extension FrameChannelTests {
    /// `callscope bench`'s frame-channel measurement runs and counts every frame (its times
    /// are printed, never asserted; release numbers are in docs/video-chromium.md).
    @Test func theBenchmarkDeliversEveryFrame() throws {
        let result = try FrameChannelBenchmark.run(frames: 20)
        #expect(result.frames == 20 && result.planeBytes == 960 * 540 * 3 / 2)
        #expect(result.serverCPUMicroseconds > 0)
        print(String(format: "frame channel, debug build: server CPU %.0f µs/frame, wall %.0f µs/frame, copy %.0f µs",
                     result.serverCPUMicroseconds, result.wallMicroseconds, result.memcpyMicroseconds))
    }
}

extension FrameChannelTests {
    /// The page's rejection event becomes `videoFrameRejected` with its connection and source.
    @Test func aPageRejectionBecomesAnEvent() throws {
        let event = try JSONParser.parse(Array(#"{"kind":"videoFrameRejected","pc":"pc-2","source":"localPreview","reason":"pixel format RGBA is not I420 or NV12"}"#.utf8))
        #expect(MediaEngineEvent(page: event) == .videoFrameRejected(PeerConnectionID("pc-2"), source: .localPreview, reason: "pixel format RGBA is not I420 or NV12"))
        let unknownSource = try JSONParser.parse(Array(#"{"kind":"videoFrameRejected","pc":"pc-2","source":"screen","reason":"x"}"#.utf8))
        #expect(MediaEngineEvent(page: unknownSource) == nil)
    }
}
