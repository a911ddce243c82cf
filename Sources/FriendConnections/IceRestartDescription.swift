/// The SDP side of an ICE restart carried as a Jingle `transport-info` with new ICE credentials
/// (XEP-0176 §"ICE restarts"): only the username fragment and password travel, so the receiver
/// makes the new remote description from the previous one.
public enum IceRestartDescription {
    /// New ICE credentials of one content (an m-line: the content name is its `a=mid`).
    public struct Credentials: Hashable, Sendable {
        /// The content name (`a=mid`).
        public var contentName: String
        /// `a=ice-ufrag`.
        public var usernameFragment: String
        /// `a=ice-pwd`.
        public var password: String

        /// Creates credentials.
        public init(contentName: String, usernameFragment: String, password: String) {
            self.contentName = contentName
            self.usernameFragment = usernameFragment
            self.password = password
        }
    }

    /// The credentials of every m-line of `sdp` that has a mid and both values (session-level
    /// values apply to m-lines without their own).
    public static func credentials(in sdp: String) -> [Credentials] {
        var sessionFragment: String?, sessionPassword: String?
        var result: [Credentials] = []
        var current: (mid: String?, fragment: String?, password: String?)?
        func finish() {
            guard let media = current, let mid = media.mid,
                  let fragment = media.fragment ?? sessionFragment, let password = media.password ?? sessionPassword else { return }
            result.append(Credentials(contentName: mid, usernameFragment: fragment, password: password))
        }
        for line in lines(of: sdp) {
            if line.hasPrefix("m=") {
                finish()
                current = (nil, nil, nil)
            } else if let value = value(of: "a=mid:", in: line) {
                current?.mid = value
            } else if let value = value(of: "a=ice-ufrag:", in: line) {
                if current == nil { sessionFragment = value } else { current?.fragment = value }
            } else if let value = value(of: "a=ice-pwd:", in: line) {
                if current == nil { sessionPassword = value } else { current?.password = value }
            }
        }
        finish()
        return result
    }

    /// `previous` (the last remote description) with the ICE credentials of the m-lines named in
    /// `credentials` replaced, its candidates and `a=end-of-candidates` removed (the new ones
    /// are trickled) and the `o=` version raised by one; `nil` when a named content is not in
    /// `previous` or a value could break an SDP line.
    public static func sdp(replacingCredentialsIn previous: String, with credentials: [Credentials]) -> String? {
        guard credentials.allSatisfy({ isToken($0.usernameFragment) && isToken($0.password) && isToken($0.contentName) }) else { return nil }
        let all = lines(of: previous)
        // Each m-line's section, to find its mid before writing it.
        var sections: [[String]] = [[]]
        for line in all {
            if line.hasPrefix("m=") { sections.append([]) }
            sections[sections.count - 1].append(line)
        }
        var replaced = Set<String>()
        var output: [String] = []
        for (index, section) in sections.enumerated() {
            let mid = section.lazy.compactMap { value(of: "a=mid:", in: $0) }.first
            let new = index == 0 ? nil : credentials.first { $0.contentName == mid }
            if let new { replaced.insert(new.contentName) }
            for line in section {
                if line.hasPrefix("a=candidate:") || line == "a=end-of-candidates" { continue }
                if index == 0, line.hasPrefix("o="), let raised = raisedVersion(line) {
                    output.append(raised)
                } else if index == 0, line.hasPrefix("a=ice-ufrag:") || line.hasPrefix("a=ice-pwd:"), !credentials.isEmpty {
                    continue      // session-level values would apply to every m-line: written per m-line below
                } else if let new, line.hasPrefix("a=ice-ufrag:") {
                    output.append("a=ice-ufrag:" + new.usernameFragment)
                } else if let new, line.hasPrefix("a=ice-pwd:") {
                    output.append("a=ice-pwd:" + new.password)
                } else {
                    output.append(line)
                }
                if let new, line.hasPrefix("m="), !section.contains(where: { $0.hasPrefix("a=ice-ufrag:") }) {
                    output.append("a=ice-ufrag:" + new.usernameFragment)
                    output.append("a=ice-pwd:" + new.password)
                }
            }
        }
        guard replaced == Set(credentials.map(\.contentName)) else { return nil }
        return output.map { $0 + "\r\n" }.joined()
    }

    private static func lines(of sdp: String) -> [String] {
        sdp.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }.map(String.init)
    }

    private static func value(of prefix: String, in line: String) -> String? {
        line.hasPrefix(prefix) ? String(line.dropFirst(prefix.count)) : nil
    }

    /// `o=- 4611 2 IN IP4 127.0.0.1` → `o=- 4611 3 IN IP4 127.0.0.1`.
    private static func raisedVersion(_ line: String) -> String? {
        var fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 3, let version = UInt64(fields[2]), version < UInt64.max else { return nil }
        fields[2] = String(version + 1)
        return fields.joined(separator: " ")
    }

    /// ICE characters (RFC 8839 `ice-char`: ALPHA / DIGIT / "+" / "/") and the mid's token
    /// characters: nothing that could end a line or a field.
    private static func isToken(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 256 && value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }
}
