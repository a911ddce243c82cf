import Foundation
import Testing
import XMPP
import XMPPClient

/// `callscope call --xmpp` on a real Prosody (and its coturn): the built `callscope` binary run
/// twice, Bob with `--answer alice@…`, Alice with `--call bob@…`, both `--publish` and
/// `--format ndjson`, each with its own headless Chromium. From the two outputs: both sessions
/// connected, each subscriber received video, and each publisher's media-link stats name the
/// other's connection. Gated by CALLSCOPE_REAL=1 (Scripts/test.sh, under the rig lock).
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["CALLSCOPE_REAL"] == "1" && ProsodyServers.installed))
struct RealCallCommandXMPPTests {
    static let alice = JID(local: "alice", domain: ProsodyServers.domain)
    static let bob = JID(local: "bob", domain: ProsodyServers.domain)
    /// How long each call runs after it joined and published.
    static let duration = 6

    /// The built `callscope` executable (`swift build` builds it with the tests).
    static var executable: String { RigProcess.repository.appendingPathComponent(".build/debug/callscope").path }

    func log(_ line: String) { print("call-xmpp-real: \(line)") }

    @Test(.timeLimit(.minutes(2)))
    func aliceCallsBobAnswersBothPublish() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable), "build callscope first (swift build): \(Self.executable)")
        let startAt = ContinuousClock.now
        let servers = try await ProsodyServers(users: ["alice": "alice-pw", "bob": "bob-pw"])
        var commands: [CallscopeCallProcess] = []
        do {
            try await befriend(servers)
            // Bob first, so that Alice's proposal finds his device online.
            let answering = try CallscopeCallProcess(arguments: arguments(servers, "bob", "--answer", Self.alice), password: "bob-pw")
            commands.append(answering)
            try await waitUntilOnline(Self.bob, servers)
            let calling = try CallscopeCallProcess(arguments: arguments(servers, "alice", "--call", Self.bob), password: "alice-pw")
            commands.append(calling)
            // Both normally exit 10-12 s after their start; one deadline for both keeps a hang
            // within Scripts/test.sh's 90 s, cleanup included.
            let deadline = ContinuousClock.now + .seconds(35)
            let bob = await answering.finish(by: deadline), alice = await calling.finish(by: deadline)
            log("alice exited \(alice.status), bob exited \(bob.status); whole test \(String(format: "%.2f s", (ContinuousClock.now - startAt).seconds))")
            for (name, command, result) in [("bob", answering, bob), ("alice", calling, alice)] {
                log("measured \(name): session.didConnect \(result.secondsTo("session.didConnect", from: command.launchedAt)), "
                    + "publisher.didConnect \(result.secondsTo("publisher.didConnect", from: command.launchedAt)), "
                    + "subscriber.didConnect \(result.secondsTo("subscriber.didConnect", from: command.launchedAt)), exit \(String(format: "%.2f s", result.ranFor)) after its start")
            }
            try check(alice: alice, bob: bob)
        } catch {
            Issue.record("call-xmpp-real: \(error)")
        }
        for command in commands {
            await command.stop()
            command.removeOutput()
        }
        await servers.stop()
    }

    private func arguments(_ servers: ProsodyServers, _ user: String, _ role: String, _ friend: JID) -> [String] {
        ["call", "--xmpp", servers.webSocketURL.absoluteString, "--jid", "\(user)@\(ProsodyServers.domain)", role, friend.description,
         "--publish", "--duration", "\(Self.duration)", "--format", "ndjson"]
    }

    /// Alice asks, Bob approves, both log out (the commands log in with their own resource).
    private func befriend(_ servers: ProsodyServers) async throws {
        let alice = XMPPClient(account: XMPPAccount(jid: Self.alice, password: "alice-pw", webSocketURL: servers.webSocketURL))
        let bob = XMPPClient(account: XMPPAccount(jid: Self.bob, password: "bob-pw", webSocketURL: servers.webSocketURL))
        let aliceLog = EventLog.recording(alice), bobLog = EventLog.recording(bob)
        try await alice.connect()
        try await bob.connect()
        try await alice.addFriend(Self.bob)
        _ = await bobLog.first(within: .seconds(5)) { $0 == .roster(.subscriptionRequest(from: Self.alice)) }
        try await bob.approveFriendRequest(from: Self.alice)
        let mutual = await aliceLog.first(within: .seconds(5)) { Self.online(Self.bob, $0) }
        await alice.disconnect()
        await bob.disconnect()
        try #require(mutual != nil, "alice and bob became friends")
    }

    /// Waits (as Alice, on another resource) until `friend`'s device is online.
    private func waitUntilOnline(_ friend: JID, _ servers: ProsodyServers) async throws {
        let watcher = XMPPClient(account: XMPPAccount(jid: Self.alice, password: "alice-pw", resource: "watcher", webSocketURL: servers.webSocketURL))
        let events = EventLog.recording(watcher)
        try await watcher.connect()
        let online = await events.first(within: .seconds(20)) { Self.online(friend, $0) }
        await watcher.disconnect()
        try #require(online != nil, "\(friend) never came online")
    }

    private static func online(_ friend: JID, _ event: XMPPClientEvent) -> Bool {
        switch event {
        case .roster(.friendAdded(let entry)), .roster(.friendChanged(let entry)): entry.jid == friend && entry.availability != .offline
        default: false
        }
    }

    /// What the two outputs must show.
    private func check(alice: CallscopeCallProcess.Result, bob: CallscopeCallProcess.Result) throws {
        #expect(alice.status == 0, "alice's callscope: \(alice.standardError)")
        #expect(bob.status == 0, "bob's callscope: \(bob.standardError)")
        let aliceID = try #require(alice.connectionID, "alice's session connected: \(alice.standardError)")
        let bobID = try #require(bob.connectionID, "bob's session connected: \(bob.standardError)")
        for (name, result, peer) in [("alice", alice, bobID), ("bob", bob, aliceID)] {
            let received = result.videoBytesReceived
            log("\(name): connection \(result.connectionID ?? "-"), subscriber video bytes \(received.suffix(4)), publisher links \(result.publisherLinkConnections.suffix(2)), \(result.lines.count) lines")
            #expect(received.contains { $0 > 0 } && received.last! > received.first!, "\(name)'s subscriber received video: \(received)")
            #expect(!result.publisherLinkConnections.isEmpty && result.publisherLinkConnections.allSatisfy { $0 == [peer] },
                    "\(name)'s publisher stats name \(peer) only: \(result.publisherLinkConnections)")
        }
    }
}
