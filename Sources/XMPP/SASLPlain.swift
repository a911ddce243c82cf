import Foundation

/// SASL PLAIN (RFC 4616): the fallback when a server offers no SCRAM. Sends the password, so
/// only over a channel the user trusts (TLS, or loopback tests).
package enum SASLPlain {
    /// The initial response `\0USER\0PASSWORD`, base64.
    package static func initialResponse(username: String, password: String) -> String {
        Data([0] + Array(username.utf8) + [0] + Array(password.utf8)).base64EncodedString()
    }
}
