import Calls
import Foundation
import Observability
@preconcurrency import WebRTC

/// One peer connection's `RTCPeerConnectionDelegate` and its data channels' delegate: every
/// callback becomes a ``MediaEngineEvent`` on the engine's single stream, in the order the
/// framework calls (it calls from its signaling thread, one at a time).
final class PeerConnectionObserver: NSObject, RTCPeerConnectionDelegate, RTCDataChannelDelegate, @unchecked Sendable {
    // @unchecked Sendable: `channels` is only touched under `lock`; `id`, `continuation` and
    // `remoteFrames` are immutable and Sendable.
    let id: PeerConnectionID
    /// The renderer every remote video track is attached to as it starts receiving.
    let remoteFrames: VideoFrameForwarder
    private let continuation: AsyncStream<MediaEngineEvent>.Continuation
    private let lock = NSLock()
    private var channels: [String: RTCDataChannel] = [:]

    init(id: PeerConnectionID, continuation: AsyncStream<MediaEngineEvent>.Continuation) {
        self.id = id
        self.continuation = continuation
        remoteFrames = VideoFrameForwarder(id: id, source: .remote, continuation: continuation)
    }

    /// Keeps a channel (ours or the remote side's) and listens to it.
    func watch(_ channel: RTCDataChannel) {
        channel.delegate = self
        lock.lock()
        channels[channel.label] = channel
        lock.unlock()
        if channel.readyState == .open { continuation.yield(.dataChannelOpen(id, label: channel.label)) }
    }

    /// The channel labelled `label`, if any.
    func channel(_ label: String) -> RTCDataChannel? {
        lock.lock()
        defer { lock.unlock() }
        return channels[label]
    }

    // MARK: - RTCPeerConnectionDelegate

    func peerConnection(_ peerConnection: RTCPeerConnection, didChange stateChanged: RTCSignalingState) {
        continuation.yield(.signalingState(id, SignalingState(stateChanged)))
    }

    func peerConnection(_ peerConnection: RTCPeerConnection, didChange newState: RTCIceConnectionState) {
        guard let state = IceConnectionState(newState) else { return }
        continuation.yield(.iceConnectionState(id, state))
    }

    func peerConnection(_ peerConnection: RTCPeerConnection, didChange newState: RTCPeerConnectionState) {
        continuation.yield(.connectionState(id, PeerConnectionState(newState)))
    }

    func peerConnection(_ peerConnection: RTCPeerConnection, didChange newState: RTCIceGatheringState) {
        if newState == .complete { continuation.yield(.candidate(id, nil)) }
    }

    func peerConnection(_ peerConnection: RTCPeerConnection, didGenerate candidate: RTCIceCandidate) {
        continuation.yield(.candidate(id, IceCandidate(candidate: candidate.sdp, sdpMid: candidate.sdpMid,
                                                       sdpMLineIndex: Int(candidate.sdpMLineIndex))))
    }

    func peerConnection(_ peerConnection: RTCPeerConnection, didRemove candidates: [RTCIceCandidate]) {}

    func peerConnection(_ peerConnection: RTCPeerConnection, didOpen dataChannel: RTCDataChannel) {
        watch(dataChannel)
    }

    func peerConnection(_ peerConnection: RTCPeerConnection, didStartReceivingOn transceiver: RTCRtpTransceiver) {
        switch transceiver.mediaType {
        case .audio: continuation.yield(.track(id, kind: .audio, mid: transceiver.mid))
        case .video:
            if let track = transceiver.receiver.track as? RTCVideoTrack { remoteFrames.attach(track) }
            continuation.yield(.track(id, kind: .video, mid: transceiver.mid))
        default: break
        }
    }

    // Plan B stream callbacks: unified plan reports tracks through the transceivers above.
    func peerConnection(_ peerConnection: RTCPeerConnection, didAdd stream: RTCMediaStream) {}
    func peerConnection(_ peerConnection: RTCPeerConnection, didRemove stream: RTCMediaStream) {}
    func peerConnectionShouldNegotiate(_ peerConnection: RTCPeerConnection) {}

    // MARK: - RTCDataChannelDelegate

    func dataChannelDidChangeState(_ dataChannel: RTCDataChannel) {
        if dataChannel.readyState == .open { continuation.yield(.dataChannelOpen(id, label: dataChannel.label)) }
    }

    func dataChannel(_ dataChannel: RTCDataChannel, didReceiveMessageWith buffer: RTCDataBuffer) {
        guard !buffer.isBinary else {
            continuation.yield(.dropped(reason: "binary data-channel message on \(dataChannel.label) (\(buffer.data.count) bytes)"))
            return
        }
        guard let text = String(data: buffer.data, encoding: .utf8) else {
            continuation.yield(.dropped(reason: "data-channel message on \(dataChannel.label) is not UTF-8"))
            return
        }
        continuation.yield(.dataChannelMessage(id, label: dataChannel.label, text: text))
    }
}

// MARK: - States

extension IceConnectionState {
    /// The framework's state; `nil` for its `count` sentinel.
    init?(_ state: RTCIceConnectionState) {
        switch state {
        case .new: self = .new
        case .checking: self = .checking
        case .connected: self = .connected
        case .completed: self = .completed
        case .disconnected: self = .disconnected
        case .failed: self = .failed
        case .closed: self = .closed
        default: return nil
        }
    }
}

extension PeerConnectionState {
    init(_ state: RTCPeerConnectionState) {
        switch state {
        case .new: self = .new
        case .connecting: self = .connecting
        case .connected: self = .connected
        case .disconnected: self = .disconnected
        case .failed: self = .failed
        default: self = .closed
        }
    }
}

extension SignalingState {
    init(_ state: RTCSignalingState) {
        switch state {
        case .stable: self = .stable
        case .haveLocalOffer: self = .haveLocalOffer
        case .haveLocalPrAnswer: self = .haveLocalProvisionalAnswer
        case .haveRemoteOffer: self = .haveRemoteOffer
        case .haveRemotePrAnswer: self = .haveRemoteProvisionalAnswer
        default: self = .closed
        }
    }
}
