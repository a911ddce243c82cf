#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The webrtc-internals fast paths: a series' `values` is usually an array of numbers only, or
/// of plain strings (`codecId`, `kind`, `transportId`, …), almost always one value repeated.
/// One array walk serves both; each says how it reads an element.
extension JSONParser {
    /// A JSON array of numbers only (`[1,2.5,-3]`), as doubles without building a value per
    /// element; `nil` when the text is anything else (the general parser then reads it, and
    /// explains any error). webrtc-internals series are mostly such arrays.
    static func parseNumberArray(_ text: String) -> [Double]? {
        scanArray(text, capacity: { textBytes, _ in textBytes / 4 }) { cursor -> Double? in
            let byte = cursor.bytes[cursor.position]
            guard byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") < 10 else { return nil }
            return try? cursor.parseNumber()
        }
    }

    /// A JSON array of strings without escapes (`["a","a","b"]`), as string values; a string
    /// equal to the one before it shares that one's storage. `nil` when the text is anything
    /// else, including an escape or an unescaped control character (the general parser then
    /// reads it, and explains any error).
    static func parseStringArray(_ text: String) -> [StatsValue]? {
        var previous: (range: Range<Int>, string: String)?
        // Repeats are the rule: as many elements as the first one's length fits in the text.
        return scanArray(text, capacity: { textBytes, firstBytes in textBytes / (firstBytes + 1) + 1 }) { cursor -> StatsValue? in
            let buffer = cursor.bytes
            guard buffer[cursor.position] == UInt8(ascii: "\"") else { return nil }
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
            cursor.position = end + 1
            if let previous, previous.range.count == end - start,
               memcmp(buffer.baseAddress! + previous.range.lowerBound, buffer.baseAddress! + start, end - start) == 0 {
                return .string(previous.string)
            }
            // Quotes are ASCII, so the bytes between two of them in valid UTF-8 are valid UTF-8.
            let string = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self)
            previous = (start..<end, string)
            return .string(string)
        }
    }

    /// Walks a JSON array (whitespace allowed around every token) whose every element
    /// `element` reads: it starts at the element's first byte (never past the end) and leaves
    /// the cursor after it, or returns `nil` to give up. `capacity` gives the room to reserve
    /// from the text's length and the first element's, once that one is read. `nil` when the
    /// text is not such an array.
    @inline(__always)
    static func scanArray<Element>(_ text: String, capacity: (_ textBytes: Int, _ firstElementBytes: Int) -> Int,
                                   element: (inout Cursor) -> Element?) -> [Element]? {
        var copy = text
        return copy.withUTF8 { buffer -> [Element]? in
            var cursor = Cursor(buffer)
            cursor.skipWhitespace()
            guard cursor.at(UInt8(ascii: "[")) else { return nil }
            cursor.position += 1
            var elements: [Element] = []
            cursor.skipWhitespace()
            if cursor.at(UInt8(ascii: "]")) {
                cursor.position += 1
            } else {
                while true {
                    cursor.skipWhitespace()
                    guard cursor.position < buffer.count else { return nil }
                    let start = cursor.position
                    guard let value = element(&cursor) else { return nil }
                    if elements.isEmpty { elements.reserveCapacity(capacity(buffer.count, cursor.position - start)) }
                    elements.append(value)
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
            return cursor.position == buffer.count ? elements : nil
        }
    }
}
