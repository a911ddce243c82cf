/// One `callscope` subcommand: its options parsed and validated in `init`, its work in `run`.
/// Commands never call `exit`: `run` returns the exit code, and `main` exits with it.
protocol Command {
    /// The subcommand's name, as typed.
    static var name: String { get }
    /// One line for `callscope --help`.
    static var summary: String { get }
    /// The text of `callscope help NAME`: usage line first, then what each option does.
    static var help: String { get }
    /// Parses the arguments after the subcommand's name; throws ``UsageError`` for a mistake.
    init(arguments: [String]) throws
    /// Does the work; throws for a failure that stops it (a file that cannot be read, ...).
    func run() throws -> ExitCode
}

/// What `callscope` exits with.
enum ExitCode: Int32 {
    /// Done.
    case success = 0
    /// The work failed (a file could not be read, nothing usable, a check failed).
    case failure = 1
    /// The command was called wrongly (unknown option, missing value).
    case usage = 2
}

/// A mistake in how the command was called, said in one line.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
