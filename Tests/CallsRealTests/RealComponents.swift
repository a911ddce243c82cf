import Foundation

/// Whether the real-component tests run: only when asked (`CALLSCOPE_REAL=1`, which
/// Scripts/test.sh sets) and when Janus, Chromium and chromedriver are installed.
enum RealComponents {
    static let janus = "/usr/bin/janus"
    static let chromedriver = "/usr/bin/chromedriver"
    static let chromium = "/usr/lib/chromium/chromium"

    static var enabled: Bool {
        ProcessInfo.processInfo.environment["CALLSCOPE_REAL"] == "1"
            && [janus, chromedriver, chromium].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The repository root (for Rig/janus).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}
