import Calls
import Foundation
import RTCStats

extension ChromiumMediaEngine {
    /// The engine on a new session of the WebDriver endpoint `endpoint` (``ChromiumOptions/webDriverURL``):
    /// its browser opens `file:///` (a secure context on the browser's own host, so that
    /// `getUserMedia` is allowed) and the engine script is injected there over WebDriver; the
    /// browser needs no route back to us, except for video frames
    /// (``ChromiumOptions/frameChannelAddress``).
    static func attach(to endpoint: URL, _ options: ChromiumOptions) async throws(MediaEngineError) -> ChromiumMediaEngine {
        guard let driver = WebDriverClient(endpoint: endpoint) else {
            throw MediaEngineError(.engineUnavailable, "--webdriver takes http://HOST:PORT[/PATH], not \(endpoint.absoluteString)")
        }
        if let problem = await driver.readiness() {
            throw MediaEngineError(.engineUnavailable, "the WebDriver endpoint \(endpoint.absoluteString) is not ready: \(problem)")
        }
        let capabilities: JSONValue = .object([
            StatsField("browserName", .string("chrome")),
            StatsField("goog:chromeOptions", .object([
                StatsField("args", .array(options.chromiumArguments(profile: nil).map(JSONValue.string))),
            ])),
        ])
        let (session, version) = try await driver.newSession(capabilities: capabilities)
        let engine = ChromiumMediaEngine(driver: driver, process: nil, session: session, browserVersion: version,
                                         pollInterval: options.eventPollInterval, frameChannelAddress: options.frameChannelAddress)
        do throws(MediaEngineError) {
            try await driver.setScriptTimeout(session: session, milliseconds: 30_000)
            try await driver.navigate(session: session, to: "file:///")
            let installed = try await driver.executeSync(session: session, script: injection)
            guard installed.bool == true else {
                throw MediaEngineError(.engineUnavailable, "the engine page could not be installed in the browser at \(endpoint.absoluteString) "
                                           + "(secure context: \(JSONWriter.string(installed).prefix(80)))")
            }
            _ = try await engine.run("drain", [])
        } catch {
            await engine.shutdown()
            throw error
        }
        await engine.startPolling()
        return engine
    }

    /// Replaces the directory listing with an empty page and runs the page's scripts in it (the
    /// frame pump, then the engine, as `EnginePage.html` has them);
    /// returns whether the page is a secure context with the engine installed.
    private static let injection = """
        document.documentElement.innerHTML = '<head><meta charset="utf-8"><title>CallScope media engine</title></head><body></body>';
        \(EnginePage.framePumpScript)
        \(EnginePage.script)
        return window.isSecureContext && !!window.callscopeEngine ? true : String(window.isSecureContext);
        """
}
