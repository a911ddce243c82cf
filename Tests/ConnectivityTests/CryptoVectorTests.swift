import Connectivity
import Testing

/// The published test vectors: RFC 1321 §A.5 (MD5), RFC 3174 §7.3 (SHA-1), RFC 2202 §3
/// (HMAC-SHA1), and the CRC-32 check value of "123456789".
@Suite struct CryptoVectorTests {
    @Test(arguments: [
        ("", "d41d8cd98f00b204e9800998ecf8427e"),
        ("a", "0cc175b9c0f1b6a831c399e269772661"),
        ("abc", "900150983cd24fb0d6963f7d28e17f72"),
        ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
        ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
        ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
        (String(repeating: "1234567890", count: 8), "57edf4a22be3c955ac49da2e2107b67a"),
    ])
    func md5MatchesRFC1321(input: String, digest: String) {
        #expect(hexString(MD5.digest(Array(input.utf8))) == digest)
    }

    @Test(arguments: [
        ("abc", 1, "a9993e364706816aba3e25717850c26c9cd0d89d"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1, "84983e441c3bd26ebaae4aa1f95129e5e54670f1"),
        ("a", 1_000_000, "34aa973cd4c4daa4f61eeb2bdbad27316534016f"),
        ("0123456701234567012345670123456701234567012345670123456701234567", 10, "dea356a2cddd90c7a7ecedc5ebb563934f460452"),
    ])
    func sha1MatchesRFC3174(input: String, repeats: Int, digest: String) {
        let bytes = Array(String(repeating: input, count: repeats).utf8)
        #expect(hexString(SHA1.digest(bytes)) == digest)
    }

    @Test(arguments: [
        ([UInt8](repeating: 0x0B, count: 20), Array("Hi There".utf8), "b617318655057264e28bc0b6fb378c8ef146be00"),
        (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8), "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
        ([UInt8](repeating: 0xAA, count: 20), [UInt8](repeating: 0xDD, count: 50), "125d7342b9ac11cd91a39af48aa17b4f63f175d3"),
        (Array(1...25), [UInt8](repeating: 0xCD, count: 50), "4c9007f4026250c6bc8414f9bf50c86c2d7235da"),
        ([UInt8](repeating: 0x0C, count: 20), Array("Test With Truncation".utf8), "4c1a03424b55e07fe7f27be1d58bb9324a9a5a04"),
        ([UInt8](repeating: 0xAA, count: 80), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8), "aa4ae5e15272d00e95705637ce8a3b55ed402112"),
        ([UInt8](repeating: 0xAA, count: 80), Array("Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data".utf8), "e8e99d0f45237d786d6bbaa7965c7808bbff1a91"),
    ])
    func hmacSHA1MatchesRFC2202(key: [UInt8], data: [UInt8], code: String) {
        #expect(hexString(HMACSHA1.authenticationCode(key: key, message: data)) == code)
    }

    @Test func crc32CheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    /// Lengths around the padding boundary (55/56/63/64 bytes) against Python's hashlib,
    /// computed when this test was written: the one-block/two-block split is where
    /// hand-written digests break.
    @Test(arguments: [
        (55, "ef1772b6dff9a122358552954ad0df65", "c1c8bbdc22796e28c0e15163d20899b65621d65a"),
        (56, "3b0c8ac703f828b04c6c197006d17218", "c2db330f6083854c99d4b5bfb6e8f29f201be699"),
        (63, "b06521f39153d618550606be297466d5", "03f09f5b158a7a8cdad920bddc29b81c18a551f5"),
        (64, "014842d480b571495a4a0363793f7367", "0098ba824b5c16427bd7a1122a5a442a25ec644d"),
    ])
    func paddingBoundaries(length: Int, md5: String, sha1: String) {
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
        #expect(hexString(MD5.digest(bytes)) == md5)
        #expect(hexString(SHA1.digest(bytes)) == sha1)
    }
}
