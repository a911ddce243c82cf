import CallScopeCore
import CallScopeTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Makes a TCP port of the test process's 127.0.0.1 reachable at the same port of the network
/// namespace's own 127.0.0.1, where a namespaced Chromium looks for ChromiumMediaEngine's frame
/// channel (its URL says `ws://127.0.0.1:PORT/...`, and loopback is per namespace).
///
/// The listening socket is made by a thread that joined the namespace (`setns(2)` moves only
/// that thread, which then ends); accepting and connecting to the test process's port run on
/// threads of the root namespace, one per direction per connection, copying bytes as they
/// come. The bytes never cross the veth, so the caps and blackouts on it leave them alone.
final class NamespaceLoopbackForwarder: Sendable {
    let port: UInt16
    private let listener: Int32
    private let connections = Locked<[Int32]>([])

    /// Listens on 127.0.0.1:`port` inside `namespace`.
    init(port: UInt16, namespace: String = NetworkNamespace.name) throws {
        self.port = port
        let made = Locked<Result<Int32, RigError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            defer { done.signal() }
            guard NetworkNamespaceThread.join("/var/run/netns/\(namespace)") else {
                made.withLock { $0 = .failure(RigError("could not join namespace \(namespace)")) }
                return
            }
            made.withLock { $0 = Self.listen(on: port) }
        }
        thread.start()
        done.wait()
        listener = try (made.withLock { $0 } ?? .failure(RigError("no listener"))).get()
        let forwarding = Thread { [self] in acceptLoop() }
        forwarding.name = "callscope.tests.netns-forward"
        forwarding.start()
    }

    /// Stops accepting and ends every forwarded connection.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        for fd in connections.withLock({ $0 }) { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    private static func listen(on port: UInt16) -> Result<Int32, RigError> {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return .failure(RigError("socket: \(String(cString: strerror(errno)))")) }
        var address = loopback(port)
        let listening = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 && Glibc.listen(fd, 16) == 0
            }
        }
        guard listening else {
            let reason = String(cString: strerror(errno))
            close(fd)
            return .failure(RigError("listen on the namespace's 127.0.0.1:\(port): \(reason)"))
        }
        return .success(fd)
    }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        return address
    }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let inside = accept(listener, nil, nil)
            guard inside >= 0 else {
                if errno == EINTR { continue }
                return
            }
            let outside = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port)
            let connected = outside >= 0 && withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(outside, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            guard connected else {
                close(inside)
                if outside >= 0 { close(outside) }
                continue
            }
            connections.withLock { $0 += [inside, outside] }
            // Each direction ends its write side when its read side ends; the later one closes both.
            let finished = Locked(0)
            for (from, to) in [(inside, outside), (outside, inside)] {
                Thread { [connections] in
                    Self.copy(from: from, to: to)
                    shutdown(to, Int32(SHUT_WR))
                    if finished.withLock({ $0 += 1; return $0 }) == 2 {
                        connections.withLock { $0.removeAll { $0 == inside || $0 == outside } }
                        close(inside)
                        close(outside)
                    }
                }.start()
            }
        }
    }

    /// Copies bytes from `from` to `to` until either ends.
    private static func copy(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { write(to, $0.baseAddress! + sent, count - sent) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                sent += written
            }
        }
    }
}
