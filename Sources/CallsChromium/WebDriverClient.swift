import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Calls
import RTCStats

/// The few W3C WebDriver commands the engine needs, over HTTP to chromedriver.
struct WebDriverClient: Sendable {
    let base: URL
    let http: URLSession

    init(base: URL) {
        self.base = base
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 90
        http = URLSession(configuration: configuration)
    }

    /// `GET /status` says ready.
    func isReady() async -> Bool {
        guard let value = try? await call("GET", "/status", timeout: 2) else { return false }
        return value["ready"]?.bool == true
    }

    /// Creates a browser session; returns its id and the browser version.
    func newSession(capabilities: StatsValue) async throws(MediaEngineError) -> (id: String, browserVersion: String?) {
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
    func executeAsync(session: String, script: String, args: [StatsValue], timeout: TimeInterval = 30) async throws(MediaEngineError) -> StatsValue {
        try await call("POST", "/session/\(session)/execute/async",
                       .object([StatsField("script", .string(script)), StatsField("args", .array(args))]), timeout: timeout)
    }

    func deleteSession(_ session: String) async {
        _ = try? await call("DELETE", "/session/\(session)", timeout: 10)
    }

    func invalidate() { http.invalidateAndCancel() }

    private func call(_ method: String, _ path: String, _ body: StatsValue? = nil, timeout: TimeInterval = 30) async throws(MediaEngineError) -> StatsValue {
        guard let url = URL(string: base.absoluteString + path) else {
            throw MediaEngineError(.engineUnavailable, "bad WebDriver path \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = timeout
        if method == "POST" {
            request.setValue("application/json; charset=utf-8", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(JSONWriter.string(body ?? .object([])).utf8)
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await http.data(for: request)
        } catch {
            throw MediaEngineError(.engineUnavailable, "\(method) \(path): \(error.localizedDescription)")
        }
        let payload: StatsValue
        do {
            payload = try JSONParser.parse([UInt8](data))
        } catch {
            throw MediaEngineError(.engineUnavailable, "\(method) \(path): reply is not JSON (\(data.count) bytes)")
        }
        let value = payload["value"] ?? .null
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard (200..<300).contains(status) else {
            throw MediaEngineError(.engineUnavailable, "\(method) \(path): HTTP \(status) \(value["error"]?.string ?? ""): \((value["message"]?.string ?? "").prefix(400))")
        }
        return value
    }
}
