/// A small gzip (RFC 1952) / DEFLATE (RFC 1951) decoder in Swift, so recordings can ship
/// compressed without the core depending on a C library.
package enum Gzip {
    /// What ``decompressPrefix(_:limits:)`` decoded, and the error that stopped it, if any.
    package struct Prefix: Sendable {
        /// The bytes decoded before the problem (all of them when there was none).
        package var output: [UInt8]
        /// What stopped the decoding; `nil` when the whole input decoded.
        package var error: StatsParseError?

        /// Both, for destructuring.
        var parts: ([UInt8], StatsParseError?) { (output, error) }
    }

    /// Whether `bytes` start with the gzip magic number.
    package static func isCompressed(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }

    /// Decompresses every gzip member in `bytes`, concatenated.
    ///
    /// Throws when the stream is damaged or truncated, when bytes that are not gzip follow it
    /// (``StatsParseError/Code/trailingData``), or when the output would pass `limits`; use
    /// ``decompressPrefix(_:limits:)`` to keep what was decoded before the problem.
    package static func decompress(_ bytes: [UInt8], limits: StatsReadLimits = .unlimited) throws(StatsParseError) -> [UInt8] {
        let (output, error) = decompressPrefix(bytes, limits: limits).parts
        if let error { throw error }
        return output
    }

    /// Decompresses as much as possible: the bytes decoded, and the error that stopped it, if any.
    /// A truncated recording still yields every complete line before the cut; bytes after the
    /// last member that are not gzip are reported as ``StatsParseError/Code/trailingData`` with
    /// the whole output kept.
    ///
    /// The limits are enforced while inflating (the output is checked every 256 KiB and at
    /// every block end), so a gzip bomb stops after at most `limits` plus one block's check
    /// interval of output, never after expanding in full.
    package static func decompressPrefix(_ bytes: [UInt8], limits: StatsReadLimits = .unlimited) -> Prefix {
        var inflater = Inflater(bytes, limits: limits)
        var output: [UInt8] = []
        output.reserveCapacity(min(bytes.count.multipliedReportingOverflow(by: 6).partialValue, limits.maximumExpandedBytes, 1 << 30))
        do throws(StatsParseError) {
            repeat {
                try inflater.readMemberHeader()
                let memberStart = output.count
                try inflater.inflate(into: &output)
                try inflater.checkTrailer(output[memberStart...])
            } while inflater.hasMoreMembers
            try inflater.checkLimits(output, final: true)
            let rest = bytes.count - inflater.position
            if rest > 0 {
                let zeros = bytes[inflater.position...].allSatisfy { $0 == 0 }
                return Prefix(output: output, error: StatsParseError(.trailingData, "\(rest) byte\(rest == 1 ? "" : "s") after the gzip stream \(zeros ? "(zero padding)" : "that are not gzip") were ignored", offset: inflater.position))
            }
            return Prefix(output: output, error: nil)
        } catch {
            return Prefix(output: output, error: error)
        }
    }
}

private struct Huffman {
    var counts = [Int](repeating: 0, count: 16)
    var symbols: [Int]
    /// Codes of up to `fastBits` bits, indexed by the next `fastBits` input bits (LSB first):
    /// `symbol << 4 | length`, or 0 for a longer code (decoded bit by bit).
    var fast = [UInt16](repeating: 0, count: 1 << Huffman.fastBits)
    static let fastBits = 9

    init(lengths: ArraySlice<Int>) throws(StatsParseError) {
        symbols = [Int](repeating: 0, count: lengths.count)
        for length in lengths { counts[length] += 1 }
        counts[0] = 0
        var left = 1
        for length in 1...15 {
            left <<= 1
            left -= counts[length]
            if left < 0 { throw StatsParseError(.corruptCompression, "gzip: over-subscribed Huffman code") }
        }
        var offsets = [Int](repeating: 0, count: 16)
        for length in 1..<15 { offsets[length + 1] = offsets[length] + counts[length] }
        for (symbol, length) in lengths.enumerated() where length != 0 {
            symbols[offsets[length]] = symbol
            offsets[length] += 1
        }
        // Canonical codes (RFC 1951 §3.2.2), bit-reversed for the LSB-first lookup table.
        var nextCode = [Int](repeating: 0, count: 16)
        var code = 0
        for length in 1...15 {
            code = (code + counts[length - 1]) << 1
            nextCode[length] = code
        }
        for (symbol, length) in lengths.enumerated() where length != 0 && length <= Huffman.fastBits {
            let canonical = nextCode[length]
            nextCode[length] += 1
            var reversed = 0
            for bit in 0..<length where canonical & (1 << bit) != 0 { reversed |= 1 << (length - 1 - bit) }
            var fill = reversed
            while fill < 1 << Huffman.fastBits {
                fast[fill] = UInt16(symbol << 4 | length)
                fill += 1 << length
            }
        }
    }
}

private struct Inflater {
    let input: [UInt8]
    var position = 0
    var bitBuffer: UInt32 = 0
    var bitCount = 0
    let limits: StatsReadLimits
    /// Output up to here has been checked against the limits; the next check is due at
    /// `nextCheck` bytes of output.
    var checkedUpTo = 0
    var nextCheck = 0
    /// Where the line being produced started.
    var lineStart = 0
    static let checkInterval = 256 << 10

