import CallScopeCore
@testable import Calls

/// A mesh signalling for the session tests: the room is us and the attendees given; each
/// publication session is `pub-<subscriber>` with subscriber id `sid-<subscriber>`, answered at
/// once with `answer <handle>`. Every call is recorded, in order.
final class FakeMeshSignaling: MeshSignaling, Sendable {
    private let state = Locked<[String]>([])
    private let unwanted = Locked<Set<RouterHandleID>>([])
    private let continuation: AsyncStream<SignalingEvent>.Continuation
    let events: AsyncStream<SignalingEvent>
    let own: FeedID
    let attendees: [FeedID]

    init(own: FeedID, attendees: [FeedID]) {
        self.own = own
        self.attendees = attendees
        (events, continuation) = AsyncStream<SignalingEvent>.makeStream()
    }

    var calls: [String] { state.withLock { $0 } }
    func emit(_ event: SignalingEvent) { continuation.yield(event) }
    private func record(_ call: String) { state.withLock { $0.append(call) } }

    static func handle(_ subscriber: FeedID) -> RouterHandleID { RouterHandleID("pub-\(subscriber.rawValue)") }

    func openPublication(to subscriber: FeedID) async throws -> MeshPublicationLink {
        record("open \(subscriber)")
        return MeshPublicationLink(handle: Self.handle(subscriber),
                                   subscriber: RelayedSubscriber(connectionId: subscriber.rawValue, subscriberId: "sid-\(subscriber.rawValue)"))
    }

    func offerPublication(_ offer: SessionDescription, on handle: RouterHandleID) async throws -> SessionDescription {
        record("offer \(handle) \(offer.sdp)")
        return SessionDescription(kind: .answer, sdp: "answer \(handle)")
    }

    func restartPublicationIce(offer: SessionDescription, on handle: RouterHandleID) async throws -> SessionDescription {
        record("restart \(handle)")
        return SessionDescription(kind: .answer, sdp: "restart answer \(handle)")
    }

    /// Records `replace HANDLE OFFER`; the new session is `HANDLE-2` (subscriber id `sid-…-2`),
    /// answered with `replaced answer HANDLE-2`.
    func replacePublication(_ offer: SessionDescription, on handle: RouterHandleID) async throws -> ReplacedPublication {
        record("replace \(handle) \(offer.sdp)")
        let subscriber = String(handle.rawValue.dropFirst("pub-".count))
        let link = MeshPublicationLink(handle: RouterHandleID("\(handle.rawValue)-2"),
                                       subscriber: RelayedSubscriber(connectionId: subscriber, subscriberId: "sid-\(subscriber)-2"))
        return ReplacedPublication(link: link, answer: SessionDescription(kind: .answer, sdp: "replaced answer \(link.handle)"))
    }

    func closePublication(_ handle: RouterHandleID) async { record("closePublication \(handle)") }

    /// The subscriber of `handle` falls back to audio (`false`) or wants video again.
    func setWantsVideo(_ wants: Bool, on handle: RouterHandleID) { unwanted.withLock { if wants { $0.remove(handle) } else { $0.insert(handle) } } }
    func subscriberWantsVideo(on handle: RouterHandleID) async -> Bool { !unwanted.withLock { $0.contains(handle) } }

    func join(display: String?) async throws -> RoomJoin {
        RoomJoin(participantID: own, participantHandle: RouterHandleID("mesh"), feeds: [],
                 attendees: attendees.map { RouterAttendee(id: $0, display: nil) })
    }

    func publish(offer: SessionDescription) async throws -> SessionDescription {
        record("publish")
        throw SignalingError("a mesh publishes per subscriber")
    }

    func unpublish() async throws { record("unpublish") }
    func restartPublisherIce(offer: SessionDescription) async throws -> SessionDescription { throw SignalingError("not built") }
    func republish(offer: SessionDescription, display: String?, participantID: FeedID) async throws -> Republished { throw SignalingError("not built") }
    func subscribe(to feed: FeedID) async throws -> SubscriptionOffer { throw SignalingError(routerCode: 428, "no feed") }
    func start(_ handle: RouterHandleID, answer: SessionDescription) async throws {}
    func restartIce(_ handle: RouterHandleID) async throws { throw SignalingError("not built") }
    func configure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws {}
    func sendConfigure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws -> Task<Void, any Error> { Task {} }
    func trickle(_ candidate: IceCandidate?, on handle: RouterHandleID) async throws { record("trickle \(handle)") }
    func close(_ handle: RouterHandleID) async {}
    func leave() async { continuation.finish() }
    func describePublishedStream(_ description: String) async throws {}
    func isPublishing(_ feed: FeedID) async throws -> Bool? { false }
}
