import RTCStats

extension SubscriberStatsMonitor {
    /// Feeds one report like ``ingest(_:peerConnection:)`` and returns the callbacks it
    /// produced, computed even when no delegate or stream listens (the SDK's layer policy reads
    /// the downlink condition, estimate and decoded frames from them every interval).
    @discardableResult
    package func ingestReturningCallbacks(_ report: StatsReport, peerConnection: String) -> [StatsCallback] {
        ingest(report, peerConnection: peerConnection, whenUnheard: true)
    }

    /// The latest sender-stats message accepted from this stream's publisher and when it
    /// arrived (ms, the clock given to ``receiveSenderStats(_:at:)``); `nil` before the first.
    /// Its `layers` are what the publisher sends now, the demand a layer choice is made against.
    package var latestSenderStatsReceipt: (message: SenderStatsMessage, receivedAt: Double)? {
        core.withEngine { $0.latestSenderStatsReceipt(endpoint: Self.endpoint, publisher: binding.publisher) }
    }
}
