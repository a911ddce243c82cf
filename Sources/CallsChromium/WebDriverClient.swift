import Calls
import CallScopeCore
import Foundation
import RTCStats

/// The few W3C WebDriver commands the engine needs, over HTTP to chromedriver (ours, or any
/// WebDriver endpoint: another machine's chromedriver, a Selenium Grid).
struct WebDriverClient: Sendable {
    let http: LoopbackHTTPClient
    /// The endpoint's path before `/session` (`/wd/hub` on older Selenium Grids), without a
    /// trailing slash; empty for chromedriver.
    let basePath: String
    /// Whether engine commands still go through DevTools' `Runtime.evaluate` (false once the
    /// endpoint said it has no `goog/cdp/execute`; see `engineCommand`).
    let usesDevToolsEvaluate = Locked(true)

    /// A client of the chromedriver listening on `127.0.0.1:port`.
    init(port: UInt16) {
        http = LoopbackHTTPClient(port: port)
        basePath = ""
    }

    /// A client of the WebDriver endpoint at `endpoint` (`http://host:port[/path]`); `nil` when
    /// it is not such a URL.
    init?(endpoint: URL) {
        guard endpoint.scheme?.lowercased() == "http", let host = endpoint.host, !host.isEmpty,
              endpoint.query == nil, endpoint.user == nil else { return nil }
        let port = endpoint.port ?? 80
        guard (1...65_535).contains(port) else { return nil }
        http = LoopbackHTTPClient(host: host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host, port: UInt16(port))
        var path = endpoint.path
        while path.hasSuffix("/") { path.removeLast() }
        basePath = path
    }

    /// `nil` when `GET /status` says ready, else why not.
    func readiness() async -> String? {
        do {
            let value = try await call("GET", "/status", timeout: 2)
            return value["ready"]?.bool == true ? nil : "status \(JSONWriter.string(value).prefix(200))"
        } catch {
            return error.message
        }
    }

    /// Creates a browser session; returns its id and the browser version.
    func newSession(capabilities: JSONValue) async throws(MediaEngineError) -> (id: String, browserVersion: String?) {
        let value = try await call("POST", "/session", .object([StatsField("capabilities", .object([StatsField("alwaysMatch", capabilities)]))]), timeout: 60)
        guard let id = value["sessionId"]?.string else {
            throw MediaEngineError(.engineUnavailable, "chromedriver gave no sessionId: \(JSONWriter.string(value).prefix(300))")
        }
        return (id, value["capabilities"]?["browserVersion"]?.string)
    }

    func navigate(session: String, to url: String) async throws(MediaEngineError) {
        _ = try await call("POST", "/session/\(session)/url", .object([StatsField("url", .string(url))]), timeout: 30)
    }

    func setScriptTimeout(session: String, milliseconds: Int) async throws(MediaEngineError) {
        _ = try await call("POST", "/session/\(session)/timeouts", .object([StatsField("script", .number(Double(milliseconds)))]))
    }

    /// `execute/async` with `args`; the script calls the last argument with its result.
    func executeAsync(session: String, script: String, args: [JSONValue], timeout: Int = 30) async throws(MediaEngineError) -> JSONValue {
        try await call("POST", "/session/\(session)/execute/async",
                       .object([StatsField("script", .string(script)), StatsField("args", .array(args))]), timeout: timeout)
    }

    /// `execute/sync`: runs `script` in the page and returns what it returns.
    func executeSync(session: String, script: String, args: [JSONValue] = [], timeout: Int = 30) async throws(MediaEngineError) -> JSONValue {
        try await call("POST", "/session/\(session)/execute/sync",
                       .object([StatsField("script", .string(script)), StatsField("args", .array(args))]), timeout: timeout)
    }

    func deleteSession(_ session: String) async {
        _ = try? await call("DELETE", "/session/\(session)", timeout: 10)
    }

    func call(_ method: String, _ path: String, _ body: JSONValue? = nil, timeout: Int = 30) async throws(MediaEngineError) -> JSONValue {
        let reply: LoopbackHTTPClient.Reply
        do {
            reply = try await http.send(method: method, path: basePath + path,
                                        body: method == "POST" ? Array(JSONWriter.string(body ?? .object([])).utf8) : nil,
                                        timeoutSeconds: timeout)
        } catch {
            throw MediaEngineError(.engineUnavailable, error.description)
        }
        let payload: JSONValue
        do {
            payload = try JSONParser.parse(reply.body)
        } catch {
            throw MediaEngineError(.engineUnavailable, "\(method) \(path): reply is not JSON (\(reply.body.count) bytes)")
        }
        let value = payload["value"] ?? .null
        guard (200..<300).contains(reply.status) else {
            throw MediaEngineError(.engineUnavailable, "\(method) \(path): HTTP \(reply.status) \(value["error"]?.string ?? ""): \((value["message"]?.string ?? "").prefix(400))")
        }
        return value
    }
}
