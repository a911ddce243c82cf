import XMPP

/// The friend connections of one device as a value (issue 24 item 2, seed 003): which friends
/// should have a connection (the online ones), and each one's ``FriendConnectionPaths`` from
/// its candidate pairs, reported only on change. No I/O and no clock: `now` is the caller's
/// monotonic time, so tests run it as a table.
///
/// A pair counts as working while it has succeeded and its last check or consent response is
/// younger than the consent timeout (RFC 7675: 30 s). That, not presence, is how a friend who
/// lost the network is noticed: XEP-0198 hibernation keeps them "available" for minutes.
/// A pair that is not the selected one is only pinged now and then (libwebrtc: every few
/// seconds), so while the selected pair works the others count within ``backupTimeout``; when
/// it stops, they count within the consent timeout like it (a blackout empties the paths after
/// the consent timeout, not the longer one). The longer window is for pairs that answer the
/// checks they get: one with ``unansweredChecksThatEndBackupGrace`` or more checks unanswered
/// since its last response is failing and counts within the consent timeout too (after ICE
/// moved from a dead pair to another, the dead one is no longer selected, and without this rule
/// its last packet, seconds old, kept it listed for up to the backup window).
public struct FriendPathTracker: Sendable {
    /// What the tracker is told.
    public enum Input: Hashable, Sendable {
        /// The friend is online (presence): a connection should exist.
        case friendOnline(JID)
        /// The friend went offline or stopped being a friend: no connection, no paths.
        case friendOffline(JID)
        /// The friend connection's candidate pairs now (all of them, from one stats report).
        case pairs(JID, [CandidatePairObservation])
        /// Time passed: consent may have expired.
        case tick
    }

    /// What the caller must do or report.
    public enum Action: Hashable, Sendable {
        /// Open the friend connection (a data-channel-only peer connection).
        case openConnection(JID)
        /// Close it.
        case closeConnection(JID)
        /// The friend's paths changed (`didUpdatePaths`).
        case pathsChanged(JID, FriendConnectionPaths)
    }

    private struct Entry: Sendable {
        var pairs: [CandidatePairObservation] = []
        var paths: FriendConnectionPaths = []
    }

    /// Unanswered checks (``CandidatePairObservation/unansweredChecks``: sent before the
    /// previous read and not answered since) that end a non-selected pair's backup window: one.
    public static let unansweredChecksThatEndBackupGrace = 1

    /// How long a pair stays working after its last response.
    public let consentTimeout: Duration
    /// How long a pair other than the selected one stays working after its last response, while
    /// the selected pair works.
    public let backupTimeout: Duration
    private var friends: [JID: Entry] = [:]
    /// Pair reports for friends with no connection, ignored.
    public private(set) var ignoredReports = 0

    /// A tracker with no friend online; `backupTimeout` defaults to `consentTimeout`.
    public init(consentTimeout: Duration = .seconds(30), backupTimeout: Duration? = nil) {
        self.consentTimeout = consentTimeout
        self.backupTimeout = max(consentTimeout, backupTimeout ?? consentTimeout)
    }

    /// The current paths of `friend` (empty when offline): `getFriendPaths(friendId:)`.
    public func paths(of friend: JID) -> FriendConnectionPaths { friends[friend.bare]?.paths ?? [] }

    /// The friends that have a connection now.
    public var connectedFriends: [JID] { friends.keys.sorted() }

    /// Takes one input at monotonic time `now`.
    public mutating func receive(_ input: Input, now: Duration) -> [Action] {
        switch input {
        case .friendOnline(let jid):
            guard friends[jid.bare] == nil else { return [] }
            friends[jid.bare] = Entry()
            return [.openConnection(jid.bare)]
        case .friendOffline(let jid):
            guard let entry = friends.removeValue(forKey: jid.bare) else { return [] }
            return (entry.paths.isEmpty ? [] : [.pathsChanged(jid.bare, [])]) + [.closeConnection(jid.bare)]
        case .pairs(let jid, let pairs):
            guard friends[jid.bare] != nil else {
                ignoredReports += 1
                return []
            }
            friends[jid.bare]?.pairs = pairs
            return update(jid.bare, now: now)
        case .tick:
            return friends.keys.sorted().flatMap { update($0, now: now) }
        }
    }

    private mutating func update(_ jid: JID, now: Duration) -> [Action] {
        guard let entry = friends[jid] else { return [] }
        func works(_ pair: CandidatePairObservation, within window: Duration) -> Bool {
            guard pair.succeeded, let last = pair.lastResponseAt else { return false }
            return now - last < window
        }
        let selectedWorks = entry.pairs.contains { $0.selected && works($0, within: consentTimeout) }
        func window(_ pair: CandidatePairObservation) -> Duration {
            let backup = selectedWorks && !pair.selected && pair.unansweredChecks < Self.unansweredChecksThatEndBackupGrace
            return backup ? backupTimeout : consentTimeout
        }
        var paths: FriendConnectionPaths = []
        for pair in entry.pairs where works(pair, within: window(pair)) {
            paths.formUnion(pair.path)
        }
        guard paths != entry.paths else { return [] }
        friends[jid]?.paths = paths
        return [.pathsChanged(jid, paths)]
    }
}
