import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Reads one WebSocket message of an XMPP stream (RFC 7395 §3.3.3: each message is exactly one
/// complete element: `<open/>`, `<close/>`, a stanza or a stream-level element) into an
/// ``XMPPElement``, with Foundation's `XMLParser`.
///
/// Hostile input gets a typed ``XMPPError`` (`malformedXML`), never a crash or a hang: the
/// message is bounded (``XMPPReadLimits``), and the constructs RFC 6120 §11.1 forbids in XMPP
/// (document type declarations, hence entity declarations; comments; processing instructions
/// other than a leading XML declaration) are refused before the parser sees them, so no entity
/// is ever expanded and no external entity is ever fetched.
package enum XMPPElementReader {
    /// Parses `bytes` (UTF-8) into one element.
    package static func read(_ bytes: some Collection<UInt8>, limits: XMPPReadLimits = XMPPReadLimits()) throws(XMPPError) -> XMPPElement {
        guard bytes.count <= limits.maximumBytes else {
            throw XMPPError(.malformedXML, "message of \(bytes.count) bytes is over the limit of \(limits.maximumBytes)")
        }
        let data = Data(bytes)
        // XMPP is UTF-8 only (RFC 6120 §11.6). Checked before the parser: FoundationXML on Linux
        // traps on a name with invalid UTF-8 that libxml2 lets through (found by the fuzzer).
        guard String(bytes: data, encoding: .utf8) != nil else {
            throw XMPPError(.malformedXML, "message of \(data.count) bytes is not valid UTF-8")
        }
        try refuseForbiddenConstructs(data)
        let builder = ElementBuilder(limits: limits)
        let parser = XMLParser(data: data)
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        let parsed = parser.parse()
        if let failure = builder.failure { throw failure }
        // XMLParser on Linux can return true after reporting an error: both are checked.
        guard parsed, builder.errorCount == 0 else {
            let code = (parser.parserError as NSError?)?.code ?? -1
            throw XMPPError(.malformedXML, "not well-formed XML (XMLParser error \(code))")
        }
        guard let root = builder.root else { throw XMPPError(.malformedXML, "no element in the message") }
        return root
    }

    /// Refuses `<!` (DOCTYPE, ENTITY, comments; CDATA sections are allowed) and `<?` anywhere
    /// but a leading XML declaration.
    private static func refuseForbiddenConstructs(_ data: Data) throws(XMPPError) {
        let cdata = Array("<![CDATA[".utf8)
        var index = data.startIndex
        while let open = data[index...].firstIndex(of: UInt8(ascii: "<")) {
            let next = data.index(after: open)
            guard next < data.endIndex else { break }
            switch data[next] {
            case UInt8(ascii: "!"):
                guard data[open...].starts(with: cdata) else {
                    throw XMPPError(.malformedXML, "markup declaration or comment at byte \(open - data.startIndex) (forbidden in XMPP, RFC 6120 §11.1)")
                }
            case UInt8(ascii: "?"):
                let leading = data[data.startIndex..<open].allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
                guard leading, data[open...].starts(with: Array("<?xml ".utf8)) else {
                    throw XMPPError(.malformedXML, "processing instruction at byte \(open - data.startIndex) (forbidden in XMPP, RFC 6120 §11.1)")
                }
            default:
                break
            }
            index = next
        }
    }
}

/// The parser delegate: builds the tree, resolves namespaces, enforces the limits.
private final class ElementBuilder: NSObject, XMLParserDelegate {
    private struct Open {
        var element: XMPPElement
        var prefixes: [String: String]
    }

    let limits: XMPPReadLimits
    private var stack: [Open] = []
    private(set) var root: XMPPElement?
    private(set) var failure: XMPPError?
    private(set) var errorCount = 0
    private var elementCount = 0

    init(limits: XMPPReadLimits) { self.limits = limits }

    private func fail(_ parser: XMLParser, _ message: String) {
        if failure == nil { failure = XMPPError(.malformedXML, message) }
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        guard failure == nil else { return }
        elementCount += 1
        guard root == nil else { return fail(parser, "more than one top-level element in the message") }
        guard stack.count < limits.maximumDepth else { return fail(parser, "elements nested deeper than \(limits.maximumDepth)") }
        guard elementCount <= limits.maximumElements else { return fail(parser, "more than \(limits.maximumElements) elements") }
        guard attributes.count <= limits.maximumAttributes else {
            return fail(parser, "<\(elementName)> has \(attributes.count) attributes, over the limit of \(limits.maximumAttributes)")
        }
        var prefixes = stack.last?.prefixes ?? ["xml": "http://www.w3.org/XML/1998/namespace"]
        var plain: [String: String] = [:]
        for (key, value) in attributes {
            if key == "xmlns" {
                prefixes[""] = value
            } else if key.hasPrefix("xmlns:") {
                prefixes[String(key.dropFirst(6))] = value
            } else {
                plain[key] = value
            }
        }
        var prefix = ""
        var local = elementName
        if let colon = elementName.firstIndex(of: ":") {
            prefix = String(elementName[..<colon])
            local = String(elementName[elementName.index(after: colon)...])
        }
        guard let namespace = prefixes[prefix] ?? (prefix.isEmpty ? "" : nil) else {
            return fail(parser, "<\(elementName)> uses the undeclared prefix \(prefix)")
        }
        stack.append(Open(element: XMPPElement(local, namespace: namespace, attributes: plain), prefixes: prefixes))
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard failure == nil, let closed = stack.popLast() else { return }
        if stack.isEmpty {
            root = closed.element
        } else {
            stack[stack.count - 1].element.children.append(closed.element)
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard failure == nil, !stack.isEmpty else { return }
        stack[stack.count - 1].element.text += string
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        guard failure == nil, !stack.isEmpty else { return }
        stack[stack.count - 1].element.text += String(decoding: block, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        fail(parser, "reference to the undefined entity &\(name);")
        return nil
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) { errorCount += 1 }
    func parser(_ parser: XMLParser, validationErrorOccurred validationError: any Error) { errorCount += 1 }
}
