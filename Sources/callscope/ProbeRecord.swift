import CallScopeExport

/// The running record of `callscope probe`: calls by result, failures in a row, the last
/// call's result, end and received frame rate; as metric families for `/metrics`, `--push` and
/// `--otlp` (``CallMetricDescriptor/probeCatalog``), which the alerting rules read.
struct ProbeRecord: Equatable {
    /// Seconds from one call's start to the next one's.
    let interval: Double
    private(set) var succeeded = 0
    private(set) var failed = 0
    /// Failed calls since the last that succeeded.
    private(set) var consecutiveFailures = 0
    private(set) var lastSucceeded: Bool?
    private(set) var lastEnd: Double?
    private(set) var lastFrameRate: Double?

    init(interval: Double) { self.interval = interval }

    /// Notes a finished call that ended at `end` (unix s).
    mutating func record(_ outcome: CallOutcome, end: Double) {
        if outcome.succeeded {
            succeeded += 1
            consecutiveFailures = 0
        } else {
            failed += 1
            consecutiveFailures += 1
        }
        lastSucceeded = outcome.succeeded
        lastEnd = end
        lastFrameRate = outcome.receivedFrameRate ?? 0
    }

    /// The probe's metrics: the counters and the interval from the start, the last call's
    /// gauges once a call has finished.
    var families: [CallMetricFamily] {
        var families = [
            CallMetricFamily(descriptor: .probeCalls, points: [
                CallMetricPoint(labels: [CallMetricLabel("result", "failed")], value: Double(failed)),
                CallMetricPoint(labels: [CallMetricLabel("result", "succeeded")], value: Double(succeeded)),
            ]),
            CallMetricFamily(descriptor: .probeConsecutiveFailures, points: [CallMetricPoint(labels: [], value: Double(consecutiveFailures))]),
        ]
        if let lastSucceeded, let lastEnd, let lastFrameRate {
            families.append(CallMetricFamily(descriptor: .probeLastCallSucceeded, points: [CallMetricPoint(labels: [], value: lastSucceeded ? 1 : 0)]))
            families.append(CallMetricFamily(descriptor: .probeLastCallEnd, points: [CallMetricPoint(labels: [], value: lastEnd)]))
            families.append(CallMetricFamily(descriptor: .probeLastCallFrameRate, points: [CallMetricPoint(labels: [], value: lastFrameRate)]))
        }
        families.append(CallMetricFamily(descriptor: .probeInterval, points: [CallMetricPoint(labels: [], value: interval)]))
        return families
    }
}
