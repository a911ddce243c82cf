import Foundation

/// Reads the `startTime`/`endTime` of webrtc-internals series: numbers of ms, ISO 8601 strings
/// (`2024-05-01T10:00:00.000Z`, parsed here without a formatter: creating one per series was
/// half of a dump's read time) or, in old dumps, Chrome's locale forms (Foundation formatters,
/// made once per read and only when such a time appears).
struct SeriesTimeParser {
    private var legacyFormatter: DateFormatter?

    /// Unix ms, or `nil` when `value` is no time this parser knows.
    mutating func milliseconds(_ value: JSONValue?) -> Double? {
        if let number = value?.number { return number }
        guard let text = value?.string else { return nil }
        if let time = SeriesTimeParser.iso8601(Array(text.utf8)) { return time }
        return legacy(text)
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM|±HHMM)`, proleptic Gregorian, as Unix ms.
    static func iso8601(_ bytes: [UInt8]) -> Double? {
        var position = 0
        func digits(_ count: Int) -> Int? {
            guard position + count <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let digit = Int(bytes[position]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
                position += 1
            }
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }
        guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2),
              position < bytes.count, bytes[position] == 0x54 || bytes[position] == 0x20 else { return nil }
        position += 1
        guard let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), let second = digits(2) else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        // The fraction as an integer over a power of ten, so milliseconds stay exact.
        var fraction = 0
        var fractionScale = 1
        if expect(0x2E) {
            let start = position
            while position < bytes.count, (48...57).contains(bytes[position]) {
                if fractionScale < 1_000_000_000 {
                    fraction = fraction * 10 + Int(bytes[position] - 48)
                    fractionScale *= 10
                }
                position += 1
            }
            guard position > start else { return nil }
        }
        var offsetMinutes = 0
        guard position < bytes.count else { return nil }
        switch bytes[position] {
        case 0x5A: position += 1
        case 0x2B, 0x2D:
            let sign = bytes[position] == 0x2D ? -1 : 1
            position += 1
            guard let hours = digits(2) else { return nil }
            _ = expect(0x3A)
            guard let minutes = digits(2) else { return nil }
            offsetMinutes = sign * (hours * 60 + minutes)
        default: return nil
        }
        guard position == bytes.count else { return nil }
        // Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        return Double(seconds * 1000) + Double(fraction * 1000) / Double(fractionScale)
    }

    /// Old dumps wrote `new Date().toString()`-like times; try the common shapes.
    private mutating func legacy(_ text: String) -> Double? {
        let formatter: DateFormatter
        if let existing = legacyFormatter {
            formatter = existing
        } else {
            formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            legacyFormatter = formatter
        }
        for pattern in ["EEE MMM dd yyyy HH:mm:ss 'GMT'Z", "M/d/yyyy, h:mm:ss a", "yyyy-MM-dd'T'HH:mm:ss.SSSZ"] {
            formatter.dateFormat = pattern
            if let date = formatter.date(from: String(text.prefix(33))) { return date.timeIntervalSince1970 * 1000 }
        }
        return nil
    }
}
