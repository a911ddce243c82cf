#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The device's interface addresses (getifaddrs): when the set changes, the network changed
/// (an interface came or went, an address was added or removed) and discoverability is
/// re-evaluated at once. A poll, not a notification: it needs no platform framework, and the
/// watcher reads it between rounds (iOS apps would feed `NWPathMonitor` updates instead).
struct InterfaceAddresses: Equatable {
    /// "name family address" for every interface that is up, sorted.
    let entries: [String]

    /// The current set; empty if getifaddrs fails.
    static func current() -> InterfaceAddresses {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return InterfaceAddresses(entries: []) }
        defer { freeifaddrs(list) }
        var entries: [String] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard entry.pointee.ifa_flags & UInt32(IFF_UP) != 0, let address = entry.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let name = String(cString: entry.pointee.ifa_name)
            entries.append("\(name) \(family) \(String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        return InterfaceAddresses(entries: entries.sorted())
    }
}

extension InterfaceAddresses {
    /// An element each time the set differs from the one read before, read every `interval`
    /// until the stream is no longer iterated.
    static func changes(every interval: Duration) -> AsyncStream<Void> {
        AsyncStream { continuation in
            let poll = Task {
                var last = current()
                while !Task.isCancelled {
                    try? await Task.sleep(for: interval)
                    let now = current()
                    if now != last {
                        last = now
                        continuation.yield()
                    }
                }
            }
            continuation.onTermination = { _ in poll.cancel() }
        }
    }
}
