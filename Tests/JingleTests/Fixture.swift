import Foundation

/// The Chromium SDP captured into Fixtures/ by Scripts/jingle_browser.py (Chromium 156, headless).
enum Fixture {
    /// The text of `Fixtures/NAME`.
    static func text(_ name: String) throws -> String {
        guard let url = Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil) else {
            throw FixtureMissing(name: name)
        }
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// The trickled candidates of a scenario: `RTCIceCandidate.toJSON()` objects.
    static func candidates(_ scenario: String) throws -> [(candidate: String, sdpMid: String, usernameFragment: String)] {
        let data = Data(try text("chromium-\(scenario)-candidates.json").utf8)
        let objects = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] ?? []
        return objects.map { ($0["candidate"] as? String ?? "", $0["sdpMid"] as? String ?? "", $0["usernameFragment"] as? String ?? "") }
    }

    struct FixtureMissing: Error { let name: String }
}

/// An SDP reduced to what must survive the trip through Jingle, read independently of the
/// module's own parser: per m-line, the m-line without its port and the set of its `a=` lines,
/// minus the lines the mapping regenerates on purpose (docs/peer-to-peer.md, "Jingle").
struct SemanticSDP: Equatable, CustomStringConvertible {
    /// Session-level lines that matter.
    var session: Set<String> = []
    /// Per m-line: the m-line without port, and its attribute lines.
    var media: [MediaSection] = []

    struct MediaSection: Equatable {
        var mLine: String
        var attributes: Set<String>
    }

    /// Regenerated, not carried: `a=rtcp` (constant under rtcp-mux), `a=ice-options` (always
    /// trickle), `a=end-of-candidates`.
    static let regenerated: Set<String> = ["rtcp", "ice-options", "end-of-candidates"]

    init(_ sdp: String) {
        for raw in sdp.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = String(raw)
            if line.hasPrefix("m=") {
                var fields = line.split(separator: " ").map(String.init)
                fields[1] = "PORT"
                media.append(MediaSection(mLine: fields.joined(separator: " "), attributes: []))
            } else if line.hasPrefix("a=") {
                let key = String(line.dropFirst(2).prefix { $0 != ":" })
                if media.isEmpty {
                    if key == "group" || key == "extmap-allow-mixed" { session.insert(line) }
                } else if !Self.regenerated.contains(key) {
                    media[media.count - 1].attributes.insert(line)
                }
            }
        }
        // Jingle carries a=extmap-allow-mixed per RTP description (XEP-0294): without an RTP
        // m-line it means nothing and is not carried.
        if !media.contains(where: { $0.mLine.contains("RTP/") }) { session.remove("a=extmap-allow-mixed") }
    }

    var description: String {
        (session.sorted() + media.flatMap { [$0.mLine] + $0.attributes.sorted() }).joined(separator: "\n")
    }
}
