import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Code of the real tests that runs inside a Linux network namespace (the rig's `csrig-*`
/// namespaces under `/var/run/netns`) while the test process stays in its own.
public enum NetworkNamespaceThread {
    /// Moves the calling thread, and only it, into the network namespace at `path`
    /// (`setns(2)` with `CLONE_NEWNET`); false when that fails (no such namespace, not root).
    public static func join(_ path: String) -> Bool {
        typealias SetNamespace = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(nil, "setns") else { return false }
        let setNamespace = unsafeBitCast(symbol, to: SetNamespace.self)
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return setNamespace(descriptor, 0x4000_0000) == 0          // CLONE_NEWNET
    }

    /// `body`'s result, computed on a thread of its own that first joins the namespace at
    /// `path` and ends with `body`, so no other code runs in the namespace; nil when the
    /// namespace cannot be joined.
    public static func run<Result: Sendable>(in path: String, _ body: @escaping @Sendable () -> Result) async -> Result? {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: join(path) ? body() : nil)
            }
            thread.start()
        }
    }
}
