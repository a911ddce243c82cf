/// Walks a subcommand's arguments: options (`--name value` or `--name=value`) and positionals,
/// with one-line errors that name the command and the problem.
struct ArgumentParser {
    let command: String
    private var remaining: ArraySlice<String>
    private var inlineValue: String?

    init(_ arguments: [String], command: String) {
        self.command = command
        remaining = arguments[...]
    }

    /// The next argument; for `--name=value` the name, its value kept for ``value(of:)``.
    mutating func next() -> String? {
        inlineValue = nil
        guard let argument = remaining.popFirst() else { return nil }
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            inlineValue = String(argument[argument.index(after: equals)...])
            return String(argument[..<equals])
        }
        return argument
    }

    /// The value of the option just read.
    mutating func value(of option: String) throws -> String {
        if let inlineValue {
            self.inlineValue = nil
            return inlineValue
        }
        guard let value = remaining.popFirst() else { throw UsageError("\(option) needs a value") }
        return value
    }

    /// The value of the option just read, one of `Choice`'s cases.
    mutating func choice<Choice: RawRepresentable & CaseIterable>(of option: String, _ type: Choice.Type = Choice.self) throws -> Choice where Choice.RawValue == String {
        let value = try value(of: option)
        guard let choice = Choice(rawValue: value) else {
            throw UsageError("\(option) takes \(Choice.allCases.map { "'\($0.rawValue)'" }.joined(separator: " or ")), not '\(value)'")
        }
        return choice
    }

    /// The value of the option just read, a positive number.
    mutating func positiveNumber(of option: String) throws -> Double {
        let value = try value(of: option)
        guard let number = Double(value), number > 0, number.isFinite else { throw UsageError("\(option) takes a positive number, not '\(value)'") }
        return number
    }

    /// Whether `argument` is an option (not a file name; `-` alone is standard input).
    static func isOption(_ argument: String) -> Bool { argument.hasPrefix("-") && argument != "-" }

    /// The error for an option the command does not have.
    func unknownOption(_ option: String) -> UsageError {
        UsageError("unknown option '\(option)' for \(command)")
    }
}
