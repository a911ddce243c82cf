#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// A minimal HTTP/1.1 client for chromedriver: ours on 127.0.0.1, or a WebDriver endpoint
/// elsewhere (`callscope call --webdriver`), plain HTTP.
///
/// Foundation's URLSession on Linux cannot read chromedriver's replies: chromedriver writes
/// headers without a space after the colon (`Content-Length:251`), and libcurl's header callback
/// in swift-corelibs-foundation then fails with "Failed writing header" (measured with
/// chromedriver 156). This client sends one request per connection (`Connection: close`) and
/// reads headers leniently. The blocking socket work runs on a queue of its own, never on the
/// cooperative thread pool.
struct LoopbackHTTPClient: Sendable {
    /// A reply: status code and body.
    struct Reply: Sendable {
        var status: Int
        var body: [UInt8]
    }

    /// The server's host name or address (`127.0.0.1` for our own chromedriver).
    let host: String
    let port: UInt16
    private let queue = DispatchQueue(label: "callscope.chromium.http")

    init(host: String = "127.0.0.1", port: UInt16) {
        self.host = host
        self.port = port
    }

    func send(method: String, path: String, body: [UInt8]?, timeoutSeconds: Int) async throws(LoopbackHTTPError) -> Reply {
        let (host, port) = (host, port)
        let result: Result<Reply, LoopbackHTTPError> = await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(returning: Result { () throws(LoopbackHTTPError) -> Reply in
                    try Self.exchange(host: host, port: port, method: method, path: path, body: body, timeoutSeconds: timeoutSeconds)
                })
            }
        }
        return try result.get()
    }

    private static func exchange(host: String, port: UInt16, method: String, path: String, body: [UInt8]?,
                                 timeoutSeconds: Int) throws(LoopbackHTTPError) -> Reply {
        let fd = try connectedSocket(host: host, port: port, timeoutSeconds: timeoutSeconds)
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var request = "\(method) \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nConnection: close\r\n"
        if let body { request += "Content-Type: application/json; charset=utf-8\r\nContent-Length: \(body.count)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8) + (body ?? [])
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw LoopbackHTTPError("\(method) \(path): write failed: \(String(cString: strerror(errno)))") }
            sent += n
        }

        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var expectedLength: Int?
        var headerEnd: Int?
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                throw LoopbackHTTPError("\(method) \(path): no complete reply within \(timeoutSeconds) s (\(String(cString: strerror(errno))))")
            }
            if n == 0 { break }
            response += buffer[0..<n]
            if headerEnd == nil, let end = Self.headerEnd(response) {
                headerEnd = end
                expectedLength = Self.contentLength(response[0..<end])
            }
            if let headerEnd, let expectedLength, response.count - headerEnd >= expectedLength { break }
        }
        guard let headerEnd else { throw LoopbackHTTPError("\(method) \(path): reply without complete headers (\(response.count) bytes)") }
        let statusLine = String(decoding: response.prefix(while: { $0 != 13 && $0 != 10 }), as: UTF8.self)
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let status = Int(parts[1]) else {
            throw LoopbackHTTPError("\(method) \(path): bad status line '\(statusLine.prefix(80))'")
        }
        var payload = Array(response[headerEnd...])
        if let expectedLength, payload.count > expectedLength { payload = Array(payload.prefix(expectedLength)) }
        return Reply(status: status, body: payload)
    }

    /// A TCP socket connected to `host:port` (each address the name resolves to, in turn), within
    /// `timeoutSeconds` per address: an endpoint that drops our SYNs fails in seconds, not after
    /// the kernel's two minutes of retries.
    private static func connectedSocket(host: String, port: UInt16, timeoutSeconds: Int) throws(LoopbackHTTPError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw LoopbackHTTPError("cannot resolve \(host): \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(first) }
        var lastError = "no address"
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let info = next {
            next = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard fd >= 0 else { lastError = String(cString: strerror(errno)); continue }
            let flags = fcntl(fd, F_GETFL, 0)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            var result = connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen)
            if result != 0, errno == EINPROGRESS {
                var waiter = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&waiter, 1, Int32(min(timeoutSeconds, 30) * 1000))
                var socketError: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &socketError, &length)
                if ready == 1, socketError == 0 {
                    result = 0
                } else {
                    errno = ready == 0 ? ETIMEDOUT : socketError
                }
            }
            if result == 0 {
                _ = fcntl(fd, F_SETFL, flags)
                return fd
            }
            lastError = String(cString: strerror(errno))
            close(fd)
        }
        throw LoopbackHTTPError("connect to \(host):\(port): \(lastError)")
    }

    /// The index just past the blank line that ends the headers.
    private static func headerEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count where bytes[index] == 10 && bytes[index - 1] == 13 && bytes[index - 2] == 10 && bytes[index - 3] == 13 {
            return index + 1
        }
        return nil
    }

    /// `Content-Length`, with or without a space after the colon, any case.
    private static func contentLength(_ header: ArraySlice<UInt8>) -> Int? {
        let text = String(decoding: header, as: UTF8.self)
        for line in text.split(separator: "\r\n") {
            let pieces = line.split(separator: ":", maxSplits: 1)
            if pieces.count == 2, pieces[0].lowercased() == "content-length" {
                return Int(pieces[1].trimmingCharacters(in: " \t"))
            }
        }
        return nil
    }
}

private extension Substring {
    func trimmingCharacters(in set: String) -> Substring {
        var slice = self
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return slice
    }
}

/// The loopback HTTP exchange failed.
struct LoopbackHTTPError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
