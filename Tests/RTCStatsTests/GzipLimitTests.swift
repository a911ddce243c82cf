import CallScopeTestSupport
import Foundation
import RTCStats
import Testing

/// Decompression stops at the configured limits, while inflating.
@Suite struct GzipLimitTests {
    /// A hand-made gzip bomb: one literal `byte`, then `matches` copies of 258 bytes at
    /// distance 1, in one fixed-Huffman block (RFC 1951 §3.2.6): 13 bits per 258 bytes of
    /// output. No trailer: the limits must stop it before the end.
    static func bomb(byte: UInt8, matches: Int) -> [UInt8] {
        var output: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3]
        var buffer: UInt64 = 0
        var count = 0
        func put(_ value: Int, _ bits: Int) {
            buffer |= UInt64(value) << UInt64(count)
            count += bits
            while count >= 8 {
                output.append(UInt8(buffer & 0xFF))
                buffer >>= 8
                count -= 8
            }
        }
        /// A Huffman code, most significant bit first.
        func code(_ value: Int, _ bits: Int) {
            for bit in stride(from: bits - 1, through: 0, by: -1) { put((value >> bit) & 1, 1) }
        }
        put(1, 1)  // Last block.
        put(1, 2)  // Fixed Huffman.
        // Literals 0–143 are 8-bit codes 0x30 + value; 144–255 are 9-bit 0x190 + value - 144.
        if byte < 144 { code(0x30 + Int(byte), 8) } else { code(0x190 + Int(byte) - 144, 9) }
        for _ in 0..<matches {
            code(0xC5, 8)  // Length symbol 285 = 258 (8-bit code 0xC0 + 285 - 280).
            code(0, 5)  // Distance symbol 0 = 1.
        }
        code(0, 7)  // End of block (256).
        if count > 0 { output.append(UInt8(buffer & 0xFF)) }
        return output
    }

    @Test func theBombInflatesToWhatItSays() {
        // Without limits and with a short bomb: the decoder sees 1 + 258 × 100 bytes of 'x',
        // then the missing trailer.
        let prefix = Gzip.decompressPrefix(Self.bomb(byte: UInt8(ascii: "x"), matches: 100))
        let (output, error) = (prefix.output, prefix.error)
        #expect(output.count == 1 + 258 * 100)
        #expect(output.allSatisfy { $0 == UInt8(ascii: "x") })
        #expect(error?.code == .truncated)
    }

    /// 10 MB of newlines from 65 kB of gzip: stopped at 4 MiB of output.
    @Test func theExpandedSizeIsCapped() {
        let limits = StatsReadLimits(maximumExpandedBytes: 4 << 20, maximumLineBytes: 1 << 20)
        let prefix = Gzip.decompressPrefix(Self.bomb(byte: 0x0A, matches: 40_000), limits: limits)
        let (output, error) = (prefix.output, prefix.error)
        #expect(error?.code == .expandedSizeLimit)
        #expect(error?.message.contains("\(4 << 20) bytes") == true)
        #expect(output.count <= (4 << 20) + 258)
    }

    /// One endless line: stopped at the line limit, long before the size limit.
    @Test func aSingleLineIsCapped() {
        let limits = StatsReadLimits(maximumExpandedBytes: 64 << 20, maximumLineBytes: 1 << 20)
        let prefix = Gzip.decompressPrefix(Self.bomb(byte: UInt8(ascii: "{"), matches: 40_000), limits: limits)
        let (output, error) = (prefix.output, prefix.error)
        #expect(error?.code == .lineLengthLimit)
        #expect(output.count <= (1 << 20) + (256 << 10) + 258, "checked every 256 KiB")
    }

    @Test func theTimelineRefusesABombWithTheLimitError() {
        let bomb = Self.bomb(byte: UInt8(ascii: "["), matches: 40_000)
        let limits = StatsReadLimits(maximumExpandedBytes: 8 << 20, maximumLineBytes: 2 << 20)
        let error = #expect(throws: StatsParseError.self) { try StatsTimeline.read(bomb, limits: limits) }
        #expect(error?.code == .lineLengthLimit)
    }

    /// The defaults read every real capture we ship.
    @Test(arguments: ["webrtc-internals-subscriber.json.gz", "webrtc-internals-publisher.json.gz", "baseline-simulcast.ndjson.gz"])
    func theDefaultsReadRealRecordings(name: String) throws {
        let bytes = [UInt8](try Data(contentsOf: Synthetic.repositoryRoot().appendingPathComponent("Recordings/\(name)")))
        let timeline = try StatsTimeline.read(bytes)
        #expect(timeline.problems.isEmpty)
        #expect(!timeline.samples.isEmpty)
    }
}
