#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ports the kernel says are free right now, for the processes we start (never fixed ports:
/// parallel runs must not collide).
package enum FreePort {
    /// A TCP port on `127.0.0.1` that was free when asked (bind to port 0, read it back, close).
    /// `nil` when the kernel refused.
    package static func tcp() -> UInt16? { probe(stream: true, port: 0) }

    /// Whether `port` can be bound for UDP on all addresses right now.
    package static func udpIsFree(_ port: UInt16) -> Bool { probe(stream: false, port: port, any: true) != nil }

    private static func probe(stream: Bool, port: UInt16, any: Bool = false) -> UInt16? {
        #if canImport(Glibc)
        let type = Int32(stream ? SOCK_STREAM.rawValue : SOCK_DGRAM.rawValue)
        #else
        let type = stream ? SOCK_STREAM : SOCK_DGRAM
        #endif
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = any ? 0 : UInt32(0x7f00_0001).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return nil }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        return UInt16(bigEndian: address.sin_port)
    }
}
