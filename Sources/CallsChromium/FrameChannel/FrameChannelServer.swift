#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CallScopeCore
import Foundation
import VideoFrames
import WebSocket

/// The Swift end of the frame channel: a WebSocket server on `127.0.0.1`, or on the address
/// given for a remote browser (a port the kernel picks), that the engine page connects to, one connection per video track it reads. Each
/// connection has a thread of its own that reads frame messages straight into their frame's
/// memory, checks them and hands them on, so no frame ever passes through the WebDriver
/// command channel or the engine's actor (where the stats pump runs).
///
/// Only a client that knows ``url`` (it carries a random token) is accepted.
final class FrameChannelServer: Sendable {
    /// One checked frame.
    struct Frame: Sendable {
        var sinkID: UInt32
        var source: FrameChannelSource
        var buffer: VideoFrameBuffer
        var timestampMicroseconds: Int64
    }

    /// A message that was not made a frame, with the connection and source when the header
    /// named them.
    struct Rejection: Sendable {
        var sinkID: UInt32?
        var source: FrameChannelSource?
        var reason: String
    }

    /// Counters since the server started.
    struct Statistics: Sendable, Hashable {
        /// Frames handed on.
        var frames = 0
        /// Plane bytes of those frames.
        var planeBytes = 0
        /// Messages not made frames.
        var rejected = 0
        /// CPU time of the connection threads (reading, checking, handing on), nanoseconds.
        var cpuNanoseconds: Int64 = 0
        /// Connections accepted.
        var connections = 0
    }

    /// The address the page connects to.
    let url: String
    let port: UInt16

    private let listener: Int32
    private let token: String
    private let deliver: @Sendable (Frame) -> Void
    private let reject: @Sendable (Rejection) -> Void
    private let state = Locked(State())

    private struct State {
        var statistics = Statistics()
        var connections: [Int32] = []
        var stopped = false
    }

    /// Listens on a free port of `address` (an IPv4 address of this host: `127.0.0.1` for a
    /// browser of ours); `deliver` and `reject` are called on the connection threads.
    init(address: String = "127.0.0.1", deliver: @escaping @Sendable (Frame) -> Void,
         reject: @escaping @Sendable (Rejection) -> Void) throws(FrameChannelRejection) {
        var host = in_addr()
        guard inet_pton(AF_INET, address, &host) == 1 else {
            throw FrameChannelRejection("frame channel: \(address) is not an IPv4 address")
        }
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw FrameChannelRejection("frame channel socket: \(String(cString: strerror(errno)))") }
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = 0
        socketAddress.sin_addr = host
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw FrameChannelRejection("frame channel listen on \(address): \(reason)")
        }
        listener = fd
        port = UInt16(bigEndian: socketAddress.sin_port)
        token = String(UInt64.random(in: .min ... .max), radix: 16) + String(UInt64.random(in: .min ... .max), radix: 16)
        url = "ws://\(address):\(port)/frames/\(token)"
        self.deliver = deliver
        self.reject = reject
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "callscope.frames.accept"
        thread.start()
    }

    /// The counters so far.
    var statistics: Statistics { state.withLock { $0.statistics } }

    /// Stops accepting and ends every connection; their threads finish on their own.
    func stop() {
        let connections = state.withLock { state -> [Int32] in
            guard !state.stopped else { return [] }
            state.stopped = true
            return state.connections
        }
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in connections { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    deinit {
        stop()
        close(listener)
    }

    // MARK: - Connections

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.append(fd)
                state.statistics.connections += 1
                return true
            }
            guard admitted else { close(fd); return }
            let thread = Thread { [self] in
                serve(fd)
                state.withLock { $0.connections.removeAll { $0 == fd } }
                close(fd)
            }
            thread.name = "callscope.frames.connection"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        let input = SocketByteReader(fd: fd)
        guard let head = Self.readRequestHead(input) else { return }
        let request: WebSocketServerHandshake.Request
        do {
            request = try WebSocketServerHandshake.parse(head)
        } catch {
            reject(Rejection(reason: "frame channel handshake: \(error.message)"))
            return
        }
        guard request.path == "/frames/\(token)" else {
            Self.sendAll(fd, WebSocketServerHandshake.forbidden)
            reject(Rejection(reason: "frame channel: a connection without the token was refused"))
            return
        }
        guard Self.sendAll(fd, WebSocketServerHandshake.response(for: request)) else { return }
        let messages = WebSocketMessageReader(input: input)
        let cpuAtStart = Self.threadCPUNanoseconds()
        var counted: Int64 = 0
        defer {
            let total = Self.threadCPUNanoseconds() - cpuAtStart
            state.withLock { $0.statistics.cpuNanoseconds += total - counted }
        }
        do throws(WebSocketMessageReader.Failure) {
            while true {
                let outcome = try FrameMessageReading.read(from: messages)
                let cpu = Self.threadCPUNanoseconds() - cpuAtStart
                switch outcome {
                case .frame(let frame):
                    deliver(frame)
                    state.withLock {
                        $0.statistics.frames += 1
                        $0.statistics.planeBytes += frame.buffer.storage.count
                        $0.statistics.cpuNanoseconds += cpu - counted
                    }
                case .rejected(let rejection):
                    reject(rejection)
                    state.withLock {
                        $0.statistics.rejected += 1
                        $0.statistics.cpuNanoseconds += cpu - counted
                    }
                }
                counted = cpu
            }
        } catch {
            if case .protocolViolation(let reason) = error {
                reject(Rejection(reason: "frame channel connection dropped: \(reason)"))
            }
        }
    }

    /// The request head, up to the blank line; `nil` when the peer closed first or sent more
    /// than ``WebSocketServerHandshake/maximumRequestBytes``.
    private static func readRequestHead(_ input: SocketByteReader) -> [UInt8]? {
        var head: [UInt8] = []
        while head.count < WebSocketServerHandshake.maximumRequestBytes {
            guard let byte = input.readBytes(1) else { return nil }
            head += byte
            if head.count >= 4, head.suffix(4).elementsEqual([13, 10, 13, 10]) { return head }
        }
        return nil
    }

    @discardableResult
    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// CPU time of the calling thread.
    static func threadCPUNanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}
