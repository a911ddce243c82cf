/// One XML element of an XMPP stream: a stanza, a stream-level element or a child of one.
/// Namespaces are resolved: `namespace` is the URI in scope, never a prefix.
package struct XMPPElement: Hashable, Sendable {
    /// The local name (`message`, `query`, `features`).
    package var name: String
    /// The namespace URI in scope (`jabber:client`, `jabber:iq:roster`); empty when none.
    package var namespace: String
    /// The attributes other than namespace declarations, by name as written (`to`, `xml:lang`).
    package var attributes: [String: String]
    /// The child elements, in document order.
    package var children: [XMPPElement]
    /// The character data directly inside this element, concatenated.
    package var text: String

    /// Creates an element.
    package init(_ name: String, namespace: String, attributes: [String: String] = [:], children: [XMPPElement] = [], text: String = "") {
        self.name = name
        self.namespace = namespace
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    /// The attribute `name`, if present.
    package subscript(attribute name: String) -> String? {
        get { attributes[name] }
        set { attributes[name] = newValue }
    }

    /// The first child called `name` (in `namespace`, when given).
    package func child(_ name: String, namespace: String? = nil) -> XMPPElement? {
        children.first { $0.name == name && (namespace == nil || $0.namespace == namespace) }
    }

    /// Every child called `name` (in `namespace`, when given).
    package func children(_ name: String, namespace: String? = nil) -> [XMPPElement] {
        children.filter { $0.name == name && (namespace == nil || $0.namespace == namespace) }
    }

    /// Whether this element is `name` in `namespace`.
    package func isElement(_ name: String, namespace: String) -> Bool { self.name == name && self.namespace == namespace }
}
