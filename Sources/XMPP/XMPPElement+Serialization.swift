extension XMPPElement {
    /// The element as XML text. Writes `xmlns` where the namespace differs from the enclosing
    /// one (`parentNamespace`; a top-level stanza therefore always carries it, which Prosody
    /// requires over WebSocket), escapes text and attribute values.
    package func xmlString(parentNamespace: String? = nil) -> String {
        var output = ""
        write(to: &output, parentNamespace: parentNamespace)
        return output
    }

    private func write(to output: inout String, parentNamespace: String?) {
        output += "<" + name
        if namespace != parentNamespace, !namespace.isEmpty {
            output += " xmlns=\"" + Self.escaped(namespace, quotes: true) + "\""
        }
        for key in attributes.keys.sorted() {
            output += " " + key + "=\"" + Self.escaped(attributes[key] ?? "", quotes: true) + "\""
        }
        if children.isEmpty && text.isEmpty {
            output += "/>"
            return
        }
        output += ">" + Self.escaped(text, quotes: false)
        for child in children { child.write(to: &output, parentNamespace: namespace) }
        output += "</" + name + ">"
    }

    /// `text` with `&`, `<`, `>` (and in attributes `"` and `'`) replaced by entities.
    static func escaped(_ text: String, quotes: Bool) -> String {
        guard text.contains(where: { "&<>\"'".contains($0) }) else { return text }
        var result = ""
        result.reserveCapacity(text.count + 16)
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where quotes: result += "&quot;"
            case "'" where quotes: result += "&apos;"
            default: result.append(character)
            }
        }
        return result
    }
}
