// Every metric CallScope exports, in one table, so Prometheus and OTLP cannot disagree.

extension CallMetricDescriptor {
    private static func counter(_ prometheus: String, _ otel: String, _ unit: String, _ help: String) -> Self {
        Self(prometheusName: prometheus, openTelemetryName: otel, help: help, unit: unit, kind: .counter)
    }

    private static func gauge(_ prometheus: String, _ otel: String, _ unit: String, _ help: String) -> Self {
        Self(prometheusName: prometheus, openTelemetryName: otel, help: help, unit: unit, kind: .gauge)
    }

    // MARK: Publisher

    /// Payload bytes a publisher sent, all video layers (`videoBytesSent`).
    public static let publisherVideoSentBytes = counter("callscope_publisher_video_sent_bytes_total", "callscope.publisher.video.sent", "By", "Video payload bytes sent by the publisher, all layers.")
    /// Video packets a publisher sent (`videoPacketsSent`).
    public static let publisherVideoSentPackets = counter("callscope_publisher_video_sent_packets_total", "callscope.publisher.video.packets_sent", "{packet}", "Video packets sent by the publisher, all layers.")
    /// Video packets the receivers reported lost (`videoPacketsLost`).
    public static let publisherVideoLostPackets = counter("callscope_publisher_video_lost_packets_total", "callscope.publisher.video.packets_lost", "{packet}", "Video packets the publisher's receivers reported lost.")
    /// Audio payload bytes sent.
    public static let publisherAudioSentBytes = counter("callscope_publisher_audio_sent_bytes_total", "callscope.publisher.audio.sent", "By", "Audio payload bytes sent by the publisher.")
    /// Audio packets the receivers reported lost.
    public static let publisherAudioLostPackets = counter("callscope_publisher_audio_lost_packets_total", "callscope.publisher.audio.packets_lost", "{packet}", "Audio packets the publisher's receivers reported lost.")
    /// Payload bitrate of one sending layer.
    public static let publisherLayerBitrate = gauge("callscope_publisher_layer_payload_bits_per_second", "callscope.publisher.layer.payload_bitrate", "bit/s", "Payload bitrate of one sending video layer.")
    /// Bitrate of one layer with RTP headers and padding.
    public static let publisherLayerWireBitrate = gauge("callscope_publisher_layer_bits_per_second", "callscope.publisher.layer.bitrate", "bit/s", "Bitrate of one sending video layer including RTP headers and padding.")
    /// Encoded frame rate of one layer.
    public static let publisherLayerFrameRate = gauge("callscope_publisher_layer_frames_per_second", "callscope.publisher.layer.frame_rate", "{frame}/s", "Encoded frames per second of one sending video layer.")
    /// Encoded frame height of one layer.
    public static let publisherLayerFrameHeight = gauge("callscope_publisher_layer_frame_height_pixels", "callscope.publisher.layer.frame_height", "{pixel}", "Encoded frame height of one sending video layer.")
    /// Number of layers sending.
    public static let publisherSendingLayers = gauge("callscope_publisher_sending_layers", "callscope.publisher.sending_layers", "{layer}", "Video layers the publisher is sending.")
    /// The uplink's estimated bandwidth.
    public static let publisherEstimatedBandwidth = gauge("callscope_publisher_estimated_bandwidth_bits_per_second", "callscope.publisher.estimated_bandwidth", "bit/s", "The publisher's uplink bandwidth estimate.")

    // MARK: Subscriber

