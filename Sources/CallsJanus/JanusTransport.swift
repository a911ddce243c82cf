import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RTCStats

/// Janus' plain HTTP API: JSON POSTs and the long-poll GET, on a URLSession of our own.
struct JanusTransport: Sendable {
    let base: URL
    let session: URLSession

    init(base: URL) {
        self.base = base
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 60
        configuration.httpMaximumConnectionsPerHost = 4
        session = URLSession(configuration: configuration)
    }

    /// POSTs `body` to `base/path` and returns the decoded reply.
    func post(_ path: String, _ body: StatsValue, timeout: TimeInterval = 10) async throws(JanusError) -> StatsValue {
        var request = URLRequest(url: url(path))
        request.httpMethod = "POST"
        request.timeoutInterval = timeout
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(JSONWriter.string(body).utf8)
        return try await perform(request)
    }

    /// GETs `base/path` (the long poll) and returns the decoded reply.
    func get(_ path: String, timeout: TimeInterval) async throws(JanusError) -> StatsValue {
        var request = URLRequest(url: url(path))
        request.httpMethod = "GET"
        request.timeoutInterval = timeout
        return try await perform(request)
    }

    func invalidate() { session.invalidateAndCancel() }

    private func url(_ path: String) -> URL {
        path.isEmpty ? base : URL(string: base.absoluteString + "/" + path) ?? base
    }

    private func perform(_ request: URLRequest) async throws(JanusError) -> StatsValue {
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw JanusError(.transport, "\(request.httpMethod ?? "") \(request.url?.absoluteString ?? ""): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status == 404 {
            throw JanusError(.sessionLost, routerCode: 458, "HTTP 404 for \(request.url?.path ?? "")")
        }
        let value: StatsValue
        do {
            value = try JSONParser.parse([UInt8](data))
        } catch {
            throw JanusError(.malformedReply, "HTTP \(status), \(data.count) bytes that are not JSON: \(error)")
        }
        guard (200..<300).contains(status) else {
            throw JanusError(.transport, "HTTP \(status): \(String(decoding: data.prefix(300), as: UTF8.self))")
        }
        return value
    }
}
