import Calls
import CallScopeCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A process we start and must stop: chromedriver (and the Chromium it starts), or Janus in tests.
///
/// Started with `posix_spawn` in a process group of its own, with an empty signal mask and
/// default signal actions: a child of a Swift concurrency thread otherwise inherits that
/// thread's blocked signals, and then ignores the SIGTERM that should stop it (measured here:
/// chromedriver started through Foundation's `Process` kept running after SIGTERM), and with
/// every descriptor above stderr closed.
package final class ChildProcess: Sendable {
    /// The process id (also its process group id).
    package let pid: Int32
    private let exited = Locked<Bool>(false)
    private let status = Locked<Int32?>(nil)

    /// Starts `executable` with `arguments`; its output goes to `outputPath` (or nowhere).
    package init(executable: String, arguments: [String], outputPath: String? = nil) throws(ChildProcessError) {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        sigdelset(&allSignals, SIGKILL)
        sigdelset(&allSignals, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let output = outputPath ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Our sockets (URLSession's, chromedriver connections) must not leak into the child: a
        // chromedriver holding a Janus connection of ours open keeps it from closing.
        closeInheritedDescriptors(&actions)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        guard result == 0 else {
            throw ChildProcessError(executable: executable, message: String(cString: strerror(result)))
        }
        pid = child
    }

    /// Whether the process has not exited yet (reaps it when it has).
    package var isRunning: Bool {
        exited.withLock { exited in
            if exited { return false }
            var code: Int32 = 0
            let result = waitpid(pid, &code, WNOHANG)
            if result == pid {
                exited = true
                // WIFEXITED / WEXITSTATUS, spelled out (the C macros are not imported).
                let exitCode: Int32? = (code & 0x7f) == 0 ? (code >> 8) & 0xff : nil
                status.withLock { $0 = exitCode }
            } else if result < 0 && errno == ECHILD {
                exited = true
            }
            return !exited
        }
    }

    /// Waits (polling every 10 ms) until the process exits; its exit code, or `nil` when it was
    /// killed by a signal or reaped elsewhere.
    package func exitCode() async -> Int32? {
        while isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        return status.withLock { $0 }
    }

    /// SIGKILL to the whole process group at once (a crash, for tests); returns when it exited.
    package func killAbruptly() async {
        kill(-pid, SIGKILL)
        while isRunning { try? await Task.sleep(for: .milliseconds(20)) }
    }

    /// SIGTERM to the whole process group, then SIGKILL after `grace`; returns when it has exited.
    package func stop(grace: Duration = .seconds(3)) async {
        guard isRunning else {
            kill(-pid, SIGKILL)         // a leader gone may leave children in its group
            return
        }
        kill(-pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(50)) }
        kill(-pid, SIGKILL)
        while isRunning { try? await Task.sleep(for: .milliseconds(20)) }
    }
}

/// Adds "close every descriptor from 3 up" to the child's file actions: glibc's
/// `posix_spawn_file_actions_addclosefrom_np` (2.34+, looked up at run time since the Swift
/// Glibc module does not export it), else one close per descriptor open now.
private func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    #if canImport(Glibc)
    if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
        let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
        if closeFrom(&actions, 3) == 0 { return }
    }
    #endif
    guard let directory = opendir("/proc/self/fd") else { return }
    defer { closedir(directory) }
    let own = dirfd(directory)
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if let fd = Int32(name), fd > 2, fd != own { posix_spawn_file_actions_addclose(&actions, fd) }
    }
}

/// A process could not be started.
package struct ChildProcessError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The executable.
    package var executable: String
    /// The system's reason.
    package var message: String
    /// `cannot start PATH: reason`.
    package var description: String { "cannot start \(executable): \(message)" }
}
