/// The masking of RFC 6455 §5.3: payload byte `i` is XORed with key byte `i mod 4`. Applying it
/// twice gives the bytes back, so it both masks and unmasks.
package struct WebSocketMasking: Sendable, Hashable {
    /// The 4 key bytes, in wire order.
    package let key: (UInt8, UInt8, UInt8, UInt8)

    /// A key from its 4 bytes, in wire order.
    package init(_ key: (UInt8, UInt8, UInt8, UInt8)) { self.key = key }

    /// A key from its 4 wire bytes; `nil` unless there are exactly 4.
    package init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count == 4 else { return nil }
        let array = Array(bytes)
        key = (array[0], array[1], array[2], array[3])
    }

    /// A fresh random key.
    package static func random() -> WebSocketMasking {
        WebSocketMasking((UInt8.random(in: 0...255), UInt8.random(in: 0...255), UInt8.random(in: 0...255), UInt8.random(in: 0...255)))
    }

    /// The key bytes as an array.
    package var bytes: [UInt8] { [key.0, key.1, key.2, key.3] }

    // A tuple is neither Equatable nor Hashable: compare and hash the 4 bytes.
    package static func == (lhs: WebSocketMasking, rhs: WebSocketMasking) -> Bool { lhs.bytes == rhs.bytes }
    package func hash(into hasher: inout Hasher) { hasher.combine(bytes) }

    /// XORs `bytes` in place, as the payload bytes from offset `position` of the frame (a frame
    /// read in pieces continues where the last piece stopped). Eight bytes at a time: this is
    /// on the frame channel's hot path.
    package func apply(to bytes: UnsafeMutableRawBufferPointer, position: Int) {
        guard let base = bytes.baseAddress else { return }
        let keyBytes = self.bytes
        var rotated: UInt64 = 0
        for index in 0..<8 { rotated |= UInt64(keyBytes[(position + index) & 3]) << (8 * UInt64(index)) }
        let wide = UInt64(littleEndian: rotated)
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            base.storeBytes(of: word ^ wide, toByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < bytes.count {
            bytes[offset] ^= keyBytes[(position + offset) & 3]
            offset += 1
        }
    }

    /// `bytes` masked (or unmasked) from payload offset 0.
    package func applied(to bytes: [UInt8]) -> [UInt8] {
        var copy = bytes
        copy.withUnsafeMutableBytes { apply(to: $0, position: 0) }
        return copy
    }
}
