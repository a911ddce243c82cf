import Foundation

/// Firewall rules inside the test namespace beyond the blackout: UDP only.
extension NetworkNamespace {
    static let udpBlockComment = "csrig-calls-udp"

    private static func udpRule(_ operation: String) -> [String] {
        inside(["/usr/sbin/iptables", "-w", "5", operation, "INPUT", "-i", innerInterface, "-p", "udp",
                "-m", "comment", "--comment", udpBlockComment, "-j", "DROP"])
    }

    /// Drops every UDP datagram arriving in the namespace (TCP still passes): a UDP-hostile network.
    func startDroppingUDP() async throws { try await Self.run(Self.udpRule("-I")) }

    /// Lets UDP in again.
    func stopDroppingUDP() async throws { try await Self.run(Self.udpRule("-D")) }
}
