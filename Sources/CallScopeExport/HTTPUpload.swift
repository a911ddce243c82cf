import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP request through URLSession (Linux, macOS and iOS alike), body and status checked.
enum HTTPUpload {
    static func send(_ body: Data, method: String, to url: URL, contentType: String, session: URLSession) async throws {
        var request = URLRequest(url: url, timeoutInterval: 10)
        request.httpMethod = method
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let (status, answer): (Int, String) = try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: CallMetricsExportError(.unreachable, url: url.absoluteString, detail: error.localizedDescription))
                    return
                }
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                continuation.resume(returning: (status, data.map { String(decoding: $0, as: UTF8.self) } ?? ""))
            }
            task.resume()
        }
        guard (200..<300).contains(status) else {
            throw CallMetricsExportError(.rejected, url: url.absoluteString, status: status, detail: answer)
        }
    }

    static func validated(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw CallMetricsExportError(.invalidURL, url: text)
        }
        return url
    }
}
