import Observability
import Calls
import CallScopeCore

/// A ``Signaling`` for unit tests: joins as `participantID` with the feeds given, opens
/// subscription handles `sub-1`, `sub-2`, ... with the offer `offer for FEED`, records every call
/// as a line, throws the router errors a test scripts, and emits the events a test hands to
/// ``emit(_:)``.
public final class FakeSignaling: Signaling, Sendable {
    private struct State {
        var calls: [String] = []
        var nextHandle = 0
        var feeds: [RouterFeed]
        var attendees: [RouterAttendee] = []
        var participantID: FeedID
        var publishing: [FeedID: Bool] = [:]
        var failures: [String: SignalingError] = [:]
        var offerSDP: String?
        var holding = false
        var held: [CheckedContinuation<Void, Never>] = []
    }

    /// The participant handle's id.
    public static let participantHandle = RouterHandleID("participant")

    /// Every event a test emitted, in order.
    public let events: AsyncStream<SignalingEvent>
    private let continuation: AsyncStream<SignalingEvent>.Continuation
    private let state: Locked<State>

    /// Signaling that joins as `participantID` into a room with `feeds` and `attendees` (who do
    /// not publish).
    public init(participantID: FeedID = FeedID("100"), feeds: [RouterFeed] = [], attendees: [RouterAttendee] = []) {
        state = Locked(State(feeds: feeds, attendees: attendees, participantID: participantID))
        (events, continuation) = AsyncStream<SignalingEvent>.makeStream()
    }

    /// What the next `join` answers (a rejoin after a lost session).
    public func setRoom(participantID: FeedID, feeds: [RouterFeed], attendees: [RouterAttendee] = []) {
        state.withLock {
            $0.participantID = participantID
            $0.feeds = feeds
            $0.attendees = attendees
        }
    }

    /// What ``isPublishing(_:)`` answers for `feed` (unset: `nil`, the router cannot tell).
    public func setPublishing(_ feed: FeedID, _ publishing: Bool) { state.withLock { $0.publishing[feed] = publishing } }

    /// Every call so far, one line each.
    public var calls: [String] { state.withLock { $0.calls } }

    /// Emits an event, as the router would.
    public func emit(_ event: SignalingEvent) { continuation.yield(event) }

    /// Makes later subscriptions offer `sdp` (e.g. with a video section, for layer choice)
    /// instead of `offer for FEED`.
    public func setSubscriptionOffer(_ sdp: String?) { state.withLock { $0.offerSDP = sdp } }

    /// Makes the next call whose line starts with `prefix` (e.g. `"subscribe 7"`) throw `error`.
    public func failNext(_ prefix: String, with error: SignalingError) { state.withLock { $0.failures[prefix] = error } }

    /// Makes later `configure` calls (and ``sendConfigure(_:streams:)``'s tasks) wait for their
    /// reply until ``releaseConfigureReplies()`` (a router whose replies are stuck behind a
    /// congested downlink).
    public func holdConfigureReplies() { state.withLock { $0.holding = true } }

