// The metrics of a probe that makes one call after another (`callscope probe`): what the
// alerting rules of Rig/prometheus/callscope-alerts.yml read.

extension CallMetricDescriptor {
    /// Calls the probe made, by result (`result="succeeded"` or `"failed"`).
    public static let probeCalls = Self(prometheusName: "callscope_probe_calls_total", openTelemetryName: "callscope.probe.calls",
                                        help: "Calls the probe made, by result.", unit: "{call}", kind: .counter)
    /// Failed calls since the last one that succeeded.
    public static let probeConsecutiveFailures = Self(prometheusName: "callscope_probe_consecutive_failures",
                                                      openTelemetryName: "callscope.probe.consecutive_failures",
                                                      help: "Failed calls in a row, since the last call that succeeded.", unit: "{call}", kind: .gauge)
    /// 1 when the last finished call succeeded (joined, media in every direction asked for), else 0.
    public static let probeLastCallSucceeded = Self(prometheusName: "callscope_probe_last_call_succeeded",
                                                    openTelemetryName: "callscope.probe.last_call.succeeded",
                                                    help: "1 when the probe's last finished call joined and carried media in every direction it asked for, else 0.",
                                                    unit: "1", kind: .gauge)
    /// Unix time the last call ended.
    public static let probeLastCallEnd = Self(prometheusName: "callscope_probe_last_call_end_timestamp_seconds",
                                              openTelemetryName: "callscope.probe.last_call.end",
                                              help: "Unix time the probe's last call ended.", unit: "s", kind: .gauge)
    /// Mean decoded frame rate the last call received (0 when it received no video).
    public static let probeLastCallFrameRate = Self(prometheusName: "callscope_probe_last_call_received_frames_per_second",
                                                    openTelemetryName: "callscope.probe.last_call.received_frame_rate",
                                                    help: "Mean decoded video frames per second the probe's last call received.",
                                                    unit: "{frame}/s", kind: .gauge)
    /// Seconds from the start of one call to the start of the next.
    public static let probeInterval = Self(prometheusName: "callscope_probe_interval_seconds", openTelemetryName: "callscope.probe.interval",
                                           help: "Seconds from the start of one probe call to the start of the next.", unit: "s", kind: .gauge)

    /// The probe's descriptors, in export order.
    public static let probeCatalog: [CallMetricDescriptor] = [
        probeCalls, probeConsecutiveFailures, probeLastCallSucceeded, probeLastCallEnd, probeLastCallFrameRate, probeInterval,
    ]
}
