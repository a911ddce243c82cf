import Dispatch

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// How many threads a conversion may use.
public enum Parallelism: Sendable, Hashable {
    /// The calling thread only.
    case none
    /// Up to this many threads, rows split into bands of equal size; frames smaller than
    /// ``FrameConverter/parallelMinimumPixels`` still use one.
    case threads(Int)

    /// As many threads as the machine has active cores.
    public static var automatic: Parallelism { .threads(activeProcessorCount) }

    /// The active cores of this machine.
    public static var activeProcessorCount: Int {
        max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)
    }
}

/// Splits the chroma rows of a frame into bands and runs them, in parallel when allowed.
enum RowBands {
    /// Calls `body` once per band of `0..<chromaRows`, on up to `threads` threads, and returns
    /// when all have finished.
    static func run(chromaRows: Int, threads: Int, _ body: (Range<Int>) -> Void) {
        let bands = min(max(threads, 1), chromaRows)
        guard bands > 1 else {
            body(0..<chromaRows)
            return
        }
        withoutActuallyEscaping(body) { body in
            let shared = BandBody(body: body)
            DispatchQueue.concurrentPerform(iterations: bands) { band in
                shared.body((band * chromaRows / bands)..<((band + 1) * chromaRows / bands))
            }
        }
    }
}

/// A band body handed to several threads.
///
/// `@unchecked Sendable` because the closure captures frame views (raw pointers). It is safe:
/// each call gets a disjoint band of chroma rows, the kernels write only the destination rows
/// of their band, they only read the source, and `run` returns after every call has finished,
/// before the caller's memory can change hands.
private struct BandBody: @unchecked Sendable {
    let body: (Range<Int>) -> Void
}
