import Connectivity
import ConnectivityProbe
import Foundation
import XMPP
import XMPPClient

/// `callscope presence`'s output: one line per event, text or ndjson, with the time since start.
final class PresencePrinter: Sendable {
    private let format: PresenceCommand.Format
    private let start = ContinuousClock.now

    init(format: PresenceCommand.Format) { self.format = format }

    func print(_ event: XMPPClientEvent) {
        switch event {
        case .connected(let jid, let resumed):
            line(text: "\(resumed ? "resumed" : "connected") \(jid)", json: ["event": "connected", "jid": "\(jid)", "resumed": resumed])
        case .connectionLost(let error):
            line(text: "connection lost: \(error) (reconnecting)", json: ["event": "connection-lost", "error": "\(error)"])
        case .disconnected(let error):
            line(text: "disconnected" + (error.map { ": \($0)" } ?? ""), json: ["event": "disconnected", "error": error.map { "\($0)" } as Any])
        case .roster(.friendAdded(let friend)), .roster(.friendChanged(let friend)):
            let presence = Self.presence(friend.availability)
            line(text: "friend \(friend.jid) \(presence)", json: ["event": "friend", "jid": "\(friend.jid)", "presence": presence])
        case .roster(.friendRemoved(let jid)):
            line(text: "friend \(jid) removed", json: ["event": "friend-removed", "jid": "\(jid)"])
        case .roster(.subscriptionRequest(let from)):
            line(text: "friend request from \(from)", json: ["event": "friend-request", "from": "\(from)"])
        case .droppedMessage(let error):
            line(text: "dropped a message: \(error)", json: ["event": "dropped-message", "error": "\(error)"])
        }
    }

    func discoverability(_ reading: (DiscoverabilityWatcher.Reading, [ExternalService])?) {
        guard let (reading, servers) = reading else {
            line(text: "discoverable: unknown (the server announces no STUN server)", json: ["event": "discoverability", "status": NSNull()])
            return
        }
        let probes = reading.evidence.results.map { result in
            "\(result.probe.rawValue) \(result.succeeded ? "ok" : "failed") \(Self.milliseconds(result.elapsed)) ms"
        }
        let serverText = servers.map { "\($0.type):\($0.host):\($0.port ?? 3478)/\($0.transport ?? "udp")" }
        line(text: "discoverable: \(reading.status.rawValue) (\(probes.joined(separator: ", ")); \(serverText.joined(separator: " ")))",
             json: ["event": "discoverability", "status": reading.status.rawValue, "servers": serverText,
                    "probes": reading.evidence.results.map { ["probe": $0.probe.rawValue, "ok": $0.succeeded, "ms": Double(Self.milliseconds($0.elapsed)) ?? 0, "detail": $0.detail] }])
    }

    private static func presence(_ availability: FriendAvailability) -> String {
        switch availability {
        case .offline: "offline"
        case .available(let show): show.map { "online (\($0))" } ?? "online"
        }
    }

    func line(text: String, json: [String: Any]) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        let output: String
        switch format {
        case .text:
            output = String(format: "+%.2f s  ", milliseconds / 1000) + text
        case .ndjson:
            var object = json
            object["t_ms"] = (milliseconds * 10).rounded() / 10
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
            output = String(decoding: data, as: UTF8.self)
        }
        FileHandle.standardOutput.write(Data((output + "\n").utf8))
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }
}
