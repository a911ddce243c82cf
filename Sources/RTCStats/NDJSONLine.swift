/// One line of `callscope call`'s ndjson and of a recording: a JSON object whose members are
/// written in the order they are added (`t` first), with ``JSONWriter`` for every key and value.
/// The one place those lines are built (``RecordingWriter`` and the command line's printer).
package struct NDJSONLine {
    private var text = "{"
    private var empty = true

    /// A line starting with `"t": unixMilliseconds`.
    package init(t unixMilliseconds: Double) {
        key("t")
        JSONWriter.writeNumber(unixMilliseconds, to: &text)
    }

    /// Adds `"key": "value"`.
    package mutating func string(_ name: String, _ value: String) {
        key(name)
        JSONWriter.writeString(value, to: &text)
    }

    /// Adds `"key": value`.
    package mutating func value(_ name: String, _ value: JSONValue) {
        key(name)
        JSONWriter.write(value, to: &text)
    }

    /// Adds `"key": json`, `json` being JSON text already (a report's `jsonArray()`).
    package mutating func json(_ name: String, _ json: String) {
        key(name)
        text += json
    }

    /// The line, without its newline.
    package var line: String { text + "}" }

    private mutating func key(_ name: String) {
        if !empty { text += "," }
        empty = false
        JSONWriter.writeString(name, to: &text)
        text += ":"
    }
}
