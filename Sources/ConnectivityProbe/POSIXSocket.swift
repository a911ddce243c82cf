#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

#if canImport(Glibc)
private let datagramType = Int32(SOCK_DGRAM.rawValue)   // Glibc imports the socket types as an enum
private let streamType = Int32(SOCK_STREAM.rawValue)
private let sendFlags = Int32(MSG_NOSIGNAL)             // a closed TCP peer must not raise SIGPIPE
#elseif canImport(Musl)
private let datagramType = SOCK_DGRAM
private let streamType = SOCK_STREAM
private let sendFlags = Int32(MSG_NOSIGNAL)
#else
private let datagramType = SOCK_DGRAM
private let streamType = SOCK_STREAM
private let sendFlags: Int32 = 0
#endif

/// Why a socket operation failed, for the probe's detail line.
package struct SocketFailure: Error, CustomStringConvertible {
    /// What failed and why.
    package let description: String

    /// `what: strerror(errno)`.
    package static func system(_ what: String, _ code: Int32 = errno) -> SocketFailure {
        SocketFailure(description: "\(what): \(String(cString: strerror(code)))")
    }
}

/// A resolved socket address.
package struct ResolvedAddress {
    var storage = sockaddr_storage()
    var length: socklen_t = 0
    package var family: Int32 = 0

    /// The first address of `endpoint` for this socket kind (getaddrinfo).
    package static func resolve(_ endpoint: ProbeEndpoint, stream: Bool) throws(SocketFailure) -> ResolvedAddress {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = stream ? streamType : datagramType
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0, let first = list, let address = first.pointee.ai_addr else {
            if let list { freeaddrinfo(list) }
            throw SocketFailure(description: "cannot resolve \(endpoint.host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var resolved = ResolvedAddress()
        resolved.family = first.pointee.ai_family
        resolved.length = first.pointee.ai_addrlen
        withUnsafeMutableBytes(of: &resolved.storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(first.pointee.ai_addrlen)))
        }
        return resolved
    }
}

/// One non-blocking socket, closed when released. Used by one probe on one thread (the XMPP
/// WebSocket transport: one reading thread, writers serialised by a lock, `shutdown` from any).
package final class POSIXSocket {
    private let descriptor: Int32
    private let clock = ContinuousClock()

    /// A UDP (`stream: false`) or TCP socket for `family`.
    package init(family: Int32, stream: Bool) throws(SocketFailure) {
        descriptor = socket(family, stream ? streamType : datagramType, 0)
        guard descriptor >= 0 else { throw SocketFailure.system("socket") }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL, 0) | O_NONBLOCK)
        #if canImport(Darwin)
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    deinit { close(descriptor) }

    /// Connects (for UDP: fixes the peer, so datagrams from elsewhere are not read), waiting
    /// at most until `deadline`.
    package func open(to address: ResolvedAddress, deadline: ContinuousClock.Instant) throws(SocketFailure) {
        var storage = address.storage
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, address.length) }
        }
        if result == 0 { return }
        guard errno == EINPROGRESS else { throw SocketFailure.system("connect") }
        guard try wait(forWriting: true, until: deadline) else { throw SocketFailure(description: "connect timed out") }
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { throw SocketFailure.system("getsockopt") }
        guard code == 0 else { throw SocketFailure.system("connect", code) }
    }

    /// Sends all of `bytes` before `deadline`.
    package func transmit(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(SocketFailure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, sendFlags) }
            if sent > 0 {
                offset += sent
            } else if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                guard try wait(forWriting: true, until: deadline) else { throw SocketFailure(description: "send timed out") }
            } else {
                throw SocketFailure.system("send")
            }
        }
    }

    /// The next datagram or chunk of stream (at most `capacity` bytes); `nil` when nothing came
    /// before `deadline`. An empty array means the peer closed the stream.
    package func receiveBytes(capacity: Int = 2048, deadline: ContinuousClock.Instant) throws(SocketFailure) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: capacity)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count >= 0 { return Array(buffer.prefix(count)) }
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { throw SocketFailure.system("recv") }
            guard try wait(forWriting: false, until: deadline) else { return nil }
        }
    }

    /// Shuts both directions down: a thread waiting in `receiveBytes` wakes and reads the end.
    package func shutdownBothDirections() { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }

    /// Waits until the socket is readable (or writable); `false` at the deadline.
    private func wait(forWriting: Bool, until deadline: ContinuousClock.Instant) throws(SocketFailure) -> Bool {
        while true {
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
            var entry = pollfd(fd: descriptor, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0, errno != EINTR { throw SocketFailure.system("poll") }
        }
    }
}
