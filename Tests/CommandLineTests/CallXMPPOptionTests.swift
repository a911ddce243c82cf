import CallsJingle
import Foundation
import Testing
import XMPP

@testable import callscope

/// `callscope call --xmpp URL --jid JID --call|--answer FRIEND`: a relayed call with one friend.
struct CallXMPPOptionTests {
    private let xmpp = ["--xmpp", "ws://127.0.0.1:5280/xmpp-websocket", "--jid", "alice@example.org"]
    /// Any variable the test process has, standing in for the password's.
    private let passwordFromPath = ["--password-env", "PATH"]

    @Test func callAndAnswerTakeTheFriendsBareJIDAndTheRole() throws {
        let calling = try CallCommand(arguments: xmpp + passwordFromPath + ["--call", "bob@example.org/laptop", "--publish"])
        let (account, friend, role) = try calling.xmpp.account()
        #expect(account.jid == JID("alice@example.org")! && account.webSocketURL.absoluteString == "ws://127.0.0.1:5280/xmpp-websocket")
        #expect(account.password == ProcessInfo.processInfo.environment["PATH"])
        #expect(friend == JID("bob@example.org")! && role == .caller)
        let answering = try CallCommand(arguments: xmpp + passwordFromPath + ["--answer", "bob@example.org"])
        #expect(try answering.xmpp.account().role == .callee)
        #expect(calling.janus == nil)
    }

    @Test(arguments: [
        ["--xmpp", "http://127.0.0.1:5280/xmpp-websocket", "--jid", "alice@example.org", "--call", "bob@example.org"],
        ["--xmpp", "ws://127.0.0.1:5280/x", "--jid", "example.org", "--call", "bob@example.org"],
        ["--xmpp", "ws://127.0.0.1:5280/x", "--jid", "alice@example.org"],
        ["--xmpp", "ws://127.0.0.1:5280/x", "--call", "bob@example.org"],
        ["--xmpp", "ws://127.0.0.1:5280/x", "--jid", "alice@example.org", "--call", "bob@example.org", "--answer", "carol@example.org"],
        ["--xmpp", "ws://127.0.0.1:5280/x", "--jid", "alice@example.org", "--call", "bob@example.org", "--janus", "http://127.0.0.1:8088/janus"],
        ["--xmpp", "ws://127.0.0.1:5280/x", "--jid", "alice@example.org", "--call", "bob@example.org", "--password-env", "CALLSCOPE_TEST_UNSET_VARIABLE"],
        ["--xmpp", "ws://127.0.0.1:5280/x", "--jid", "alice@example.org", "--call", "bob@example.org", "--password-env", "A=B"],
    ])
    func refusedAsUsageErrors(arguments: [String]) {
        let withPassword = arguments.contains("--password-env") ? arguments : arguments + passwordFromPath
        #expect(throws: UsageError.self) { try CallCommand(arguments: withPassword) }
    }
}
