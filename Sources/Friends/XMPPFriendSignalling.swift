import Calls
import XMPP
import XMPPClient

/// Carries ``FriendSignal``s as IQs of the XMPP client, each acknowledged by the friend's
/// client; `codec` maps them to and from the IQ payload.
final class XMPPFriendSignalling: FriendSignalling {
    let client: XMPPClient
    let codec: any FriendSignalCodec

    init(client: XMPPClient, codec: any FriendSignalCodec) {
        self.client = client
        self.codec = codec
    }

    func send(_ signal: FriendSignal, to friend: JID) async throws {
        try await client.set(codec.element(for: signal, from: await client.jid, to: friend), to: friend)
    }

    func incoming() async -> AsyncStream<(from: JID, signal: FriendSignal?)> {
        let (stream, continuation) = AsyncStream<(from: JID, signal: FriendSignal?)>.makeStream()
        let codec = codec
        await client.handleRequests(namespace: codec.namespace) { iq, from in
            guard let payload = iq.children.first else { return "bad-request" }
            switch codec.signal(from: payload) {
            case .success(let signal):
                continuation.yield((from, signal))
                return nil
            case .failure(let refusal):
                continuation.yield((from, nil))
                return refusal.condition
            }
        }
        return stream
    }

    func stopIncoming() async {
        await client.handleRequests(namespace: codec.namespace) { _, _ in "service-unavailable" }
    }
}

/// Maps ``FriendSignal``s to an IQ payload and back.
protocol FriendSignalCodec: Sendable {
    /// The payload's namespace.
    var namespace: String { get }
    /// The payload for `signal`, sent by `sender` to `recipient` (full JIDs).
    func element(for signal: FriendSignal, from sender: JID?, to recipient: JID) throws -> XMPPElement
    /// The signal in `payload`, or the stanza error condition to refuse it with.
    func signal(from payload: XMPPElement) -> Result<FriendSignal, FriendSignalRefusal>
}

/// A refused signalling payload: the stanza error condition to answer with.
struct FriendSignalRefusal: Error {
    let condition: String
}
