/// Minimal JSON text output for ``JSONValue``s: the pass-through report and `callscope`'s
/// machine output. Integers print without a fraction; non-finite numbers print as `null`.
package enum JSONWriter {
    /// Appends `value` as JSON.
    package static func write(_ value: JSONValue, to output: inout String) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let number): writeNumber(number, to: &output)
        case .string(let string): writeString(string, to: &output)
        case .array(let elements):
            output += "["
            for (index, element) in elements.enumerated() {
                if index > 0 { output += "," }
                write(element, to: &output)
            }
            output += "]"
        case .object(let fields):
            output += "{"
            for (index, field) in fields.enumerated() {
                if index > 0 { output += "," }
                writeString(field.name, to: &output)
                output += ":"
                write(field.value, to: &output)
            }
            output += "}"
        }
    }

    /// The JSON text of `value`.
    package static func string(_ value: JSONValue) -> String {
        var output = ""
        write(value, to: &output)
        return output
    }

    /// Appends a number: integral values without a fraction, others in shortest round-trip form.
    package static func writeNumber(_ number: Double, to output: inout String) {
        guard number.isFinite else {
            output += "null"
            return
        }
        if number == number.rounded(), abs(number) < 9.007_199_254_740_992e15 {
            output += String(Int64(number))
        } else {
            output += "\(number)"
        }
    }

    /// Appends a quoted, escaped string.
    package static func writeString(_ string: String, to output: inout String) {
        output += "\""
        var needsEscape = false
        for byte in string.utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            needsEscape = true
            break
        }
        if !needsEscape {
            output += string
        } else {
            for scalar in string.unicodeScalars {
                switch scalar {
                case "\"": output += "\\\""
                case "\\": output += "\\\\"
                case "\n": output += "\\n"
                case "\r": output += "\\r"
                case "\t": output += "\\t"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16)
                        output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        output.unicodeScalars.append(scalar)
                    }
                }
            }
        }
        output += "\""
    }
}
