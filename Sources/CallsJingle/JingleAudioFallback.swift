import Calls
import Jingle

/// The audio fallback between friends, over Jingle, as both the two-party call
/// (``JingleCallSignaling``) and the mesh (``JingleMeshCallSignaling``) speak it: the subscriber
/// asks the publisher of a session to stop sending a content, or to send it again, with a
/// XEP-0166 `content-modify` of that session (`senders='none'` / `senders='initiator'`: the
/// publisher is the session's initiator), and the publisher keeps what each subscriber asked.
///
/// Only `send` travels: `substream` and `temporal` have no place here (nothing between the
/// friends forwards layers; a relayed publisher sends one layer per connection).
enum JingleAudioFallback {
    /// What a subscriber's ``Signaling/configure(_:streams:)`` asks of the publication `offer`
    /// (session `sid`): the `content-modify` for the contents whose `send` differs from what was
    /// asked before (`paused`: the contents asked to stop), and the paused contents after it.
    /// `nil` when nothing changes (no `send`, a mid the offer does not have, or the same ask).
    static func request(sid: String, offer: JingleSession, paused: Set<String>,
                        streams: [RouterStreamConfiguration]) -> (request: JingleRequest, paused: Set<String>)? {
        var changed: [JingleContent] = []
        var after = paused
        for stream in streams {
            guard let send = stream.send, offer.contents.contains(where: { $0.name == stream.mid }),
                  after.contains(stream.mid) == send else { continue }
            changed.append(JingleContent(creator: .initiator, name: stream.mid, senders: send ? .initiator : .none))
            if send { after.remove(stream.mid) } else { after.insert(stream.mid) }
        }
        guard !changed.isEmpty else { return nil }
        return (JingleRequest(action: .contentModify, sessionID: sid, session: JingleSession(contents: changed)), after)
    }

    /// The contents a subscriber asked us to stop sending, after its `content-modify`: a content
    /// whose senders leave the initiator (us) out (`none`, `responder`) is paused, any other
    /// (`initiator`, `both`) sent again.
    static func paused(after request: JingleRequest, _ paused: Set<String>) -> Set<String> {
        var after = paused
        for content in request.session.contents {
            if content.senders == .none || content.senders == .responder {
                after.insert(content.name)
            } else {
                after.remove(content.name)
            }
        }
        return after
    }

    /// Whether the subscriber still wants one of the video contents of our publication `offer`
    /// (`true` when it has none, or before the offer is known).
    static func wantsVideo(offer: JingleSession?, paused: Set<String>) -> Bool {
        let video = offer?.contents.filter { content in
            if case .rtp(let description) = content.application { description.media == "video" } else { false }
        }.map(\.name) ?? []
        return video.isEmpty || !Set(video).isSubset(of: paused)
    }
}
