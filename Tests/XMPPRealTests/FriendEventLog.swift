import Connectivity
import FriendConnections
import Foundation
import Friends
import XMPP

/// Every event of one friend manager, timestamped, for the test to wait on.
final class FriendEventLog: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [(at: ContinuousClock.Instant, event: FriendManagerEvent)] = []

    var entries: [(at: ContinuousClock.Instant, event: FriendManagerEvent)] { lock.withLock { stored } }

    /// A log of `manager`'s events from now on.
    static func recording(_ manager: FriendManager) -> FriendEventLog {
        let log = FriendEventLog()
        let stream = manager.events()
        Task { for await event in stream { log.append(event) } }
        return log
    }

    private func append(_ event: FriendManagerEvent) { lock.withLock { stored.append((.now, event)) } }

    /// The first event at or after `start` matching `predicate`, waiting at most `timeout`.
    func first(after start: ContinuousClock.Instant, within timeout: Duration, where predicate: @Sendable (FriendManagerEvent) -> Bool) async -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = entries.first(where: { $0.at >= start && predicate($0.event) }) { return found.at }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// The events as offsets from `origin`, for failure messages and the measured timeline.
    func timeline(from origin: ContinuousClock.Instant) -> [String] {
        entries.map { entry in
            let offset = String(format: "%+.2f s", (entry.at - origin).seconds)
            switch entry.event {
            case .discoverabilityChanged(let status, _): return "\(offset) discoverable \(status)"
            case .pathsChanged(let friend, let paths): return "\(offset) \(friend.local) \(paths)"
            case .connectionFailed(let friend, let reason): return "\(offset) \(friend.local) failed: \(reason)"
            }
        }
    }

    static func paths(_ friend: JID, _ accept: @escaping @Sendable (FriendConnectionPaths) -> Bool) -> @Sendable (FriendManagerEvent) -> Bool {
        { if case .pathsChanged(let jid, let paths) = $0 { jid == friend && accept(paths) } else { false } }
    }

    static func discoverable(_ wanted: SelfConnectionStatus) -> @Sendable (FriendManagerEvent) -> Bool {
        { if case .discoverabilityChanged(let status, _) = $0 { status == wanted } else { false } }
    }
}

extension Duration {
    /// Seconds as a double, for printing.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
