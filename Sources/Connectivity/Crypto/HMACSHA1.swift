/// HMAC-SHA1 (RFC 2104), the MAC of STUN's MESSAGE-INTEGRITY attribute.
package enum HMACSHA1 {
    /// The 20-byte MAC of `message` under `key` (keys longer than a block are hashed first).
    package static func authenticationCode(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        var block = key.count > SHA1.blockSize ? SHA1.digest(key) : Array(key)
        block += [UInt8](repeating: 0, count: SHA1.blockSize - block.count)
        let inner = SHA1.digest(block.map { $0 ^ 0x36 } + Array(message))
        return SHA1.digest(block.map { $0 ^ 0x5C } + inner)
    }
}
