extension SubscriberStatsMonitor {
    /// Tells the monitor what limits this stream's video now (the SDK's layer policy calls it
    /// whenever that changes): it decides the degradation source and the condition from the
    /// next report on (see ``CallStatsEngine/setReceiveLimit(_:endpoint:stream:)``).
    package func setReceiveLimit(_ limit: SubscriberReceiveLimit) {
        core.withEngine { $0.setReceiveLimit(limit, endpoint: Self.endpoint, stream: binding.stream) }
    }

    /// The receive limit in force (`.none` unless set).
    public var receiveLimit: SubscriberReceiveLimit {
        core.withEngine { $0.receiveLimit(endpoint: Self.endpoint, stream: binding.stream) }
    }

    /// This stream's downlink as its counters alone score it, without the receive limit: what
    /// a layer policy decides on (under `.downlink` the reported condition stays at `warning`,
    /// which must not keep the policy from stepping up). `nil` before the first report.
    package var measuredDownlink: TransportStats? {
        core.withEngine { $0.measuredDownlink(endpoint: Self.endpoint, stream: binding.stream) }
    }
}
