/// An SDP text (RFC 8866) split into its session part and media sections, lines kept in order:
/// the shape both directions of the mapping work on. Reading checks only the structure (every
/// line `x=...`, a media section starts at `m=`), bounded by ``JingleLimits``.
struct SDPDocument {
    /// One `a=` line: the key before the first `:`, the value after (empty for a flag).
    struct Attribute {
        var key: String
        var value: String
    }

    /// One media section.
    struct MediaSection {
        /// `audio`, `video`, `application`.
        var media: String
        /// The port (0 = rejected).
        var port: UInt16
        /// `UDP/TLS/RTP/SAVPF`, `UDP/DTLS/SCTP`.
        var transportProtocol: String
        /// The formats: payload type numbers, or `webrtc-datachannel`.
        var formats: [String]
        /// The `a=` lines, in order.
        var attributes: [Attribute]

        /// The values of every `a=key:` line.
        func values(_ key: String) -> [String] { attributes.filter { $0.key == key }.map(\.value) }
        /// The value of the first `a=key:` line.
        func value(_ key: String) -> String? { attributes.first { $0.key == key }?.value }
        /// Whether a flag `a=key` (or `a=key:...`) is present.
        func has(_ key: String) -> Bool { attributes.contains { $0.key == key } }
    }

    /// The session-level `a=` lines.
    var sessionAttributes: [Attribute] = []
    /// The media sections, in order.
    var media: [MediaSection] = []

    /// Splits `text`.
    init(_ text: String, limits: JingleLimits) throws(JingleError) {
        guard text.utf8.count <= limits.maximumSDPBytes else {
            throw JingleError(.limitExceeded, "SDP of \(text.utf8.count) bytes is over the limit of \(limits.maximumSDPBytes)")
        }
        var lineNumber = 0
        // "\r\n" is one Character in Swift: both it and "\n" end a line.
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            lineNumber += 1
            let bytes = Array(line.utf8)
            guard bytes.count >= 2, bytes[1] == UInt8(ascii: "="), bytes[0] >= 0x61, bytes[0] <= 0x7A else {
                throw JingleError(.malformedSDP, "line \(lineNumber) '\(line.prefix(40))' is not of the form x=value")
            }
            guard !line.unicodeScalars.contains(where: { $0 == "\0" || $0 == "\r" }) else {
                throw JingleError(.malformedSDP, "line \(lineNumber) holds a NUL or a stray carriage return")
            }
            let value = String(line.dropFirst(2))
            switch bytes[0] {
            case UInt8(ascii: "m"):
                guard media.count < limits.maximumContents else {
                    throw JingleError(.limitExceeded, "more than \(limits.maximumContents) m-lines")
                }
                media.append(try Self.mediaSection(value, lineNumber: lineNumber, limits: limits))
            case UInt8(ascii: "a"):
                let attribute: Attribute
                if let colon = value.firstIndex(of: ":") {
                    attribute = Attribute(key: String(value[..<colon]), value: String(value[value.index(after: colon)...]))
                } else {
                    attribute = Attribute(key: value, value: "")
                }
                if media.isEmpty {
                    guard sessionAttributes.count < 1024 else { throw JingleError(.limitExceeded, "more than 1024 session attributes") }
                    sessionAttributes.append(attribute)
                } else {
                    guard media[media.count - 1].attributes.count < 4096 else {
                        throw JingleError(.limitExceeded, "more than 4096 attributes in m-line \(media.count)")
                    }
                    media[media.count - 1].attributes.append(attribute)
                }
            default:
                // v=, o=, s=, t=, c=, b=: regenerated on the way out (docs/peer-to-peer.md, "Jingle").
                break
            }
        }
        guard lineNumber > 0 else { throw JingleError(.malformedSDP, "the SDP is empty") }
    }

    private static func mediaSection(_ value: String, lineNumber: Int, limits: JingleLimits) throws(JingleError) -> MediaSection {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 4 else {
            throw JingleError(.malformedSDP, "m-line at line \(lineNumber) '\(value.prefix(40))' has fewer than 4 fields")
        }
        // `port/count` (RFC 8866 §5.14) is allowed; the count is not used by WebRTC.
        let portField = fields[1].split(separator: "/").first ?? fields[1]
        guard let port = decimal(portField, as: UInt16.self) else {
            throw JingleError(.malformedSDP, "m-line at line \(lineNumber) has the port '\(fields[1].prefix(20))'")
        }
        guard fields.count - 3 <= limits.maximumPayloadTypes else {
            throw JingleError(.limitExceeded, "m-line at line \(lineNumber) lists \(fields.count - 3) formats, over the limit of \(limits.maximumPayloadTypes)")
        }
        return MediaSection(media: String(fields[0]), port: port, transportProtocol: String(fields[2]),
                            formats: fields.dropFirst(3).map(String.init), attributes: [])
    }
}
