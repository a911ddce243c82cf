import XMPP
import XMPPClient

extension ProsodyServers {
    /// A client for `user` of this server (password `<user>-pw`, as the tests create them),
    /// pinging every 5 s and reconnecting after 0.1 s, then 0.5 s, so that an outage shows fast.
    func client(_ user: String) -> XMPPClient {
        XMPPClient(account: XMPPAccount(jid: JID(local: user, domain: ProsodyServers.domain), password: "\(user)-pw", webSocketURL: webSocketURL),
                   configuration: XMPPClientConfiguration(pingInterval: .seconds(5), reconnectionDelays: [.milliseconds(100), .milliseconds(500)]))
    }
}

/// `asker` asks `approver` for friendship, `approver` approves, and `asker` sees `approverJID`
/// as a friend who is not offline (within 5 s each). Both clients are connected and logged.
func becomeFriends(_ asker: (client: XMPPClient, jid: JID, log: EventLog), _ approver: (client: XMPPClient, jid: JID, log: EventLog)) async throws {
    try await asker.client.addFriend(approver.jid)
    let askerJID = asker.jid
    _ = await approver.log.first(within: .seconds(5)) { $0 == .roster(.subscriptionRequest(from: askerJID)) }
    try await approver.client.approveFriendRequest(from: asker.jid)
    let approverJID = approver.jid
    let mutual = await asker.log.first(within: .seconds(5)) { event in
        if case .roster(.friendChanged(let friend)) = event { friend.jid == approverJID && friend.availability != .offline }
        else if case .roster(.friendAdded(let friend)) = event { friend.jid == approverJID && friend.availability != .offline } else { false }
    }
    guard mutual != nil else { throw FriendshipNotMade(asker: asker.jid, approver: approver.jid) }
}

/// Connects `asker` and `approver` (with the JIDs `askerJID` and `approverJID`), records their
/// events, and makes them friends (``becomeFriends(_:_:)``): their event logs.
func connectAsFriends(_ asker: XMPPClient, _ askerJID: JID, _ approver: XMPPClient, _ approverJID: JID) async throws -> (asker: EventLog, approver: EventLog) {
    let askerLog = EventLog.recording(asker), approverLog = EventLog.recording(approver)
    try await asker.connect()
    try await approver.connect()
    try await becomeFriends((asker, askerJID, askerLog), (approver, approverJID, approverLog))
    return (askerLog, approverLog)
}

/// Two test users did not become friends in time.
struct FriendshipNotMade: Error, CustomStringConvertible {
    var asker: JID
    var approver: JID
    var description: String { "\(asker) and \(approver) did not become friends within 5 s" }
}
