/// The code of a typed error: a growing set of named values, one set per error type (`Domain`
/// is the error type itself, so codes of two errors never mix). Only the package defines codes
/// (as static members in an extension per domain); an app reads and compares them, so a new code
/// breaks no caller.
public struct ErrorCode<Domain>: Hashable, Sendable {
    /// The code's name.
    public let rawValue: String
    /// Wraps a name.
    package init(rawValue: String) { self.rawValue = rawValue }
}

/// An error that says what happened as a code, the remote side's own number when there is one,
/// and a message carrying the offending value.
public protocol CodedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The error type whose codes these are.
    associatedtype Domain
    /// The kind of failure.
    var code: ErrorCode<Domain> { get }
    /// The remote side's numeric error code (a media router's), when it sent one.
    var routerCode: Int? { get }
    /// What happened.
    var message: String { get }
}

extension CodedError {
    /// `code(routerCode): message`.
    public var description: String { "\(code.rawValue)\(routerCode.map { "(\($0))" } ?? ""): \(message)" }
}
