import Connectivity
import FriendConnections
import Foundation
import Friends

/// `callscope presence --paths`: the friend manager's events, in the same formats.
extension PresencePrinter {
    func print(_ event: FriendManagerEvent) {
        switch event {
        case .discoverabilityChanged(let status, let evidence):
            let probes = evidence.results.map { "\($0.probe.rawValue) \($0.succeeded ? "ok" : "failed") \(Self.milliseconds($0.elapsed)) ms" }
            line(text: "discoverable: \(status.rawValue) (\(probes.joined(separator: ", ")))",
                 json: ["event": "discoverability", "status": status.rawValue,
                        "probes": evidence.results.map { ["probe": $0.probe.rawValue, "ok": $0.succeeded, "ms": Double(Self.milliseconds($0.elapsed)) ?? 0, "detail": $0.detail] }])
        case .pathsChanged(let friend, let paths):
            let names = [(FriendConnectionPaths.udpDirect, "udpDirect"), (.udpRelay, "udpRelay"), (.tcpRelay, "tcpRelay")].filter { paths.contains($0.0) }.map(\.1)
            line(text: "paths \(friend) \(paths)", json: ["event": "paths", "jid": "\(friend)", "paths": names])
        case .connectionFailed(let friend, let reason):
            line(text: "friend connection \(friend) failed: \(reason)", json: ["event": "friend-connection-failed", "jid": "\(friend)", "reason": reason])
        }
    }
}
