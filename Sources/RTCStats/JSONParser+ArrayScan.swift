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
        var reader = NumberElements()
        return scanArray(text, with: &reader)
    }

    /// A JSON array of strings without escapes (`["a","a","b"]`), as string values; a string
    /// equal to the one before it shares that one's storage. `nil` when the text is anything
    /// else, including an escape or an unescaped control character (the general parser then
    /// reads it, and explains any error).
    static func parseStringArray(_ text: String) -> [JSONValue]? {
        var reader = StringElements()
        return scanArray(text, with: &reader)
    }

    /// Walks a JSON array (whitespace allowed around every token) whose every element `reader`
    /// reads; `nil` when the text is not such an array. Generic over the reader (not a
    /// closure) so that each use is specialised with its element code inlined.
    static func scanArray<Reader: ArrayElementReader>(_ text: String, with reader: inout Reader) -> [Reader.Element]? {
        var copy = text
        return copy.withUTF8 { buffer -> [Reader.Element]? in
            var cursor = Cursor(buffer)
            cursor.skipWhitespace()
            guard cursor.at(UInt8(ascii: "[")) else { return nil }
            cursor.position += 1
            var elements: [Reader.Element] = []
            cursor.skipWhitespace()
            if cursor.at(UInt8(ascii: "]")) {
                cursor.position += 1
            } else {
                while true {
                    cursor.skipWhitespace()
                    guard cursor.position < buffer.count else { return nil }
                    guard reader.read(&cursor, into: &elements) else { return nil }
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

/// How ``JSONParser/scanArray(_:with:)`` reads one kind of element.
protocol ArrayElementReader {
    associatedtype Element
    /// Reads the element starting at the cursor (at its first byte, never past the end),
    /// appends it to `elements` and leaves the cursor after it; `false` gives up on the whole
    /// array. Appending here (not returning an optional) saves a copy of each element, and
    /// lets the reader reserve room before the first append from what it has just read.
    mutating func read(_ cursor: inout Cursor, into elements: inout [Element]) -> Bool
}

/// Numbers, as doubles.
struct NumberElements: ArrayElementReader {
    @inline(__always) mutating func read(_ cursor: inout Cursor, into elements: inout [Double]) -> Bool {
        let byte = cursor.bytes[cursor.position]
        guard byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") < 10, let number = try? cursor.parseNumber() else { return false }
        if elements.isEmpty { elements.reserveCapacity(cursor.bytes.count / 4) }
        elements.append(number)
        return true
    }
}

/// Strings without escapes, a repeat sharing the storage of the string before it.
struct StringElements: ArrayElementReader {
    /// The string before, and where its bytes are (kept apart: binding an optional tuple
    /// copied the string at every element).
    private var previousRange = 0..<0
    private var previousString: String?

    @inline(__always) mutating func read(_ cursor: inout Cursor, into elements: inout [JSONValue]) -> Bool {
        let buffer = cursor.bytes
        guard buffer[cursor.position] == UInt8(ascii: "\"") else { return false }
        let start = cursor.position + 1
        var end = start
        while end < buffer.count {
            let byte = buffer[end]
            if byte == UInt8(ascii: "\"") { break }
            // An escape or a bare control character: the general parser decides.
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return false }
            end += 1
        }
        guard end < buffer.count else { return false }
        cursor.position = end + 1
        // Repeats are the rule: as many elements as the first one's length fits in the text.
        if elements.isEmpty { elements.reserveCapacity(buffer.count / (end - start + 3) + 1) }
        if let previousString, previousRange.count == end - start,
           memcmp(buffer.baseAddress! + previousRange.lowerBound, buffer.baseAddress! + start, end - start) == 0 {
            elements.append(.string(previousString))
            return true
        }
        // Quotes are ASCII, so the bytes between two of them in valid UTF-8 are valid UTF-8.
        let string = String(decoding: UnsafeBufferPointer(rebasing: buffer[start..<end]), as: UTF8.self)
        previousRange = start..<end
        previousString = string
        elements.append(.string(string))
        return true
    }

}
