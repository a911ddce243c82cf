import Calls
import RTCStats

/// The few W3C WebDriver commands the engine needs, over HTTP to chromedriver.
struct WebDriverClient: Sendable {
    let http: LoopbackHTTPClient

    /// A client of the chromedriver listening on `127.0.0.1:port`.
    init(port: UInt16) {
        http = LoopbackHTTPClient(port: port)
    }

    /// `nil` when `GET /status` says ready, else why not.
    func readiness() async -> String? {
        do {
            let value = try await call("GET", "/status", timeout: 2)
            return value["ready"]?.bool == true ? nil : "status \(JSONWriter.string(value).prefix(200))"
        } catch {
            return error.description
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

    func deleteSession(_ session: String) async {
        _ = try? await call("DELETE", "/session/\(session)", timeout: 10)
    }

    private func call(_ method: String, _ path: String, _ body: JSONValue? = nil, timeout: Int = 30) async throws(MediaEngineError) -> JSONValue {
        let reply: LoopbackHTTPClient.Reply
        do {
            reply = try await http.send(method: method, path: path,
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
