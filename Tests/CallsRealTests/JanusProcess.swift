import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A Janus started for one test on 127.0.0.1 with the rig's configuration (Rig/janus/*.jcfg,
/// placeholders filled in: a free HTTP port and a free RTP range).
final class JanusProcess: Sendable {
    let url: URL
    private let service: ServiceProcess

    /// Starts Janus on `port` (a free one when `nil`; a given one to restart "the same" Janus).
    init(port fixedPort: UInt16? = nil) async throws {
        let port = try fixedPort ?? ServiceProcess.freePort()
        let rtp = try ServiceProcess.freeUDPRange(count: 200)
        let url = URL(string: "http://127.0.0.1:\(port)/janus")!
        self.url = url
        service = try await ServiceProcess("janus", executable: RealComponents.janus, at: url.absoluteString,
                                           readyWithin: .seconds(20), pollingEvery: .milliseconds(200), stopGrace: .seconds(5)) { directory in
            let configs = directory + "/conf"
            try FileManager.default.createDirectory(atPath: configs, withIntermediateDirectories: true)
            let substitutions = ["@@CONFIGS_FOLDER@@": configs, "@@RTP_PORT_RANGE@@": "\(rtp.lowerBound)-\(rtp.upperBound)",
                                 "@@ICE_ENFORCE_LIST@@": "lo", "@@HTTP_PORT@@": "\(port)", "@@HTTP_IP@@": "127.0.0.1"]
            let source = RealComponents.repository.appendingPathComponent("Rig/janus")
            for name in try FileManager.default.contentsOfDirectory(atPath: source.path) where name.hasSuffix(".jcfg") {
                try ServiceProcess.fill(source.appendingPathComponent(name), substitutions, to: configs + "/" + name)
            }
            return ["-F", configs, "-C", configs + "/janus.jcfg", "-i", "127.0.0.1", "-o", "-d", "5", "-L", directory + "/janus.log"]
        } answers: {
            guard let (data, _) = try? await URLSession.shared.data(from: url.appendingPathComponent("info")) else { return false }
            return String(decoding: data, as: UTF8.self).contains("janus.plugin.videoroom")
        }
    }

    func stop() async { await service.stop() }

    /// Janus' log lines about ICE (restarts, remote candidates, component states, selected
    /// pairs, failures, hangups; `-d 5` for the selected pairs): Janus' side of a reconnection
    /// that missed its bound.
    func iceLog() -> [String] {
        guard let data = FileManager.default.contents(atPath: service.directory + "/janus.log") else { return ["(no janus.log)"] }
        let text = String(decoding: data, as: UTF8.self)
        let wanted = ["ICE restart", "Restarting ICE", "selected pair", "Component state changed", "ICE failed", "hangup",
                      "Trickle candidate", "remote candidate", "Failed to add"]
        return text.split(separator: "\n").map(String.init).filter { line in wanted.contains { line.contains($0) } }
    }

    /// Kills Janus outright (SIGKILL): no goodbye to anyone, as in a crash.
    func kill() async { await service.kill() }
}
