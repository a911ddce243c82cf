import Calls
import RTCStats

/// Something Janus told one handle without being asked (or after the request that caused it had
/// already been answered), in the order the long poll delivered it.
public enum JanusEvent: Sendable, Hashable {
    /// A plugin event (`plugindata.data`), with the JSEP it carried (e.g. a renegotiation offer).
    case plugin(JSONValue, jsep: SessionDescription?)
    /// The handle's PeerConnection is up (ICE and DTLS done).
    case webrtcUp
    /// Janus started or stopped receiving media on a media section.
    case media(mid: String?, type: String, receiving: Bool)
    /// Janus sees losses on a media section (`uplink` = from Janus' point of view).
    case slowLink(mid: String?, media: String, uplink: Bool, lost: Int)
    /// Janus closed the handle's PeerConnection (`ICE failed`, `DTLS alert`, `Close PC`, ...);
    /// only a new handle works after it.
    case hangup(reason: String)
    /// The handle was detached.
    case detached
    /// The Janus session is gone (timed out or destroyed); every handle of it is dead.
    case sessionLost(JanusError)
    /// Any other message, kept whole.
    case other(JSONValue)

    /// Reads one long-poll message addressed to a handle.
    init(message: JSONValue) {
        switch message["janus"]?.string {
        case "event":
            self = .plugin(message["plugindata"]?["data"] ?? .null, jsep: message["jsep"].flatMap(SessionDescription.init(jsep:)))
        case "webrtcup":
            self = .webrtcUp
        case "media":
            self = .media(mid: message["mid"]?.string, type: message["type"]?.string ?? "",
                          receiving: message["receiving"]?.bool ?? false)
        case "slowlink":
            self = .slowLink(mid: message["mid"]?.string, media: message["media"]?.string ?? "",
                             uplink: message["uplink"]?.bool ?? false, lost: Int(message["lost"]?.number ?? 0))
        case "hangup":
            self = .hangup(reason: message["reason"]?.string ?? "")
        case "detached":
            self = .detached
        default:
            self = .other(message)
        }
    }
}

extension SessionDescription {
    /// Reads Janus' `jsep` object (`{"type":"offer","sdp":"..."}`).
    init?(jsep: JSONValue) {
        guard let type = jsep["type"]?.string, let kind = Kind(rawValue: type), let sdp = jsep["sdp"]?.string else { return nil }
        self.init(kind: kind, sdp: sdp)
    }

    /// Janus' `jsep` object.
    var jsep: JSONValue {
        .object(["type": .string(kind.rawValue), "sdp": .string(sdp)])
    }
}