    init(_ input: [UInt8], limits: StatsReadLimits) {
        self.input = input
        self.limits = limits
        nextCheck = min(Inflater.checkInterval, limits.maximumExpandedBytes &+ 1)
    }

    /// Checks the output produced since the last check: its total size and its longest line.
    mutating func checkLimits(_ output: [UInt8], final: Bool = false) throws(StatsParseError) {
        if output.count > limits.maximumExpandedBytes {
            throw StatsParseError(.expandedSizeLimit, "the decompressed data passes \(limits.maximumExpandedBytes) bytes (the configured maximumExpandedBytes; raise it in StatsReadLimits if the file is genuine)", offset: position)
        }
        if limits.maximumLineBytes < Int.max {
            output.withUnsafeBufferPointer { buffer in
                var index = buffer.count
                while index > checkedUpTo {
                    index -= 1
                    if buffer[index] == 0x0A {
                        lineStart = index + 1
                        break
                    }
                }
            }
            if output.count - lineStart > limits.maximumLineBytes {
                throw StatsParseError(.lineLengthLimit, "a decompressed line passes \(limits.maximumLineBytes) bytes (the configured maximumLineBytes; raise it in StatsReadLimits if the file is genuine)", offset: position)
            }
        }
        checkedUpTo = output.count
        let due = output.count + Inflater.checkInterval
        nextCheck = min(due, limits.maximumExpandedBytes &+ 1)
    }

    var hasMoreMembers: Bool {
        position + 1 < input.count && input[position] == 0x1F && input[position + 1] == 0x8B
    }

    static let truncated = StatsParseError(.truncated, "gzip data ends early (the file looks truncated)")

    mutating func byte() throws(StatsParseError) -> UInt8 {
        guard position < input.count else { throw Inflater.truncated }
        defer { position += 1 }
        return input[position]
    }

    mutating func readMemberHeader() throws(StatsParseError) {
        guard try byte() == 0x1F, try byte() == 0x8B else {
            throw StatsParseError(.corruptCompression, "not gzip data (bad magic number)")
        }
        guard try byte() == 8 else { throw StatsParseError(.corruptCompression, "gzip: unknown compression method") }
        let flags = try byte()
        position += 6
        if flags & 0x04 != 0 {
            let length = Int(try byte()) | Int(try byte()) << 8
            position += length
        }
        if flags & 0x08 != 0 { while try byte() != 0 {} }
        if flags & 0x10 != 0 { while try byte() != 0 {} }
        if flags & 0x02 != 0 { position += 2 }
        guard position <= input.count else { throw Inflater.truncated }
        bitBuffer = 0
        bitCount = 0
    }

    /// Checks the member's CRC-32 and length, so damage inside the data is caught too.
    mutating func checkTrailer(_ member: ArraySlice<UInt8>) throws(StatsParseError) {
        alignToByte()
        guard position + 8 <= input.count else { throw Inflater.truncated }
        var stored: [UInt32] = [0, 0]
        for word in 0..<2 {
            for byte in 0..<4 { stored[word] |= UInt32(input[position + word * 4 + byte]) << (8 * UInt32(byte)) }
        }
        position += 8
        guard stored[0] == CRC32.checksum(member), stored[1] == UInt32(truncatingIfNeeded: member.count) else {
            throw StatsParseError(.corruptCompression, "gzip: checksum mismatch (the data is damaged)")
        }
    }

    mutating func bits(_ count: Int) throws(StatsParseError) -> Int {
        while bitCount < count {
            bitBuffer |= UInt32(try byte()) << UInt32(bitCount)
            bitCount += 8
        }
        let value = Int(bitBuffer & ((1 << UInt32(count)) - 1))
        bitBuffer >>= UInt32(count)
        bitCount -= count
        return value
    }

    mutating func decode(_ huffman: Huffman) throws(StatsParseError) -> Int {
        while bitCount <= 24, position < input.count {
            bitBuffer |= UInt32(input[position]) << UInt32(bitCount)
            position += 1
            bitCount += 8
        }
        let entry = Int(huffman.fast[Int(bitBuffer & UInt32((1 << Huffman.fastBits) - 1))])
        let length = entry & 15
        if entry != 0, length <= bitCount {
            bitBuffer >>= UInt32(length)
            bitCount -= length
            return entry >> 4
        }
        var code = 0, first = 0, index = 0
        for length in 1...15 {
            code |= try bits(1)
            let count = huffman.counts[length]
            if code - count < first { return huffman.symbols[index + (code - first)] }
            index += count
            first += count
            first <<= 1
            code <<= 1
        }
        throw StatsParseError(.corruptCompression, "gzip: invalid Huffman code")
    }