    /// Lets every held `configure` return, and later ones return at once.
    public func releaseConfigureReplies() {
        let held = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.holding = false
            defer { state.held = [] }
            return state.held
        }
        for waiter in held { waiter.resume() }
    }

    private func record(_ line: String) throws(SignalingError) {
        let failure = state.withLock { state -> SignalingError? in
            state.calls.append(line)
            guard let prefix = state.failures.keys.first(where: { line.hasPrefix($0) }) else { return nil }
            return state.failures.removeValue(forKey: prefix)
        }
        if let failure { throw failure }
    }

    /// Records `join`.
    public func join(display: String?) async throws -> RoomJoin {
        try record("join \(display ?? "-")")
        return state.withLock { RoomJoin(participantID: $0.participantID, participantHandle: Self.participantHandle, feeds: $0.feeds,
                                         attendees: $0.attendees) }
    }

    /// Records `publish`, answers `answer to OFFER`.
    public func publish(offer: SessionDescription) async throws -> SessionDescription {
        try record("publish \(offer.sdp)")
        return SessionDescription(kind: .answer, sdp: "answer to \(offer.sdp)")
    }

    /// Records `unpublish`.
    public func unpublish() async throws { try record("unpublish") }

    /// Records `restartPublisherIce OFFER`, answers `answer to OFFER`.
    public func restartPublisherIce(offer: SessionDescription) async throws -> SessionDescription {
        try record("restartPublisherIce \(offer.sdp)")
        return SessionDescription(kind: .answer, sdp: "answer to \(offer.sdp)")
    }

    /// Records `republish ID OFFER`; joins again on `participant-N` under the id
    /// ``setRoom(participantID:feeds:)`` set (the one asked for, unless a test changed it).
    public func republish(offer: SessionDescription, display: String?, participantID: FeedID) async throws -> Republished {
        try record("republish \(participantID) \(offer.sdp)")
        let join = state.withLock { state -> RoomJoin in
            state.nextHandle += 1
            return RoomJoin(participantID: state.participantID, participantHandle: RouterHandleID("participant-\(state.nextHandle)"),
                            feeds: state.feeds)
        }
        return Republished(join: join, answer: SessionDescription(kind: .answer, sdp: "answer to \(offer.sdp)"))
    }

    /// Records `subscribe FEED`, opens `sub-N`.
    public func subscribe(to feed: FeedID) async throws -> SubscriptionOffer {
        try record("subscribe \(feed)")
        let handle = state.withLock { state -> RouterHandleID in
            state.nextHandle += 1
            return RouterHandleID("sub-\(state.nextHandle)")
        }
        let sdp = state.withLock { $0.offerSDP } ?? "offer for \(feed)"
        return SubscriptionOffer(handle: handle, offer: SessionDescription(kind: .offer, sdp: sdp))
    }

    /// Records `start HANDLE ANSWER`.
    public func start(_ handle: RouterHandleID, answer: SessionDescription) async throws {
        try record("start \(handle) \(answer.sdp)")
    }

    /// Records `restartIce HANDLE`.
    public func restartIce(_ handle: RouterHandleID) async throws { try record("restartIce \(handle)") }

    /// Records `configure HANDLE mid=M send=B substream=S temporal=T` (only the fields set), one
    /// entry per stream, `;`-separated.
    public func configure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws {
        try record(Self.configureLine(handle, streams))
        await reply()
    }

    private static func configureLine(_ handle: RouterHandleID, _ streams: [RouterStreamConfiguration]) -> String {
        let entries = streams.map { stream in
            (["mid=\(stream.mid)"] + [stream.send.map { "send=\($0)" }, stream.substream.map { "substream=\($0)" },
                                      stream.temporal.map { "temporal=\($0)" }].compactMap { $0 }).joined(separator: " ")
        }
        return "configure \(handle) " + entries.joined(separator: "; ")
    }

    /// Returns at once, or when replies are released while they are held.
    private func reply() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let wait = state.withLock { state -> Bool in
                if state.holding { state.held.append(waiter) }
                return state.holding
            }
            if !wait { waiter.resume() }
        }
    }

    /// Records `configure …` as ``configure(_:streams:)`` does, at once; the returned task waits
    /// for the reply while replies are held.
    public func sendConfigure(_ handle: RouterHandleID, streams: [RouterStreamConfiguration]) async throws -> Task<Void, any Error> {
        try record(Self.configureLine(handle, streams))
        return Task { await self.reply() }
    }

    /// Records `trickle HANDLE CANDIDATE`.
    public func trickle(_ candidate: IceCandidate?, on handle: RouterHandleID) async throws {
        try record("trickle \(handle) \(candidate?.candidate ?? "end")")
    }

    /// Records `close HANDLE`.
    public func close(_ handle: RouterHandleID) async { try? record("close \(handle)") }

    /// Records `describe DESCRIPTION`.
    public func describePublishedStream(_ description: String) async throws { try record("describe \(description)") }

    /// Records `isPublishing FEED`; answers what ``setPublishing(_:_:)`` set, else `nil`.
    public func isPublishing(_ feed: FeedID) async throws -> Bool? {
        try record("isPublishing \(feed)")
        return state.withLock { $0.publishing[feed] }
    }

    /// Records `leave` and finishes ``events``.
    public func leave() async {
        try? record("leave")
        continuation.finish()
    }
}
