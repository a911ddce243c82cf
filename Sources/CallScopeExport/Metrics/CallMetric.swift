/// Whether a metric is a current value or a running total.
public enum CallMetricKind: String, Sendable, Hashable {
    /// A value that goes up and down (a bitrate, a frame rate, a 0/1 state).
    case gauge
    /// A monotonic total since the start of the call (bytes, packets, seconds in a condition).
    case counter
}

/// What a metric measures, named for each export format.
///
/// Prometheus names follow Prometheus' conventions (base units in the name, `_total` on
/// counters); OpenTelemetry names are dotted with the unit in ``unit`` (UCUM, as the OTel
/// semantic conventions ask). The conventions define no WebRTC metrics, so every name lives
/// under the `callscope` namespace.
public struct CallMetricDescriptor: Sendable, Hashable {
    /// Prometheus metric name, e.g. `callscope_subscriber_video_received_bytes_total`.
    public var prometheusName: String
    /// OpenTelemetry metric name, e.g. `callscope.subscriber.video.received`.
    public var openTelemetryName: String
    /// One sentence for `# HELP` and the OTLP description.
    public var help: String
    /// UCUM unit for OTLP, e.g. `By`, `bit/s`, `s`, `{packet}`.
    public var unit: String
    /// Gauge or counter.
    public var kind: CallMetricKind

    /// Creates a descriptor.
    public init(prometheusName: String, openTelemetryName: String, help: String, unit: String, kind: CallMetricKind) {
        self.prometheusName = prometheusName
        self.openTelemetryName = openTelemetryName
        self.help = help
        self.unit = unit
        self.kind = kind
    }
}

/// One label (Prometheus) or attribute (OpenTelemetry) of a point.
///
/// Names are Prometheus-style (`peer`, `stream`, `layer`, `link`, `condition`, ...); OTLP
/// prefixes them with `callscope.`. Every label takes values from a small set per call
/// (peers, streams, simulcast layers, enum cases), never from times or counters.
public struct CallMetricLabel: Sendable, Hashable, Comparable {
    /// Label name.
    public var name: String
    /// Label value.
    public var value: String

    /// Creates a label.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    /// Orders by name, then value.
    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.name, lhs.value) < (rhs.name, rhs.value) }
}

/// One value of a metric for one label set.
public struct CallMetricPoint: Sendable, Hashable {
    /// Labels, sorted by name.
    public var labels: [CallMetricLabel]
    /// The value in the descriptor's unit.
    public var value: Double

    /// Creates a point; labels are sorted by name.
    public init(labels: [CallMetricLabel], value: Double) {
        self.labels = labels.sorted()
        self.value = value
    }
}

/// A metric and its points.
public struct CallMetricFamily: Sendable, Hashable {
    /// What is measured.
    public var descriptor: CallMetricDescriptor
    /// One point per label set, in a stable order.
    public var points: [CallMetricPoint]

    /// Creates a family.
    public init(descriptor: CallMetricDescriptor, points: [CallMetricPoint]) {
        self.descriptor = descriptor
        self.points = points
    }
}

/// Every metric of a call at one moment: what an exporter sends.
public struct CallMetricsSnapshot: Sendable, Hashable {
    /// Unix ms of the newest callback included.
    public var time: Double
    /// Unix ms of the first callback (the start of every counter).
    public var startTime: Double
    /// Metrics in a stable order; families without points are left out.
    public var families: [CallMetricFamily]

    /// Creates a snapshot.
    public init(time: Double, startTime: Double, families: [CallMetricFamily]) {
        self.time = time
        self.startTime = startTime
        self.families = families
    }

    /// The family with this Prometheus name, if present.
    public func family(prometheusName: String) -> CallMetricFamily? {
        families.first { $0.descriptor.prometheusName == prometheusName }
    }
}
