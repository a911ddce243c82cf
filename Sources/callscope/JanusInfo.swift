import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The media router's name and version for a recording header, from Janus' `GET /info`
/// (`version_string`); nil when it does not answer within 2 s.
enum JanusInfo {
    static func version(at url: URL) async -> String? {
        var request = URLRequest(url: url.appendingPathComponent("info"))
        request.timeoutInterval = 2
        guard let (data, _) = try? await URLSession.shared.data(for: request),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let version = object["version_string"] as? String else { return nil }
        return "janus " + version
    }
}
