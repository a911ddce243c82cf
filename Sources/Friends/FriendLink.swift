import Calls
import Observability
import FriendConnections
import XMPP

/// One friend connection as the manager tracks it: the Jingle session and its peer connection.
struct FriendLink: Sendable {
    /// The friend's resource the session is with.
    var friend: JID
    /// Who offers.
    var role: FriendSessionRole
    /// The Jingle session id; empty until the responder receives an offer.
    var sid: String
    /// Restarts ICE once per silence of the selected pair.
    var silentPairRestart: SilentPairRestart
    /// The peer connection, once made.
    var peerConnection: PeerConnectionID?
    /// Our offer or answer went out: local candidates may follow it.
    var descriptionSent = false
    /// The remote offer or answer is set: remote candidates may be added.
    var remoteDescriptionSet = false
    /// Local candidates gathered before our description went out.
    var pendingLocal: [IceCandidate] = []
    /// Remote candidates that arrived before the remote description.
    var pendingRemote: [IceCandidate] = []
    /// The data channel is open (keepalives flow).
    var channelOpen = false
    /// Reads the connection's stats.
    var reader = CandidatePairReader()
    /// The last remote description's SDP: an ICE restart's remote description is made from it
    /// with the new credentials.
    var remoteSDP: String?
    /// Our ICE restart offer went out and its answer has not come yet (initiator only).
    var restartInFlight = false
    /// When the last ICE restart started (manager time): one that got no answer within
    /// ``FriendManager/restartAnswerTimeout`` no longer blocks the next.
    var restartStarted: Duration = .zero
    /// Waits ``FriendManager/disconnectionGrace`` after ICE went `disconnected`, then restarts
    /// (the responder asks the initiator to); cancelled when ICE connects again by itself.
    var disconnectionRestart: Task<Void, Never>?
    /// Reads the stats faster while the selected pair is silent (``FriendStatsCadence``); `nil`
    /// while the rounds read them.
    var fastReads: Task<Void, Never>?
}

/// Why the path tracker was told something (a lost path hints at a network change; a friend
/// who left does not).
enum FriendPathCause {
    case presence
    case stats
}
