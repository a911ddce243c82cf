/// OpenTelemetry metrics as an OTLP/HTTP JSON `ExportMetricsServiceRequest`.
///
/// Gauges become `gauge` points; counters become cumulative monotonic `sum` points starting at
/// the snapshot's start time. 64-bit integers (times) are JSON strings and field names
/// lowerCamelCase, as the OTLP JSON mapping requires. Labels become attributes named
/// `callscope.<label>`.
public enum OTLPJSONEncoder {
    /// The `Content-Type` of the output.
    public static let contentType = "application/json"

    /// The request body for `snapshot`, with these resource attributes (e.g. `service.name`,
    /// `session.id`).
    public static func encode(_ snapshot: CallMetricsSnapshot, resource: [CallMetricLabel], scopeVersion: String) -> String {
        let time = nanoseconds(snapshot.time)
        let start = nanoseconds(snapshot.startTime)
        var metrics: [String] = []
        for family in snapshot.families {
            let points = family.points.map { point -> String in
                var fields = ["\"attributes\":\(attributes(point.labels.map { CallMetricLabel("callscope.\($0.name)", $0.value) }))"]
                if family.descriptor.kind == .counter { fields.append("\"startTimeUnixNano\":\"\(start)\"") }
                fields.append("\"timeUnixNano\":\"\(time)\"")
                fields.append("\"asDouble\":\(number(point.value))")
                return "{" + fields.joined(separator: ",") + "}"
            }.joined(separator: ",")
            let data = family.descriptor.kind == .counter
                ? "\"sum\":{\"aggregationTemporality\":2,\"isMonotonic\":true,\"dataPoints\":[\(points)]}"
                : "\"gauge\":{\"dataPoints\":[\(points)]}"
            metrics.append("{\"name\":\(string(family.descriptor.openTelemetryName)),\"description\":\(string(family.descriptor.help)),\"unit\":\(string(family.descriptor.unit)),\(data)}")
        }
        let scope = "{\"name\":\"CallScopeExport\",\"version\":\(string(scopeVersion))}"
        return "{\"resourceMetrics\":[{\"resource\":{\"attributes\":\(attributes(resource))},\"scopeMetrics\":[{\"scope\":\(scope),\"metrics\":[\(metrics.joined(separator: ","))]}]}]}"
    }

    /// Unix ms → ns as an integer string (OTLP `fixed64`).
    static func nanoseconds(_ milliseconds: Double) -> String {
        guard milliseconds.isFinite, milliseconds > 0 else { return "0" }
        return String(UInt64(milliseconds.rounded()) * 1_000_000)
    }

    static func attributes(_ labels: [CallMetricLabel]) -> String {
        "[" + labels.map { "{\"key\":\(string($0.name)),\"value\":{\"stringValue\":\(string($0.value))}}" }.joined(separator: ",") + "]"
    }

    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// A JSON string literal.
    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
