import CallsChromium
import Foundation
import Testing

extension FriendsNamespace {
    /// Prosody and coturn with the users alice and bob, Alice's headless Chromium outside and
    /// Bob's inside this namespace (chromedriver stays outside and talks to it over a pipe), for
    /// `body`. Afterwards, whether `body` threw or not: `beforeStop` (to undo what the test
    /// changed), both Chromiums shut down, the servers stopped. An error is recorded as an issue
    /// prefixed with `label`.
    func withAliceAndBob(label: String, fakeCameraFrameRate: Int? = nil,
                         beforeStop: (ProsodyServers) -> Void = { _ in },
                         _ body: (ProsodyServers, ChromiumMediaEngine, ChromiumMediaEngine) async throws -> Void) async {
        let work = NSTemporaryDirectory() + "callscope-\(label)-\(UUID().uuidString)"
        var engines: [ChromiumMediaEngine] = []
        var servers: ProsodyServers?
        do {
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
            servers = try await ProsodyServers(users: ["alice": "alice-pw", "bob": "bob-pw"], turnAddress: FriendsNamespace.rootAddress)
            var outside = ChromiumOptions(), inside = ChromiumOptions(chromiumPath: try chromiumWrapper(in: work), extraArguments: ["--remote-debugging-pipe"])
            if let fakeCameraFrameRate {
                outside.fakeCameraFrameRate = fakeCameraFrameRate
                inside.fakeCameraFrameRate = fakeCameraFrameRate
            }
            engines.append(try await ChromiumMediaEngine.launch(outside))
            engines.append(try await ChromiumMediaEngine.launch(inside))
            try await body(try #require(servers), engines[0], engines[1])
        } catch {
            Issue.record("\(label): \(error)")
        }
        if let servers { beforeStop(servers) }
        for engine in engines { await engine.shutdown() }
        await servers?.stop()
        try? FileManager.default.removeItem(atPath: work)
    }
}
