import Observability
import Calls
import RTCStats

extension MediaEngineEvent {
    /// Reads one event the engine page queued; `nil` when it is not one we know.
    init?(page value: JSONValue) {
        guard let kind = value["kind"]?.string else { return nil }
        if kind == "dropped" {
            self = .dropped(reason: value["reason"]?.string ?? "")
            return
        }
        guard let name = value["pc"]?.string else { return nil }
        let pc = PeerConnectionID(name)
        switch kind {
        case "candidate":
            guard let candidate = value["candidate"] else { return nil }
            if candidate == .null {
                self = .candidate(pc, nil)
            } else {
                guard let line = candidate["candidate"]?.string else { return nil }
                // Chromium reports the end of gathering per section with an empty candidate too.
                if line.isEmpty { return nil }
                self = .candidate(pc, IceCandidate(candidate: line, sdpMid: candidate["sdpMid"]?.string,
                                                   sdpMLineIndex: candidate["sdpMLineIndex"]?.number.map { Int($0) }))
            }
        case "iceConnectionState":
            guard let state = value["state"]?.string.flatMap(IceConnectionState.init(rawValue:)) else { return nil }
            self = .iceConnectionState(pc, state)
        case "connectionState":
            guard let state = value["state"]?.string.flatMap(PeerConnectionState.init(rawValue:)) else { return nil }
            self = .connectionState(pc, state)
        case "signalingState":
            guard let state = value["state"]?.string.flatMap(SignalingState.init(rawValue:)) else { return nil }
            self = .signalingState(pc, state)
        case "track":
            guard let media = value["trackKind"]?.string.flatMap(MediaKind.init(rawValue:)) else { return nil }
            self = .track(pc, kind: media, mid: value["mid"]?.string)
        case "dataChannelOpen":
            guard let label = value["label"]?.string else { return nil }
            self = .dataChannelOpen(pc, label: label)
        case "videoFrameRejected":
            guard let reason = value["reason"]?.string else { return nil }
            switch value["source"]?.string {
            case "remote": self = .videoFrameRejected(pc, source: .remote, reason: reason)
            case "localPreview": self = .videoFrameRejected(pc, source: .localPreview, reason: reason)
            default: return nil
            }
        case "dataChannelMessage":
            guard let label = value["label"]?.string, let text = value["text"]?.string else { return nil }
            self = .dataChannelMessage(pc, label: label, text: text)
        default:
            return nil
        }
    }
}
