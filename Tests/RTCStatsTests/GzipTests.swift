import CallScopeTestSupport
import RTCStats
import Testing

@Suite struct GzipTests {
    @Test(arguments: ["inflate-dynamic.ndjson.gz"])
    func dynamicHuffmanBlocksInflateToTheOriginal(name: String) throws {
        let plain = try Synthetic.fixture("inflate-plain.ndjson")
        #expect(try Gzip.decompress(Synthetic.fixture(name)) == plain)
    }

    @Test func storedBlocksInflateToTheOriginal() throws {
        let plain = try Synthetic.fixture("inflate-plain.ndjson")
        #expect(try Gzip.decompress(Synthetic.fixture("inflate-stored.ndjson.gz")) == Array(plain.prefix(3000)))
    }

    @Test func concatenatedMembersAreJoined() throws {
        #expect(try Gzip.decompress(Synthetic.fixture("inflate-two-members.gz")) == Array("first member\nsecond member\n".utf8))
    }

    @Test func aTruncatedStreamKeepsItsDecodedPrefixAndSaysSo() throws {
        let compressed = try Synthetic.fixture("inflate-dynamic.ndjson.gz")
        let plain = try Synthetic.fixture("inflate-plain.ndjson")
        let prefix = Gzip.decompressPrefix(Array(compressed.prefix(compressed.count / 2)))
        let (output, error) = (prefix.output, prefix.error)
        #expect(error?.code == .truncated)
        #expect(!output.isEmpty)
        #expect(Array(plain.prefix(output.count)) == output)
    }

    @Test func garbageAfterTheMagicIsACorruptionErrorNotACrash() {
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<200 {
            let bytes: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let prefix = Gzip.decompressPrefix(bytes)
            let (_, error) = (prefix.output, prefix.error)
            #expect(error != nil)
        }
    }
}
