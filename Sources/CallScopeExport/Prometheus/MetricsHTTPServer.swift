import CallScopeCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server for Prometheus to scrape: `GET /metrics` answers the text exposition
/// the `content` closure returns; anything else is 404 (405 for other methods). One request per
/// connection, handled on one background thread; a client that sends nothing is dropped after 2 s.
///
/// For long-running processes (`callscope call --metrics-port N`): keep a
/// ``CallMetricsCollector`` behind a lock and encode its snapshot in `content`.
public final class MetricsHTTPServer: Sendable {
    private let state: ServerState

    /// The port actually bound (the kernel's choice when created with port 0).
    public let port: UInt16

    /// Binds `host:port` (IPv4; port 0 picks a free one) and starts serving. Throws
    /// ``MetricsServerError`` when the socket cannot be bound.
    public init(host: String = "127.0.0.1", port: UInt16 = 0, content: @escaping @Sendable () -> String) throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw MetricsServerError(.socket, host: host, port: port, errno: errno) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(descriptor)
            throw MetricsServerError(.address, host: host, port: port, errno: 0)
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else {
            let code = errno
            close(descriptor)
            throw MetricsServerError(.bind, host: host, port: port, errno: code)
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        let state = ServerState(listener: descriptor)
        self.state = state
        // The thread holds the state and the closure, not the server, so dropping the server
        // (deinit → stop) ends it.
        let thread = Thread { Self.acceptLoop(descriptor, state: state, content: content) }
        thread.name = "callscope-metrics-http"
        thread.start()
    }

    deinit { stop() }

    /// Stops accepting and closes the socket; waits for the serving thread. Idempotent.
    public func stop() {
        guard let descriptor = state.markStopped() else { return }
        shutdown(descriptor, Int32(SHUT_RDWR))
        close(descriptor)
        state.finished.wait()
    }

    private static func acceptLoop(_ descriptor: Int32, state: ServerState, content: @Sendable () -> String) {
        defer { state.finished.signal() }
        while state.isRunning {
            let client = accept(descriptor, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            serve(client, content: content)
            close(client)
        }
    }

    private static func serve(_ client: Int32, content: @Sendable () -> String) {
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while request.count < 16_384 {
            let count = read(client, &buffer, buffer.count)
            if count <= 0 { break }
            request += buffer[0..<count]
            if containsTerminator(request) { break }
        }
        let line = String(decoding: request.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
        let parts = line.split(separator: " ")
        let response: (status: String, type: String, body: String)
        if parts.count < 2 {
            response = ("400 Bad Request", "text/plain", "bad request\n")
        } else if parts[0] != "GET" && parts[0] != "HEAD" {
            response = ("405 Method Not Allowed", "text/plain", "only GET\n")
        } else if parts[1] == "/metrics" || parts[1].hasPrefix("/metrics?") {
            response = ("200 OK", PrometheusTextEncoder.contentType, content())
        } else {
            response = ("404 Not Found", "text/plain", "try /metrics\n")
        }
        let body = Array(response.body.utf8)
        let head = "HTTP/1.1 \(response.status)\r\nContent-Type: \(response.type)\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        let bytes = Array(head.utf8) + (parts.first == "HEAD" ? [] : body)
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if written <= 0 { return }
            sent += written
        }
    }

    private static func containsTerminator(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return true
        }
        return false
    }
}

/// Whether the server runs, shared with its thread.
private final class ServerState: Sendable {
    private let running = Locked(true)
    let listener: Int32
    let finished = DispatchSemaphore(value: 0)

    init(listener: Int32) { self.listener = listener }

    var isRunning: Bool { running.withLock { $0 } }

    /// The socket to close when this call stopped the server; nil when it was already stopped.
    func markStopped() -> Int32? {
        running.withLock { running in
            guard running else { return nil }
            running = false
            return listener
        }
    }
}

/// The metrics server could not start.
public struct MetricsServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed.
    public enum Code: Sendable, Hashable {
        /// No socket could be created.
        case socket
        /// The host is not an IPv4 address.
        case address
        /// The address could not be bound or listened on (in use, no permission).
        case bind
    }

    /// What failed.
    public var code: Code
    /// The host asked for.
    public var host: String
    /// The port asked for.
    public var port: UInt16
    /// The system error number, 0 when none.
    public var errno: Int32

    /// Creates an error.
    public init(_ code: Code, host: String, port: UInt16, errno: Int32) {
        self.code = code
        self.host = host
        self.port = port
        self.errno = errno
    }

    /// One line: what failed and what to check.
    public var description: String {
        switch code {
        case .socket: "cannot create a socket (errno \(errno))"
        case .address: "'\(host)' is not an IPv4 address"
        case .bind: "cannot listen on \(host):\(port) (errno \(errno)): is the port in use?"
        }
    }
}
