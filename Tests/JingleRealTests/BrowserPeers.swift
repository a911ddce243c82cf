import Foundation

/// Two RTCPeerConnections in one headless Chromium (Scripts/jingle_browser.py peer), driven by
/// JSON lines: they see each other's SDP only through what the test hands over.
final class BrowserPeers: @unchecked Sendable {
    // @unchecked: the process and its pipes are set in init; `request` is called from one test
    // at a time (the suite is serialized), so the reader is never used concurrently.
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered = Data()

    /// The repository root (from this file's path).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    init() throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.repository.appendingPathComponent("Scripts/jingle_browser.py").path, "peer"]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
    }

    /// Sends `request` and returns the answer line as an object; throws on `{"error": ...}`.
    func request(_ request: [String: Any]) throws -> [String: Any] {
        var line = try JSONSerialization.data(withJSONObject: request)
        line.append(UInt8(ascii: "\n"))
        try input.fileHandleForWriting.write(contentsOf: line)
        while !buffered.contains(UInt8(ascii: "\n")) {
            // availableData returns what the pipe holds (read(upToCount:) would wait for the
            // whole count); empty means the script ended.
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                throw BrowserFailure(message: "jingle_browser.py ended without answering")
            }
            buffered.append(chunk)
        }
        let newline = buffered.firstIndex(of: UInt8(ascii: "\n"))!
        let answer = buffered[buffered.startIndex..<newline]
        buffered = Data(buffered[buffered.index(after: newline)...])
        guard let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any] else {
            throw BrowserFailure(message: "not a JSON object: \(String(decoding: answer, as: UTF8.self).prefix(200))")
        }
        if let error = object["error"] { throw BrowserFailure(message: "\(error)") }
        return object
    }

    /// Asks the script to quit and waits for it (it ends Chromium and chromedriver itself).
    func close() {
        _ = try? input.fileHandleForWriting.write(contentsOf: Data("{\"quit\": true}\n".utf8))
        try? input.fileHandleForWriting.close()
        for _ in 0..<200 where process.isRunning { usleep(50_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    struct BrowserFailure: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