    mutating func inflate(into output: inout [UInt8]) throws(StatsParseError) {
        var last = 0
        repeat {
            last = try bits(1)
            switch try bits(2) {
            case 0: try stored(into: &output)
            case 1: try codes(into: &output, literal: Inflater.fixedLiteral, distance: Inflater.fixedDistance)
            case 2:
                let (literal, distance) = try dynamicTables()
                try codes(into: &output, literal: literal, distance: distance)
            default: throw StatsParseError(.corruptCompression, "gzip: invalid block type")
            }
            if output.count >= nextCheck { try checkLimits(output) }
        } while last == 0
    }

    /// Drops the bits left of the current byte and gives back the whole bytes the decoder
    /// read ahead.
    mutating func alignToByte() {
        position -= bitCount / 8
        bitBuffer = 0
        bitCount = 0
    }

    mutating func stored(into output: inout [UInt8]) throws(StatsParseError) {
        alignToByte()
        let length = Int(try byte()) | Int(try byte()) << 8
        let complement = Int(try byte()) | Int(try byte()) << 8
        guard length == ~complement & 0xFFFF else { throw StatsParseError(.corruptCompression, "gzip: bad stored block length") }
        guard position + length <= input.count else { throw Inflater.truncated }
        output.append(contentsOf: input[position..<position + length])
        position += length
    }

    static let lengthBase = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    static let distanceBase = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    static let fixedLiteral: Huffman = {
        var lengths = [Int](repeating: 8, count: 288)
        for symbol in 144..<256 { lengths[symbol] = 9 }
        for symbol in 256..<280 { lengths[symbol] = 7 }
        return try! Huffman(lengths: lengths[...])  // A constant, valid code.
    }()
    static let fixedDistance: Huffman = try! Huffman(lengths: [Int](repeating: 5, count: 30)[...])  // A constant, valid code.

    mutating func codes(into output: inout [UInt8], literal: Huffman, distance: Huffman) throws(StatsParseError) {
        while true {
            if output.count >= nextCheck { try checkLimits(output) }
            let symbol = try decode(literal)
            if symbol < 256 {
                output.append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                let lengthIndex = symbol - 257
                guard lengthIndex < 29 else { throw StatsParseError(.corruptCompression, "gzip: invalid length symbol") }
                let length = Inflater.lengthBase[lengthIndex] + (try bits(Inflater.lengthExtra[lengthIndex]))
                let distanceIndex = try decode(distance)
                guard distanceIndex < 30 else { throw StatsParseError(.corruptCompression, "gzip: invalid distance symbol") }
                let back = Inflater.distanceBase[distanceIndex] + (try bits(Inflater.distanceExtra[distanceIndex]))
                guard back <= output.count else { throw StatsParseError(.corruptCompression, "gzip: distance too far back") }
                let start = output.count - back
                for offset in 0..<length { output.append(output[start + offset]) }
            }
        }
    }

    mutating func dynamicTables() throws(StatsParseError) -> (Huffman, Huffman) {
        let literalCount = try bits(5) + 257
        let distanceCount = try bits(5) + 1
        let codeLengthCount = try bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw StatsParseError(.corruptCompression, "gzip: bad code counts") }
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        var codeLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeLengthCount { codeLengths[order[index]] = try bits(3) }
        let lengthCode = try Huffman(lengths: codeLengths[...])
        var lengths = [Int](repeating: 0, count: literalCount + distanceCount)
        var index = 0
        while index < lengths.count {
            let symbol = try decode(lengthCode)
            if symbol < 16 {
                lengths[index] = symbol
                index += 1
                continue
            }
            var repeated = 0
            var times = 0
            switch symbol {
            case 16:
                guard index > 0 else { throw StatsParseError(.corruptCompression, "gzip: repeat with no previous length") }
                repeated = lengths[index - 1]
                times = 3 + (try bits(2))
            case 17: times = 3 + (try bits(3))
            default: times = 11 + (try bits(7))
            }
            guard index + times <= lengths.count else { throw StatsParseError(.corruptCompression, "gzip: too many code lengths") }
            for _ in 0..<times {
                lengths[index] = repeated
                index += 1
            }
        }
        return (try Huffman(lengths: lengths[0..<literalCount]), try Huffman(lengths: lengths[literalCount...]))
    }
}

/// CRC-32 (IEEE 802.3, reflected), as gzip stores it; eight bytes per step ("slicing by 8").
enum CRC32 {
    static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            tables[index] = value
        }
        for table in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(table - 1) * 256 + index]
                tables[table * 256 + index] = (previous >> 8) ^ tables[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        tables.withUnsafeBufferPointer { t in
            bytes.withUnsafeBufferPointer { b in
                var index = 0
                let count = b.count
                while index + 8 <= count {
                    let low = crc ^ (UInt32(b[index]) | UInt32(b[index + 1]) << 8 | UInt32(b[index + 2]) << 16 | UInt32(b[index + 3]) << 24)
                    crc = t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
                        ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
                        ^ t[3 * 256 + Int(b[index + 4])] ^ t[2 * 256 + Int(b[index + 5])]
                        ^ t[1 * 256 + Int(b[index + 6])] ^ t[Int(b[index + 7])]
                    index += 8
                }
                while index < count {
                    crc = t[Int((crc ^ UInt32(b[index])) & 0xFF)] ^ (crc >> 8)
                    index += 1
                }
            }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
