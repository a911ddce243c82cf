import Foundation
import FriendConnections
import Testing

/// The values behind a friend connection surviving a network change: when the XEP-0215 TURN
/// credentials are asked for again, and the remote description of an ICE restart made from the
/// previous one with only the new credentials (as a Jingle transport-info carries them).
@Suite struct NetworkChangeValueTests {
    // MARK: TURN credential lifetime

    /// coturn's `use-auth-secret` usernames: the expiry in Unix seconds, optionally `:user`.
    @Test(arguments: [
        ("1767225600", Int64?.some(1_767_225_600)),
        ("1767225600:alice", 1_767_225_600),
        ("0", 0),
        ("alice", nil),                 // a static TURN user: no expiry
        ("", nil),
        (":1767225600", nil),
        ("-5", nil),
        ("+5", nil),
        ("12 34", nil),
        ("99999999999999999999", nil),  // over Int64
    ] as [(String, Int64?)])
    func expiryIsReadFromTheUsername(username: String, expiry: Int64?) {
        #expect(TURNCredentialLifetime(username: username)?.expiry == expiry)
    }

    /// Half of the time left, at least 5 s. Prosody's default `turn_external_ttl` is a day
    /// (86,400 s): fetched at once, asked again after 43,200 s.
    @Test(arguments: [
        (86_400.0, Duration.seconds(43_200)),   // a day left: half a day
        (3_600, .seconds(1_800)),
        (20, .seconds(10)),
        (11, .milliseconds(5_500)),
        (9, .seconds(5)),                       // 4.5 s: the 5 s floor
        (0, .seconds(5)),                       // expired now
        (-100, .seconds(5)),                    // expired long ago
    ] as [(Double, Duration)])
    func refreshedAtHalfTheRemainingLifetime(remaining: Double, delay: Duration) {
        let lifetime = TURNCredentialLifetime(username: "1767225600:alice")!
        #expect(lifetime.refreshDelay(now: 1_767_225_600 - remaining) == delay)
    }

    // MARK: ICE restart descriptions

    static let offer = try! String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("JingleTests/Fixtures/chromium-datachannel-offer.sdp"), encoding: .utf8)

    @Test func credentialsAreReadPerContent() {
        // Read off the captured Chromium offer by hand.
        #expect(IceRestartDescription.credentials(in: Self.offer) == [.init(contentName: "0", usernameFragment: "qdij", password: "YyhnSzIrW7UEornrMqh7FAqQ")])
    }

    @Test func sessionLevelCredentialsApplyToMediaWithoutTheirOwn() {
        let sdp = "v=0\r\na=ice-ufrag:sess\r\na=ice-pwd:sessionpassword0000000\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:a\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:v\r\na=ice-ufrag:own\r\na=ice-pwd:ownpassword0000000000000\r\n"
        #expect(IceRestartDescription.credentials(in: sdp) == [
            .init(contentName: "a", usernameFragment: "sess", password: "sessionpassword0000000"),
            .init(contentName: "v", usernameFragment: "own", password: "ownpassword0000000000000"),
        ])
    }

    @Test func theRestartOfferIsThePreviousOneWithNewCredentials() throws {
        let new = IceRestartDescription.Credentials(contentName: "0", usernameFragment: "Nw3x", password: "newPasswordOf24Chars/+ab")
        let restarted = try #require(IceRestartDescription.sdp(replacingCredentialsIn: Self.offer, with: [new]))
        let lines = restarted.components(separatedBy: "\r\n")
        #expect(lines.contains("a=ice-ufrag:Nw3x"))
        #expect(lines.contains("a=ice-pwd:newPasswordOf24Chars/+ab"))
        #expect(!lines.contains("a=ice-ufrag:qdij"))
        #expect(!lines.contains { $0.hasPrefix("a=candidate:") })
        #expect(lines.contains("o=- 6279265955324661793 3 IN IP4 127.0.0.1"))      // version 2 → 3
        // Everything else is the offer's, line for line.
        let kept = Self.offer.split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.isEmpty && !$0.hasPrefix("a=candidate:") && !$0.hasPrefix("a=ice-ufrag") && !$0.hasPrefix("a=ice-pwd") && !$0.hasPrefix("o=") }
        #expect(lines.filter { !$0.isEmpty && !$0.hasPrefix("a=ice-u") && !$0.hasPrefix("a=ice-pwd") && !$0.hasPrefix("o=") } == kept)
        #expect(restarted.hasSuffix("\r\n"))
        #expect(IceRestartDescription.credentials(in: restarted) == [new])
    }

    @Test(arguments: [
        IceRestartDescription.Credentials(contentName: "1", usernameFragment: "Nw3x", password: "newPasswordOf24Chars0000"),   // no such content
        .init(contentName: "0", usernameFragment: "Nw3x\r\na=evil", password: "newPasswordOf24Chars0000"),                        // breaks a line
        .init(contentName: "0", usernameFragment: "Nw 3x", password: "newPasswordOf24Chars0000"),
        .init(contentName: "0", usernameFragment: "Nw3x", password: ""),
    ])
    func unusableCredentialsAreRefused(credentials: IceRestartDescription.Credentials) {
        #expect(IceRestartDescription.sdp(replacingCredentialsIn: Self.offer, with: [credentials]) == nil)
    }
}
