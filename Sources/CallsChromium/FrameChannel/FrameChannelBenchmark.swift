#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CallScopeCore
import Foundation
import WebSocket

/// The Swift end of the frame channel on its own (`callscope bench`, docs/video-chromium.md):
/// a loopback client sends the same masked 960x540 I420 frame message as fast as the server
/// takes it; the server reads, unmasks, checks and wraps each frame as the engine does, into a
/// sink that keeps nothing. Reported per frame: the server threads' CPU time, the wall time,
/// and a copy of the frame's planes into new memory measured in the same run (the floor any
/// fresh frame pays).
package enum FrameChannelBenchmark {
    /// One measurement.
    package struct Result: Sendable {
        /// Frames sent and delivered.
        package var frames: Int
        /// Plane bytes per frame.
        package var planeBytes: Int
        /// CPU time of the server's connection thread per frame, µs.
        package var serverCPUMicroseconds: Double
        /// Wall time per frame, µs (client and server run at once on different threads).
        package var wallMicroseconds: Double
        /// The median copy of the planes into new memory, µs.
        package var memcpyMicroseconds: Double
    }

    /// Sends `frames` frames of `width` x `height` I420 through a fresh server.
    package static func run(frames: Int = 300, width: Int = 960, height: Int = 540) throws -> Result {
        let delivered = Locked(0)
        let server = try FrameChannelServer(deliver: { _ in delivered.withLock { $0 += 1 } }, reject: { _ in })
        defer { server.stop() }
        let planes = width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
        let message = maskedMessage(header: FrameMessageHeader.encode(source: .remote, format: .i420, sinkID: 1, width: width, height: height,
                                                                        rtpTimestamp: 0, timestampMicroseconds: 0,
                                                                        strides: [width, (width + 1) / 2, (width + 1) / 2]),
                                    planes: planes)
        let fd = try openConnection(port: server.port, path: String(server.url.dropFirst("ws://127.0.0.1:\(server.port)".count)))
        defer { close(fd) }
        let started = ContinuousClock.now
        for _ in 0..<frames { guard sendAll(fd, message) else { throw FrameChannelRejection("benchmark: the server closed the connection") } }
        while delivered.withLock({ $0 }) < frames {
            guard ContinuousClock.now - started < .seconds(120) else { throw FrameChannelRejection("benchmark: frames still missing after 120 s") }
            usleep(1000)
        }
        let wall = ContinuousClock.now - started
        let statistics = server.statistics
        return Result(frames: frames, planeBytes: planes,
                      serverCPUMicroseconds: Double(statistics.cpuNanoseconds) / 1000 / Double(frames),
                      wallMicroseconds: (Double(wall.components.seconds) * 1e6 + Double(wall.components.attoseconds) / 1e12) / Double(frames),
                      memcpyMicroseconds: memcpyTime(bytes: planes))
    }

    /// A binary message of `header` and `planes` bytes, in one masked frame.
    private static func maskedMessage(header: [UInt8], planes: Int) -> [UInt8] {
        let payload = header + (0..<planes).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        return WebSocketFrameEncoder.frame(.binary, payload, maskingKey: [0x5a, 0x13, 0xc7, 0x81])
    }

    private static func openConnection(port: UInt16, path: String) throws -> Int32 {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else { throw FrameChannelRejection("benchmark: cannot connect to the frame channel") }
        let handshake = WebSocketClientHandshake(host: "127.0.0.1", port: port, path: path, subprotocol: nil, key: "YmVuY2htYXJrIGtleSAxMg==")
        guard sendAll(fd, handshake.request) else { throw FrameChannelRejection("benchmark: handshake not sent") }
        var reply: [UInt8] = []
        var byte: UInt8 = 0
        while !reply.suffix(4).elementsEqual([13, 10, 13, 10]), read(fd, &byte, 1) == 1 { reply.append(byte) }
        do {
            try handshake.validate(responseHeader: reply)
        } catch {
            throw FrameChannelRejection("benchmark: handshake refused: \(error.message)")
        }
        return fd
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// The median of 50 copies of `bytes` bytes into a new array (as each frame's planes are;
    /// the allocator hands back the block just freed, so the copy is cache-warm), µs.
    private static func memcpyTime(bytes: Int) -> Double {
        let source = [UInt8](repeating: 1, count: bytes)
        var times: [Double] = []
        for _ in 0..<50 {
            let started = ContinuousClock.now
            let copy = [UInt8](unsafeUninitializedCapacity: bytes) { destination, initialized in
                source.withUnsafeBytes { UnsafeMutableRawBufferPointer(destination).copyMemory(from: $0) }
                initialized = bytes
            }
            let elapsed = ContinuousClock.now - started
            withExtendedLifetime(copy) {}
            times.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
        }
        return times.sorted()[times.count / 2]
    }
}
