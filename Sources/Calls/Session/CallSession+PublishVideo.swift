import Observability

extension CallSession {
    /// Applies ``CallPublisher/publishVideo`` to the publishing video track when it changed.
    func applyPublishVideo() async {
        guard let publishing, publishing.publisher.publishVideo != publishing.videoEnabled else { return }
        let wanted = publishing.publisher.publishVideo
        do {
            try await engine.setTracksEnabled(.video, wanted, on: publishing.peerConnection)
            self.publishing?.videoEnabled = wanted
        } catch {
            deliver([.didFail(CallError.wrapping(error, "publishVideo"))])
        }
    }

    /// A sender-stats message saying whether the camera is on (subscribers cannot tell a
    /// disabled track's black frames from video); the message unchanged if it does not decode.
    static func stating(videoEnabled: Bool, in bytes: [UInt8]) -> [UInt8] {
        var decoder = SenderStatsDecoder(minimumInterval: 0)
        guard var message = decoder.decode(bytes, receivedAt: 0) else { return bytes }
        message.videoEnabled = videoEnabled
        return message.encoded()
    }
}
