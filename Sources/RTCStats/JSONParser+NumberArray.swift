/// The webrtc-internals fast path: a series' `values` is usually an array of numbers only.
extension JSONParser {
    /// A JSON array of numbers only (`[1,2.5,-3]`), as doubles without building a value per
    /// element; `nil` when the text is anything else (the general parser then reads it, and
    /// explains any error). webrtc-internals series are mostly such arrays.
    static func parseNumberArray(_ text: String) -> [Double]? {
        var copy = text
        return copy.withUTF8 { buffer -> [Double]? in
            var cursor = Cursor(buffer)
            cursor.skipWhitespace()
            guard cursor.position < buffer.count, buffer[cursor.position] == UInt8(ascii: "[") else { return nil }
            cursor.position += 1
            var numbers: [Double] = []
            numbers.reserveCapacity(buffer.count / 4)
            cursor.skipWhitespace()
            if cursor.position < buffer.count, buffer[cursor.position] == UInt8(ascii: "]") {
                cursor.position += 1
            } else {
                while true {
                    cursor.skipWhitespace()
                    guard cursor.position < buffer.count else { return nil }
                    let byte = buffer[cursor.position]
                    guard byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") < 10 else { return nil }
                    guard let number = try? cursor.parseNumber() else { return nil }
                    numbers.append(number)
                    cursor.skipWhitespace()
                    guard cursor.position < buffer.count else { return nil }
                    if buffer[cursor.position] == UInt8(ascii: ",") {
                        cursor.position += 1
                        continue
                    }
                    guard buffer[cursor.position] == UInt8(ascii: "]") else { return nil }
                    cursor.position += 1
                    break
                }
            }
            cursor.skipWhitespace()
            return cursor.position == buffer.count ? numbers : nil
        }
    }
}
