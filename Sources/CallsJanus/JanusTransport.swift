import Calls
import CallScopeCore
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
    func post(_ path: String, _ body: JSONValue, timeout: TimeInterval = 10) async throws(JanusError) -> JSONValue {
        var request = URLRequest(url: url(path))
        request.httpMethod = "POST"
        request.timeoutInterval = timeout
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(JSONWriter.string(body).utf8)
        return try await perform(request)
    }

    /// GETs `base/path` (the long poll) and returns the decoded reply.
    func get(_ path: String, timeout: TimeInterval) async throws(JanusError) -> JSONValue {
        var request = URLRequest(url: url(path))
        request.httpMethod = "GET"
        request.timeoutInterval = timeout
        return try await perform(request)
    }

    /// Lets requests in flight finish (Janus answers a destroyed session's poll at once), then
    /// releases the URLSession; never cancels (see ``withDeadline(_:_:)``).
    func invalidate() { session.finishTasksAndInvalidate() }

    /// Runs `operation`, but returns (throwing a timeout) after `seconds` even when it does not.
    ///
    /// swift-corelibs-foundation's URLSession sometimes never completes a request whose server
    /// died mid-request (measured here: Janus killed with SIGKILL, our sockets left in CLOSE-WAIT
    /// with the reply unread, the request's own timeout never firing, the test hung for
    /// minutes). The abandoned request is left to URLSession to finish; the caller moves on.
    static func withDeadline<T: Sendable>(_ seconds: TimeInterval, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = ResumeOnce<T>()
        return try await withCheckedThrowingContinuation { continuation in
            once.set(continuation)
            // Never cancelled: cancelling a URLSession task races with the session's
            // invalidation inside swift-corelibs-foundation and traps ("Trying to access a
            // behaviour for a task that in not in the registry", measured here).
            Task {
                let result: Result<T, any Error>
                do { result = .success(try await operation()) } catch { result = .failure(error) }
                once.resume(with: result)
            }
            Task {
                try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                once.resume(with: .failure(JanusError(.timeout, "no HTTP reply within \(Int(seconds)) s")))
            }
        }
    }

    private func url(_ path: String) -> URL {
        path.isEmpty ? base : URL(string: base.absoluteString + "/" + path) ?? base
    }

    private func perform(_ request: URLRequest) async throws(JanusError) -> JSONValue {
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await Self.withDeadline(request.timeoutInterval + 2) { [session] in
                try await session.data(for: request)
            }
        } catch let error as JanusError {
            throw error
        } catch {
            throw JanusError(.transport, "\(request.httpMethod ?? "") \(request.url?.absoluteString ?? ""): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status == 404 {
            throw JanusError(.sessionLost, routerCode: 458, "HTTP 404 for \(request.url?.path ?? "")")
        }
        let value: JSONValue
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

/// A continuation resumed by whichever side comes first, exactly once.
final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation = Locked<CheckedContinuation<T, any Error>?>(nil)

    func set(_ continuation: CheckedContinuation<T, any Error>) { self.continuation.withLock { $0 = continuation } }

    /// Resumes with `result` unless already resumed; `true` when this call resumed it.
    @discardableResult
    func resume(with result: Result<T, any Error>) -> Bool {
        guard let pending = continuation.withLock({ $0.take() }) else { return false }
        pending.resume(with: result)
        return true
    }
}
