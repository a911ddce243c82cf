/// A server to probe: `HOST:PORT`, `[IPv6]:PORT`.
public struct ProbeEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The host name or address literal (without brackets).
    public var host: String
    /// The port.
    public var port: UInt16

    /// Creates an endpoint.
    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` or `[IPv6]:PORT`; `nil` when either part is missing or the port is
    /// not 1–65535.
    public init?(parsing text: String) {
        let hostPart: Substring, portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard !hostPart.isEmpty, let port = UInt16(portPart), port > 0 else { return nil }
        self.init(host: String(hostPart), port: port)
    }

    /// `host:port`, with brackets around an IPv6 literal.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
