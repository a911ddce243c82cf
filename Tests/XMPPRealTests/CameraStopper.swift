@testable import CallsChromium
import Foundation

/// Stops a publisher's camera for real (its video track ended, as when the device goes away or
/// another app takes it), which `CallPublisher.publishVideo = false` does not do (that disables
/// the track, which goes on sending black frames). The engine's page keeps its tracks to itself,
/// so the test reaches the page through the same chromedriver session the engine uses: its
/// port and session id are in the chromedriver log of the engine's work directory. Before the
/// publication, ``watchTracks()`` has the page note every track given to a transceiver; then
/// ``stopVideo()`` stops the noted video tracks (``enabledVideoTracks()`` counts those still on). (The engine's own WebDriver client, reached with
/// `@testable`: Foundation's URLSession fails on this machine's libcurl.)
struct CameraStopper {
    let port: Int
    let session: String

    /// Reads the port and session from `<workDirectory>/chromedriver.log`; `nil` when it does not
    /// name them.
    init?(workDirectory: String) {
        guard let log = try? String(contentsOfFile: workDirectory + "/chromedriver.log", encoding: .utf8) else { return nil }
        guard let portLine = log.split(separator: "\n").first(where: { $0.contains("was started successfully on port ") }),
              let port = portLine.split(separator: " ").last.flatMap({ Int($0) }) else { return nil }
        guard let sessionLine = log.split(separator: "\n").first(where: { $0.contains("] COMMAND ") && $0.contains("][INFO]: [") }),
              let open = sessionLine.range(of: "][INFO]: ["), let close = sessionLine[open.upperBound...].firstIndex(of: "]") else { return nil }
        self.port = port
        self.session = String(sessionLine[open.upperBound..<close])
    }

    /// Has the page note the tracks its transceivers are given (before the publication).
    func watchTracks() async throws {
        _ = try await execute("""
            if (!window.callscopeTestTracks) {
              window.callscopeTestTracks = [];
              const add = RTCPeerConnection.prototype.addTransceiver;
              RTCPeerConnection.prototype.addTransceiver = function (trackOrKind, init) {
                if (typeof trackOrKind !== 'string') window.callscopeTestTracks.push(trackOrKind);
                return add.call(this, trackOrKind, init);
              };
            }
            return null;
            """)
    }

    /// How many of the noted video tracks are live and enabled (a relayed publisher's audio
    /// fallback disables its track on the subscriber's connection).
    func enabledVideoTracks() async throws -> Int {
        Int(try await execute("""
            return (window.callscopeTestTracks || []).filter(t => t.kind === 'video' && t.readyState === 'live' && t.enabled).length;
            """) ?? -1)
    }

    /// Stops every video track noted; returns how many it stopped.
    @discardableResult
    func stopVideo() async throws -> Int {
        let result = try await execute("""
            let stopped = 0;
            for (const track of window.callscopeTestTracks || []) if (track.kind === 'video' && track.readyState === 'live') { track.stop(); stopped += 1; }
            return stopped;
            """)
        return Int(result ?? 0)
    }

    private func execute(_ script: String) async throws -> Double? {
        try await WebDriverClient(port: UInt16(port)).executeSync(session: session, script: script).number
    }
}

