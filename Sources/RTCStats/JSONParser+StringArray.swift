#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The webrtc-internals fast path for series of strings (`codecId`, `kind`, `transportId`, …):
/// an array of plain strings, almost always one value repeated at every poll.
extension JSONParser {
    /// A JSON array of strings without escapes (`["a","a","b"]`), as string values; a string
    /// equal to the one before it shares that one's storage. `nil` when the text is anything
    /// else, including an escape or an unescaped control character (the general parser then
    /// reads it, and explains any error).
    static func parseStringArray(_ text: String) -> [StatsValue]? {
        var copy = text
        return copy.withUTF8 { buffer -> [StatsValue]? in
            var cursor = Cursor(buffer)
            cursor.skipWhitespace()
            guard cursor.position < buffer.count, buffer[cursor.position] == UInt8(ascii: "[") else { return nil }
            cursor.position += 1
            var values: [StatsValue] = []
            var previous: (range: Range<Int>, string: String)?
            cursor.skipWhitespace()
            if cursor.position < buffer.count, buffer[cursor.position] == UInt8(ascii: "]") {
                cursor.position += 1
            } else {
                while true {
                    cursor.skipWhitespace()
                    guard cursor.position < buffer.count, buffer[cursor.position] == UInt8(ascii: "\"") else { return nil }
                    let start = cursor.position + 1
                    var end = start
                    while end < buffer.count {
                        let byte = buffer[end]
                        if byte == UInt8(ascii: "\"") { break }
                        // An escape or a bare control character: the general parser decides.
                        if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                        end += 1
                    }
                    guard end < buffer.count else { return nil }
                    let string: String
                    if let previous, previous.range.count == end - start,
                       memcmp(buffer.baseAddress! + previous.range.lowerBound, buffer.baseAddress! + start, end - start) == 0 {
                        string = previous.string
                    } else {
                        // Quotes are ASCII, so the bytes between two of them in valid UTF-8 are valid UTF-8.
                        string = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self)
                        previous = (start..<end, string)
                    }
                    if values.isEmpty { values.reserveCapacity(buffer.count / (end - start + 3) + 1) }  // Repeats are the rule.
                    values.append(.string(string))
                    cursor.position = end + 1
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
            return cursor.position == buffer.count ? values : nil
        }
    }
}
