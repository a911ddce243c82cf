import Calls
import RTCStats

extension WebDriverClient {
    /// Runs one engine-page command, `window.callscopeEngine.run(command, args)`, and returns
    /// its reply.
    ///
    /// Through chromedriver's DevTools passthrough (`goog/cdp/execute`, `Runtime.evaluate` with
    /// `awaitPromise` and `returnByValue`) when the endpoint has it, else as WebDriver
    /// `execute/async` with `fallbackScript`. chromedriver keeps every value an `execute`
    /// script returns alive in the page's JavaScript heap (measured with chromedriver 156: a
    /// 20 kB result retains 19.6 kB after a forced garbage collection, every call; over
    /// `Runtime.evaluate`, 0.0-0.2 kB); with a 10-20 kB stats report a second per connection,
    /// that was the renderer's steady growth of ~2 MB a minute over a long call.
    func engineCommand(session: String, _ command: String, _ args: [JSONValue], fallbackScript: String) async throws(MediaEngineError) -> JSONValue {
        if usesDevToolsEvaluate.withLock({ $0 }) {
            let invocation = JSONWriter.string(.string(command)) + ", " + JSONWriter.string(.array(args))
            let expression = "window.callscopeEngine ? window.callscopeEngine.run(\(invocation)) "
                + ": Promise.resolve({ok: false, error: 'the engine page is not loaded', events: []})"
            let parameters: JSONValue = .object([
                StatsField("expression", .string(expression)), StatsField("awaitPromise", .bool(true)),
                StatsField("returnByValue", .bool(true)),
            ])
            do throws(MediaEngineError) {
                let value = try await call("POST", "/session/\(session)/goog/cdp/execute",
                                           .object([StatsField("cmd", .string("Runtime.evaluate")), StatsField("params", parameters)]))
                if let details = value["exceptionDetails"] {
                    throw MediaEngineError(.engineUnavailable, "\(command): the page threw \(JSONWriter.string(details).prefix(300))")
                }
                return value["result"]?["value"] ?? .null
            } catch where Self.lacksDevToolsPassthrough(error) {
                usesDevToolsEvaluate.withLock { $0 = false }
            }
        }
        return try await executeAsync(session: session, script: fallbackScript, args: [.string(command), .array(args)])
    }

    /// An endpoint without chromedriver's DevTools passthrough (a Grid or driver that does not
    /// forward it) answers 404 or 405, or names the command unknown or unsupported.
    private static func lacksDevToolsPassthrough(_ error: MediaEngineError) -> Bool {
        ["HTTP 404", "HTTP 405", "unknown command", "unknown method", "unsupported operation"].contains { error.message.contains($0) }
    }
}