    /// Video payload bytes received.
    public static let subscriberVideoReceivedBytes = counter("callscope_subscriber_video_received_bytes_total", "callscope.subscriber.video.received", "By", "Video payload bytes received by the subscriber.")
    /// Video packets received.
    public static let subscriberVideoReceivedPackets = counter("callscope_subscriber_video_received_packets_total", "callscope.subscriber.video.packets_received", "{packet}", "Video packets received by the subscriber.")
    /// Video packets lost on the way to the subscriber.
    public static let subscriberVideoLostPackets = counter("callscope_subscriber_video_lost_packets_total", "callscope.subscriber.video.packets_lost", "{packet}", "Video packets lost on the way to the subscriber.")
    /// Audio payload bytes received.
    public static let subscriberAudioReceivedBytes = counter("callscope_subscriber_audio_received_bytes_total", "callscope.subscriber.audio.received", "By", "Audio payload bytes received by the subscriber.")
    /// Audio packets lost on the way to the subscriber.
    public static let subscriberAudioLostPackets = counter("callscope_subscriber_audio_lost_packets_total", "callscope.subscriber.audio.packets_lost", "{packet}", "Audio packets lost on the way to the subscriber.")
    /// Received video payload bitrate.
    public static let subscriberVideoBitrate = gauge("callscope_subscriber_video_payload_bits_per_second", "callscope.subscriber.video.payload_bitrate", "bit/s", "Received video payload bitrate.")
    /// Received video bitrate with RTP headers and padding.
    public static let subscriberVideoWireBitrate = gauge("callscope_subscriber_video_bits_per_second", "callscope.subscriber.video.bitrate", "bit/s", "Received video bitrate including RTP headers and padding.")
    /// Decoded frame rate.
    public static let subscriberVideoFrameRate = gauge("callscope_subscriber_video_frames_per_second", "callscope.subscriber.video.frame_rate", "{frame}/s", "Decoded video frames per second.")
    /// Decoded frame height.
    public static let subscriberVideoFrameHeight = gauge("callscope_subscriber_video_frame_height_pixels", "callscope.subscriber.video.frame_height", "{pixel}", "Decoded video frame height.")
    /// Freezes (W3C rule).
    public static let subscriberFreezes = counter("callscope_subscriber_video_freezes_total", "callscope.subscriber.video.freezes", "{freeze}", "Video freezes seen by the subscriber.")
    /// Total freeze time.
    public static let subscriberFreezeSeconds = counter("callscope_subscriber_video_freeze_seconds_total", "callscope.subscriber.video.freeze_duration", "s", "Total duration of video freezes.")
    /// Pauses (> 5 s without a frame).
    public static let subscriberPauses = counter("callscope_subscriber_video_pauses_total", "callscope.subscriber.video.pauses", "{pause}", "Video pauses seen by the subscriber.")
    /// Total pause time.
    public static let subscriberPauseSeconds = counter("callscope_subscriber_video_pause_seconds_total", "callscope.subscriber.video.pause_duration", "s", "Total duration of video pauses.")
    /// The downlink's estimated bandwidth.
    public static let subscriberEstimatedBandwidth = gauge("callscope_subscriber_estimated_bandwidth_bits_per_second", "callscope.subscriber.estimated_bandwidth", "bit/s", "The subscriber's downlink bandwidth estimate.")

    // MARK: Conditions and events

    /// 1 for the current condition of a link, 0 for the others (a state set).
    public static let networkCondition = gauge("callscope_network_condition", "callscope.network.condition", "1", "1 for the link's current network condition, 0 for the other conditions.")
    /// Seconds a link spent in each condition.
    public static let networkConditionSeconds = counter("callscope_network_condition_seconds_total", "callscope.network.condition.duration", "s", "Seconds the link spent in each network condition.")
    /// Condition-change events.
    public static let networkConditionChanges = counter("callscope_network_condition_changes_total", "callscope.network.condition.changes", "{event}", "networkConditionChanged events.")
    /// 1 for the current degradation source of a subscribed stream (a state set).
    public static let degradationSource = gauge("callscope_degradation_source", "callscope.degradation.source", "1", "1 for the subscribed stream's current degradation source, 0 for the others.")
    /// Seconds a subscribed stream spent with each degradation source.
    public static let degradationSourceSeconds = counter("callscope_degradation_source_seconds_total", "callscope.degradation.source.duration", "s", "Seconds the subscribed stream spent with each degradation source.")
    /// Video-quality events by reason.
    public static let videoQualityChanges = counter("callscope_video_quality_changes_total", "callscope.video.quality.changes", "{event}", "videoQualityChanged events by reason.")
    /// 1 for the current connection quality of a remote participant (a state set).
    public static let connectionQuality = gauge("callscope_connection_quality", "callscope.connection.quality", "1", "1 for the remote participant's current connection quality, 0 for the others.")
    /// Unix time of the newest sample.
    public static let lastSampleTime = gauge("callscope_last_sample_timestamp_seconds", "callscope.last_sample.timestamp", "s", "Unix time of the newest stats sample.")

    /// Every descriptor, in export order.
    public static let catalog: [CallMetricDescriptor] = [
        publisherVideoSentBytes, publisherVideoSentPackets, publisherVideoLostPackets, publisherAudioSentBytes, publisherAudioLostPackets,
        publisherLayerBitrate, publisherLayerWireBitrate, publisherLayerFrameRate, publisherLayerFrameHeight, publisherSendingLayers,
        publisherEstimatedBandwidth,
        subscriberVideoReceivedBytes, subscriberVideoReceivedPackets, subscriberVideoLostPackets, subscriberAudioReceivedBytes,
        subscriberAudioLostPackets, subscriberVideoBitrate, subscriberVideoWireBitrate, subscriberVideoFrameRate,
        subscriberVideoFrameHeight, subscriberFreezes, subscriberFreezeSeconds, subscriberPauses, subscriberPauseSeconds,
        subscriberEstimatedBandwidth,
        networkCondition, networkConditionSeconds, networkConditionChanges, degradationSource, degradationSourceSeconds,
        videoQualityChanges, connectionQuality, lastSampleTime,
    ]
}
