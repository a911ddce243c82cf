import RTCStats

extension CallSession {
    /// A subscriber's sample: the size of the frames it decodes becomes its stream's
    /// ``CallStream/videoDimensions`` (in ``streams``, and on every subscriber of that stream),
    /// with `streamVideoDimensionsChanged` when it changed. With simulcast the router may
    /// forward a smaller layer than the publisher sends: the size is what we decode.
    func decodedVideo(_ report: StatsReport, subscriber: CallSubscriber) {
        guard let dimensions = CallVideoDimensions(decodedIn: report), var roster else { return }
        let id = FeedID(subscriber.stream.streamId)
        let events = roster.decodedVideo(dimensions, of: id)
        self.roster = roster
        guard !events.isEmpty else { return }
        for state in subscriptions.values where state.subscriber.stream.streamId == id.rawValue {
            state.subscriber.setVideoDimensions(dimensions)
        }
        deliver(events)
    }
}
