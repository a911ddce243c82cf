extension CallStatsEngine {
    /// Sets what limits the video `endpoint` receives on `stream` (the SDK's layer policy says
    /// so whenever it changes; ``SubscriberReceiveLimit/none`` clears it). It applies from the
    /// stream's next report:
    /// - `.downlink`: the downlink condition is scored no better than `warning` / `bandwidth`, so
    ///   the degradation source stays `local` after a step-down has removed the loss;
    /// - `.publisher`: the remote publisher's uplink is at least `warning` / `bandwidth` (source
    ///   `remote`), with or without sender stats;
    /// - `.paused` (audio fallback): the missing video is not a freeze, not a quality event and
    ///   not a sign of a poor network; the condition is scored as under `.downlink` (the
    ///   downlink is still what cannot carry the video);
    /// - `.videoOff` (switched off by choice): the missing video is not a freeze; the condition
    ///   is what the downlink measures.
    ///
    /// From a first `.downlink` or `.paused` until the condition has recovered with no limit set, a `critical` sample
    /// must repeat for as many intervals as a recovery takes before it is adopted, so that the
    /// policy's failed up-switches do not fire condition events under a steady impairment.
    package mutating func setReceiveLimit(_ limit: SubscriberReceiveLimit, endpoint: EndpointID, stream: StreamID = .sole) {
        receiving.setReceiveLimit(limit, endpoint: endpoint, stream: stream)
    }

    /// The receive limit in force for `stream` of `endpoint` (`.none` unless set).
    public func receiveLimit(endpoint: EndpointID, stream: StreamID = .sole) -> SubscriberReceiveLimit {
        receiving.receiveLimit(endpoint: endpoint, stream: stream)
    }

    /// The downlink of `stream` as its counters alone score it, without the receive limit:
    /// what a layer policy should decide on (the reported condition holds `warning` under
    /// `.downlink`, which must not keep the policy from stepping up again). `nil` before the
    /// stream's first report.
    package func measuredDownlink(endpoint: EndpointID, stream: StreamID = .sole) -> TransportStats? {
        receiving.measuredDownlink(endpoint: endpoint, stream: stream)
    }

    /// Whether the publisher of `stream` is sending, as `endpoint`'s latest report of it tells
    /// (see ``PublisherSending``); `nil` before the stream's first report.
    package func publisherSending(endpoint: EndpointID, stream: StreamID = .sole) -> PublisherSending? {
        receiving.publisherSending(endpoint: endpoint, stream: stream)
    }
}
