import Calls
import CallsChromium
import Foundation
import Observability
import Testing

/// How many friend connections one device holds (docs/peer-to-peer.md): N loopback pairs of
/// data-channel-only peer connections in one headless Chromium (2N connections, both ends of
/// each pair), each end doing what a friend connection does every 500 ms (a keepalive on its
/// channel, a `getStats()`), with the browser's memory and CPU measured at each N. A measurement,
/// not a CI step: `CALLSCOPE_FRIEND_CAPACITY=10,25,50` (the counts of pairs) turns it on.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["CALLSCOPE_FRIEND_CAPACITY"] != nil))
struct FriendCapacityMeasurement {
    @Test(.timeLimit(.minutes(20)))
    func dataChannelConnectionsInOneBrowser() async throws {
        let counts = (ProcessInfo.processInfo.environment["CALLSCOPE_FRIEND_CAPACITY"] ?? "").split(separator: ",").compactMap { Int($0) }.sorted()
        let profile = NSTemporaryDirectory() + "callscope-capacity-\(UUID().uuidString)"
        let engine = try await ChromiumMediaEngine.launch(ChromiumOptions(workDirectory: profile))
        let router = CandidateRouter()
        let events = engine.events
        let routing = Task { for await event in events { await router.handle(event, engine: engine) } }
        var pairs: [(PeerConnectionID, PeerConnectionID)] = []
        let idle = BrowserUsage.sample(matching: profile)
        print(String(format: "friend-capacity: browser idle: %.0f MiB PSS in %d processes", idle.pssMiB, idle.processes))
        for count in counts {
            let setupStart = ContinuousClock.now
            while pairs.count < count {
                let a = try await engine.makePeerConnection(PeerConnectionConfiguration())
                let b = try await engine.makePeerConnection(PeerConnectionConfiguration())
                await router.pair(a, b)
                try await engine.openDataChannel(label: "callscope-friend", on: a)
                let offer = try await engine.createOffer(on: a, iceRestart: false)
                try await engine.setLocalDescription(offer, on: a)
                try await engine.setRemoteDescription(offer, on: b)
                let answer = try await engine.createAnswer(on: b)
                try await engine.setRemoteDescription(answer, on: a)
                pairs.append((a, b))
            }
            let openDeadline = ContinuousClock.now + .seconds(60)
            while await router.openChannels < 2 * count, ContinuousClock.now < openDeadline { try await Task.sleep(for: .milliseconds(100)) }
            let setup = ContinuousClock.now - setupStart
            // 10 s of the friend manager's steady work: every 500 ms, a keepalive and a stats read per end.
            let before = BrowserUsage.sample(matching: profile)
            var rounds: [Duration] = []
            let windowStart = ContinuousClock.now
            while ContinuousClock.now - windowStart < .seconds(10) {
                let roundStart = ContinuousClock.now
                for (a, b) in pairs {
                    for pc in [a, b] {
                        try? await engine.sendData("keepalive", label: "callscope-friend", on: pc)
                        _ = try? await engine.stats(of: pc)
                    }
                }
                let round = ContinuousClock.now - roundStart
                rounds.append(round)
                if round < .milliseconds(500) { try await Task.sleep(for: .milliseconds(500) - round) }
            }
            let after = BrowserUsage.sample(matching: profile)
            let window = (ContinuousClock.now - windowStart).seconds
            let cpu = (after.cpuSeconds - before.cpuSeconds) / window * 100
            let sortedRounds = rounds.sorted()
            let median = sortedRounds[sortedRounds.count / 2].seconds * 1000
            let open = await router.openChannels
            print(String(format: "friend-capacity: %d pairs (%d connections, %d channels open) set up in %.1f s: browser %.0f MiB PSS (+%.2f MiB per connection over idle), CPU %.1f%% of one core, poll round median %.0f ms (max %.0f ms)",
                         count, 2 * count, open, setup.seconds, after.pssMiB, (after.pssMiB - idle.pssMiB) / Double(2 * count), cpu, median,
                         (sortedRounds.last ?? .zero).seconds * 1000))
            #expect(open == 2 * count, "every channel opened")
        }
        routing.cancel()
        await engine.shutdown()
    }
}

/// Forwards each connection's candidates to the other end of its pair and counts open channels.
actor CandidateRouter {
    private var partner: [PeerConnectionID: PeerConnectionID] = [:]
    private(set) var openChannels = 0

    func pair(_ a: PeerConnectionID, _ b: PeerConnectionID) {
        partner[a] = b
        partner[b] = a
    }

    func handle(_ event: MediaEngineEvent, engine: ChromiumMediaEngine) async {
        switch event {
        case .candidate(let pc, let candidate?):
            if let other = partner[pc] { try? await engine.addRemoteCandidate(candidate, on: other) }
        case .dataChannelOpen:
            openChannels += 1
        default:
            break
        }
    }
}

/// The memory and CPU time of the browser's processes (those whose command line names its
/// profile). Memory is PSS (`/proc/PID/smaps_rollup`): RSS would count the pages the processes
/// share once per process.
struct BrowserUsage {
    var pssMiB = 0.0
    var cpuSeconds = 0.0
    var processes = 0

    static func sample(matching marker: String) -> BrowserUsage {
        var usage = BrowserUsage()
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] where Int(entry) != nil {
            guard let command = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"),
                  String(decoding: command, as: UTF8.self).contains(marker),
                  let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8) else { continue }
            usage.processes += 1
            if let rollup = try? String(contentsOfFile: "/proc/\(entry)/smaps_rollup", encoding: .utf8),
               let line = rollup.split(separator: "\n").first(where: { $0.hasPrefix("Pss:") }),
               let kilobytes = line.split(separator: " ").compactMap({ Double($0) }).first {
                usage.pssMiB += kilobytes / 1024
            }
            // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th after ")".
            if let close = stat.lastIndex(of: ")") {
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) { usage.cpuSeconds += (user + system) / ticks }
            }
        }
        return usage
    }
}

