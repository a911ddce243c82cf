/// The Prometheus text exposition format (version 0.0.4) of a snapshot.
///
/// No timestamps: Pushgateway refuses pushed samples that carry one, and a scraped `/metrics`
/// is stamped by the scraper.
public enum PrometheusTextEncoder {
    /// The `Content-Type` of the output.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// `# HELP`, `# TYPE` and one line per point, for every family.
    public static func encode(_ snapshot: CallMetricsSnapshot) -> String {
        var output = ""
        for family in snapshot.families {
            let name = family.descriptor.prometheusName
            output += "# HELP \(name) \(escapeHelp(family.descriptor.help))\n"
            output += "# TYPE \(name) \(family.descriptor.kind == .counter ? "counter" : "gauge")\n"
            for point in family.points {
                output += name
                if !point.labels.isEmpty {
                    output += "{"
                    output += point.labels.map { "\(sanitizedLabelName($0.name))=\"\(escapeLabelValue($0.value))\"" }.joined(separator: ",")
                    output += "}"
                }
                output += " \(format(point.value))\n"
            }
        }
        return output
    }

    /// A sample value as Prometheus writes it: integers without a fraction, `NaN`, `+Inf`, `-Inf`.
    public static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func escapeHelp(_ text: String) -> String {
        text.replacingAll("\\", with: "\\\\").replacingAll("\n", with: "\\n")
    }

    static func escapeLabelValue(_ text: String) -> String {
        text.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"").replacingAll("\n", with: "\\n")
    }

    /// Label names must match `[a-zA-Z_][a-zA-Z0-9_]*`; anything else becomes `_`.
    static func sanitizedLabelName(_ name: String) -> String {
        var result = ""
        for (index, scalar) in name.unicodeScalars.enumerated() {
            let isLetter = (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_"
            let isDigit = scalar >= "0" && scalar <= "9"
            result.unicodeScalars.append(isLetter || (isDigit && index > 0) ? scalar : "_")
        }
        return result.isEmpty ? "_" : result
    }
}

extension String {
    /// Replaces every occurrence of `target` (Foundation-free, for the portable export target).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        guard contains(target) else { return self }
        var result = ""
        result.reserveCapacity(count + 8)
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
