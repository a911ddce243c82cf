#if arch(x86_64)
import Dispatch

/// Whether a frame destination is probably still in the last-level cache, from its reuse
/// distance: the bytes this process's conversions have moved since its last conversion began
/// (that one included). A destination whose distance is at most ``budget`` counts as cached.
///
/// It decides the AVX2 YUV → BGRA stores (``AVX2Kernels/writesAroundCache(_:recentlyWritten:)``):
/// non-temporal stores spare a destination that is not in cache the read before the write, but
/// they evict one that is, and then every frame goes to memory: converting the same 720p frame
/// back to back, 0.93–1.02× libyuv with them against 0.78–0.80× without (bench machine; frames
/// cycled from 64 MB, 0.66–0.73× with them against 0.84–1.05× without).
///
/// Only conversions are counted: other work that passes memory through the cache makes a
/// destination look nearer than it is, which costs what ordinary stores cost on a destination
/// that is not in cache (about libyuv's speed), nothing worse.
struct DestinationReuse: Sendable {
    /// The largest reuse distance, in bytes, at which a destination counts as cached.
    let budget: Int
    /// The bytes moved by the conversions recorded so far.
    private(set) var traffic = 0
    /// The destinations recorded within the budget, each with ``traffic`` when its last
    /// conversion began; the most recent last.
    private var lastWrites: [(address: UInt, trafficBefore: Int)] = []

    /// How many destinations are remembered (a pool of pixel buffers holds a few).
    static let capacity = 16

    init(budget: Int) {
        self.budget = budget
    }

    /// Records a conversion of `bytes` (source and destination) into the destination whose
    /// first byte is at `address`; returns whether that destination counts as cached, that
    /// is, was written before within the budget.
    mutating func record(destination address: UInt, bytes: Int) -> Bool {
        var cached = false
        if let index = lastWrites.firstIndex(where: { $0.address == address }) {
            cached = traffic - lastWrites[index].trafficBefore <= budget
            lastWrites.remove(at: index)
        }
        lastWrites.append((address, traffic))
        traffic += bytes
        lastWrites.removeAll { traffic - $0.trafficBefore > budget }
        if lastWrites.count > Self.capacity { lastWrites.removeFirst(lastWrites.count - Self.capacity) }
        return cached
    }
}

/// The process's ``DestinationReuse``, shared by every converter (the cache is). The budget is
/// half the last-level cache (other work and other cores use the rest); with the cache's size
/// unknown it is 0 and no destination counts as cached.
final class SharedDestinationReuse: @unchecked Sendable {
    // @unchecked: `reuse` is read and written only between `lock.wait()` and `lock.signal()`.
    private let lock = DispatchSemaphore(value: 1)
    private var reuse: DestinationReuse

    static let shared = SharedDestinationReuse(budget: LastLevelCache.bytes / 2)

    init(budget: Int) {
        reuse = DestinationReuse(budget: budget)
    }

    /// ``DestinationReuse/record(destination:bytes:)`` for a conversion of `source` into
    /// `destination`.
    func record(_ source: VideoFrame, _ destination: MutableVideoFrame) -> Bool {
        let address = UInt(bitPattern: destination.plane0.bytes.baseAddress)
        let bytes = source.plane0.bytes.count + source.plane1.bytes.count + source.plane2.bytes.count
            + destination.plane0.bytes.count + destination.plane1.bytes.count + destination.plane2.bytes.count
        lock.wait()
        defer { lock.signal() }
        return reuse.record(destination: address, bytes: bytes)
    }
}
#endif
