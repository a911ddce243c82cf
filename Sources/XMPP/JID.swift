/// An XMPP address (RFC 7622): `local@domain/resource`, each part optional but the domain.
/// Parts are kept as written; comparison of bare JIDs lowercases local part and domain.
public struct JID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The part before `@`; empty for a server address.
    public let local: String
    /// The domain.
    public let domain: String
    /// The part after `/`; empty for a bare JID.
    public let resource: String

    /// Parses `text`; `nil` when the domain is empty or a part is over 1023 bytes (RFC 7622 §3).
    public init?(_ text: String) {
        var rest = Substring(text)
        var resource = Substring("")
        if let slash = rest.firstIndex(of: "/") {
            resource = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var local = Substring("")
        if let at = rest.firstIndex(of: "@") {
            local = rest[..<at]
            rest = rest[rest.index(after: at)...]
            guard !local.isEmpty else { return nil }
        }
        guard !rest.isEmpty, !rest.contains("@"), local.utf8.count < 1024, rest.utf8.count < 1024, resource.utf8.count < 1024 else { return nil }
        if text.contains("/") && resource.isEmpty { return nil }
        self.local = local.lowercased()
        self.domain = rest.lowercased()
        self.resource = String(resource)
    }

    /// Creates a JID from its parts (lowercasing local part and domain).
    public init(local: String, domain: String, resource: String = "") {
        self.local = local.lowercased()
        self.domain = domain.lowercased()
        self.resource = resource
    }

    /// The JID without its resource.
    public var bare: JID { JID(local: local, domain: domain) }

    /// `local@domain/resource`.
    public var description: String {
        (local.isEmpty ? "" : local + "@") + domain + (resource.isEmpty ? "" : "/" + resource)
    }

    /// Orders by the text form.
    public static func < (lhs: JID, rhs: JID) -> Bool { lhs.description < rhs.description }
}
