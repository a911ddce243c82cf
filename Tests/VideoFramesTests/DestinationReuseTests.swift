#if arch(x86_64)
import Testing
@testable import VideoFrames

/// When the AVX2 YUV → BGRA kernels write around the cache: a destination counts as cached when
/// the conversions since its last one began moved at most the budget. Expected values by hand
/// from the frame sizes: 720p I420 → BGRA moves 1280 × 720 × 3/2 + 1280 × 720 × 4 =
/// 5,068,800 bytes, 1080p 1920 × 1080 × 11/2 = 11,404,800; the budget is 16 MiB = 16,777,216.
@Suite("Destination reuse decides the stores")
struct DestinationReuseTests {
    static let budget = 16 << 20
    static let frame720p = 5_068_800
    static let frame1080p = 11_404_800

    /// The decisions for conversions into `addresses`, in turn, each moving `bytes`.
    static func decisions(_ addresses: [UInt], bytes: Int, budget: Int = budget) -> [Bool] {
        var reuse = DestinationReuse(budget: budget)
        return addresses.map { reuse.record(destination: $0, bytes: bytes) }
    }

    @Test func theSameFrameAgainIsCached() {
        // 1 never written; then 5,068,800 ≤ budget each time.
        #expect(Self.decisions([1, 1, 1], bytes: Self.frame720p) == [false, true, true])
        // 11,404,800 ≤ budget.
        #expect(Self.decisions([1, 1], bytes: Self.frame1080p) == [false, true])
    }

    @Test func aPoolFitsWhileItsCycleFitsTheBudget() {
        // Three 720p buffers: 3 × 5,068,800 = 15,206,400 ≤ budget.
        #expect(Self.decisions([1, 2, 3, 1, 2, 3], bytes: Self.frame720p) == [false, false, false, true, true, true])
        // Four: 20,275,200 > budget, every time.
        #expect(Self.decisions([1, 2, 3, 4, 1, 2, 3, 4], bytes: Self.frame720p).allSatisfy { !$0 })
        // Two 1080p buffers: 22,809,600 > budget.
        #expect(Self.decisions([1, 2, 1, 2], bytes: Self.frame1080p).allSatisfy { !$0 })
    }

    @Test func otherDestinationsInBetweenCount() {
        // 1, then 2 and 3 (1080p each): 1 again at 3 × 11,404,800 > budget; 3 again at
        // 2 × 11,404,800 (3 itself and 1) > budget too; a 720p pair would fit.
        #expect(Self.decisions([1, 2, 3, 1, 3], bytes: Self.frame1080p) == [false, false, false, false, false])
        #expect(Self.decisions([1, 2, 1], bytes: Self.frame720p) == [false, false, true])
    }

    @Test func noBudgetNeverCounts() {
        #expect(Self.decisions([1, 1, 1], bytes: 1, budget: 0) == [false, false, false])
    }

    @Test func atMostSixteenDestinationsAreRemembered() {
        // Tiny frames, far within the budget: 1 is forgotten once 16 others came after it.
        #expect(Self.decisions(Array(1...16) + [1], bytes: 1).last == true)
        #expect(Self.decisions(Array(1...17) + [1], bytes: 1).last == false)
    }

    /// The shared form counts a frame's planes, padding included, on both sides.
    @Test func aConversionMovesItsSourceAndDestination() throws {
        var rng = SplitMix64(seed: 41)
        let source = TestFrame.random(.i420, width: 1280, height: 720, using: &rng)
        var destination = TestFrame(.bgra, width: 1280, height: 720)
        for (budget, second) in [(Self.frame720p, true), (Self.frame720p - 1, false)] {
            let reuse = SharedDestinationReuse(budget: budget)
            let decisions = try source.withFrame { frame in
                try destination.withMutableFrame { [reuse.record(frame, $0), reuse.record(frame, $0)] }
            }
            #expect(decisions == [false, second], "budget \(budget)")
        }
    }

    @Test(arguments: [("32768K", 33_554_432), ("32M", 33_554_432), ("1048576", 1_048_576), ("1G", 1 << 30)] as [(String, Int)])
    func cacheSizes(text: String, bytes: Int) {
        #expect(LastLevelCache.parseSize(text) == bytes)
    }

    @Test(arguments: ["", "K", "-1K", "12X", "32 M", "99999999999999999999G"])
    func notCacheSizes(text: String) {
        #expect(LastLevelCache.parseSize(text) == nil)
    }
}
#endif
