import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP port on loopback that accepts connections (the kernel completes them from the listen
/// backlog) and never reads or writes: a server that does not answer s2s.
final class SilentListener: Sendable {
    let port: UInt16
    private let descriptor: Int32

    init() throws {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw RigFailure("silent listener: socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound, listen(descriptor, 16) == 0 else {
            Glibc.close(descriptor)
            throw RigFailure("silent listener: bind/listen failed")
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    func close() { Glibc.close(descriptor) }
}
