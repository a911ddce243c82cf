import CallsChromium
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A Janus started for one test on 127.0.0.1 with the rig's configuration (Rig/janus/*.jcfg,
/// placeholders filled in: a free HTTP port and a free RTP range).
final class JanusProcess: Sendable {
    let url: URL
    let directory: String
    private let process: ChildProcess

    /// Starts Janus on `port` (a free one when `nil`; a given one to restart "the same" Janus).
    init(port fixedPort: UInt16? = nil) async throws {
        directory = NSTemporaryDirectory() + "callscope-janus-\(UUID().uuidString)"
        let configs = directory + "/conf"
        try FileManager.default.createDirectory(atPath: configs, withIntermediateDirectories: true)
        guard let port = fixedPort ?? FreePort.tcp() else { throw JanusProcessError("no free TCP port") }
        let rtp = try Self.freeUDPRange(count: 200)
        let substitutions = ["@@CONFIGS_FOLDER@@": configs, "@@RTP_PORT_RANGE@@": "\(rtp.lowerBound)-\(rtp.upperBound)",
                             "@@ICE_ENFORCE_LIST@@": "lo", "@@HTTP_PORT@@": "\(port)", "@@HTTP_IP@@": "127.0.0.1"]
        let source = RealComponents.repository.appendingPathComponent("Rig/janus")
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path) where name.hasSuffix(".jcfg") {
            var text = try String(contentsOf: source.appendingPathComponent(name), encoding: .utf8)
            for (key, value) in substitutions { text = text.replacingOccurrences(of: key, with: value) }
            try text.write(toFile: configs + "/" + name, atomically: true, encoding: .utf8)
        }
        process = try ChildProcess(executable: RealComponents.janus,
                                   arguments: ["-F", configs, "-C", configs + "/janus.jcfg", "-i", "127.0.0.1", "-o", "-d", "4",
                                               "-L", directory + "/janus.log"],
                                   outputPath: directory + "/janus.out")
        url = URL(string: "http://127.0.0.1:\(port)/janus")!
        progress("janus started at \(url)")
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let (data, _) = try? await URLSession.shared.data(from: url.appendingPathComponent("info")),
               String(decoding: data, as: UTF8.self).contains("janus.plugin.videoroom") {
                progress("janus ready")
                return
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        await stop()
        throw JanusProcessError("janus did not answer at \(url) within 20 s (log: \(directory)/janus.log)")
    }

    func stop() async { await process.stop(grace: .seconds(5)) }

    /// Kills Janus outright (SIGKILL): no goodbye to anyone, as in a crash.
    func kill() async { await process.killAbruptly() }

    /// `count` consecutive UDP ports that are all free now, starting at a random offset.
    private static func freeUDPRange(count: UInt16) throws -> ClosedRange<UInt16> {
        for _ in 0..<50 {
            let low = UInt16.random(in: 20_000...(60_000 - count))
            let range = low...(low + count - 1)
            if range.allSatisfy(FreePort.udpIsFree) { return range }
        }
        throw JanusProcessError("no free UDP range of \(count) ports")
    }
}

struct JanusProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
