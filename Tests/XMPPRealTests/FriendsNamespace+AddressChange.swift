import CallScopeTestSupport
import Connectivity
import ConnectivityProbe
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension FriendsNamespace {
    /// The second subnet Bob's namespace moves to: `csrig-fr1` 10.201.6.2, the root side of the
    /// veth 10.201.6.1 (added beside 10.201.5.1), Bob's default route through it (so coturn
    /// on 10.201.5.1 is still reached).
    static let movedRootAddress = "10.201.6.1"
    static let movedInnerAddress = "10.201.6.2"

    /// Gives the root side of the veth `root` as well (a /24), before anything starts: so that
    /// the change itself touches only the namespace (Alice's interface watcher in the root
    /// namespace would otherwise see the new address and restart ICE for its own reasons).
    func prepareSecondSubnet(root: String = movedRootAddress) throws {
        try Self.run(["/usr/sbin/ip", "addr", "add", root + "/24", "dev", Self.rootInterface])
    }

    /// A network change inside the namespace: the veth's address is removed and `inner` added
    /// (a /24) and the default route inside goes through `root` (see ``prepareSecondSubnet(root:)``):
    /// what a phone moving to another network sees.
    func changeAddress(from oldInner: String = innerAddress, to inner: String = movedInnerAddress, root: String = movedRootAddress) throws {
        let ip = "/usr/sbin/ip"
        try Self.run(Self.inside([ip, "addr", "del", oldInner + "/24", "dev", Self.innerInterface]))
        try Self.run(Self.inside([ip, "addr", "add", inner + "/24", "dev", Self.innerInterface]))
        try Self.run(Self.inside([ip, "route", "replace", "default", "via", root, "dev", Self.innerInterface]))
    }

    /// The addresses of the namespace's veth, as `ip` prints them.
    func innerAddresses() throws -> [String] {
        try Self.run(Self.inside(["/usr/sbin/ip", "-o", "-4", "addr", "show", "dev", Self.innerInterface]))
            .split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ")
                return fields.firstIndex(of: "inet").map { String(fields[$0 + 1]) }
            }
    }
}

/// When Bob's discoverability probes ran (the test's evidence that a change made him probe).
final class ProbeTimes: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [(at: ContinuousClock.Instant, probe: DiscoverabilityProbe)] = []

    func append(_ probe: DiscoverabilityProbe) { lock.withLock { stored.append((.now, probe)) } }

    /// The first probe at or after `start`.
    func first(after start: ContinuousClock.Instant) -> ContinuousClock.Instant? { lock.withLock { stored.first { $0.at >= start }?.at } }
}

/// Bob's prober in the namespace that also watches the namespace's interface addresses (a
/// thread inside it reads getifaddrs every 250 ms, like `DiscoverabilityProber` does for the
/// device), so an address change there is a network change for Bob's friend manager.
struct FriendsNamespaceWatchingProber: DiscoverabilityProbing {
    let inner: FriendsNamespaceProber
    let times: ProbeTimes

    var tcpRelayConfigured: Bool { inner.tcpRelayConfigured }

    func probe(_ probe: DiscoverabilityProbe) async -> DiscoverabilityProbeResult {
        times.append(probe)
        return await inner.probe(probe)
    }

    func networkChanges() -> AsyncStream<Void>? {
        AsyncStream { continuation in
            let stop = StopFlag()
            let thread = Thread {
                guard NetworkNamespaceThread.join("/var/run/netns/\(FriendsNamespace.name)") else {
                    continuation.finish()
                    return
                }
                var last = Self.addresses()
                while !stop.isSet {
                    usleep(250_000)
                    let now = Self.addresses()
                    if now != last {
                        last = now
                        continuation.yield()
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in stop.set() }
            thread.start()
        }
    }

    /// "name address" of every IPv4/IPv6 address of the calling thread's namespace, sorted.
    static func addresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var entries: [String] = []
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            entries.append(String(cString: entry.pointee.ifa_name) + " " + String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return entries.sorted()
    }
}

/// A flag one thread sets and another polls.
final class StopFlag: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}
