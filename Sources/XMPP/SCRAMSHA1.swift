import Connectivity
import Foundation

/// The client side of SASL SCRAM-SHA-1 (RFC 5802) without channel binding (GS2 header `n,,`),
/// as a value: ``clientFirstMessage``, then ``respond(toServerFirst:)`` with the server's
/// challenge, then ``verify(serverFinal:)``. The hash and HMAC are the package's own (STUN's).
package struct SCRAMSHA1: Sendable {
    /// The most PBKDF2 iterations accepted from a server: a hostile one asking for 2^31 would
    /// otherwise hang the client (Prosody uses 10,000).
    package static let maximumIterations = 100_000

    private let username: String
    private let password: String
    private let clientNonce: String
    private var serverSignature: [UInt8]?
    /// The salted password of the last exchange, with the salt and count it was made from
    /// (RFC 5802 §5.1 lets a client keep it; reconnection then skips the PBKDF2 work).
    package private(set) var saltedPassword: SaltedPassword?

    /// PBKDF2's output and its inputs, reusable while the server keeps the same salt.
    package struct SaltedPassword: Hashable, Sendable {
        /// The salt, decoded.
        package var salt: [UInt8]
        /// The iteration count.
        package var iterations: Int
        /// Hi(password, salt, iterations).
        package var key: [UInt8]
    }

    /// Starts an exchange for `username` (escaped per RFC 5802 §5.1 here) with a fresh random
    /// `clientNonce` (printable, no comma); `cached` reuses an earlier salted password.
    package init(username: String, password: String, clientNonce: String, cached: SaltedPassword? = nil) {
        self.username = username
        self.password = password
        self.clientNonce = clientNonce
        self.saltedPassword = cached
    }

    /// A random 24-byte nonce, base64.
    package static func randomNonce() -> String {
        Data((0..<24).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    private var clientFirstBare: String {
        let escaped = username.replacingOccurrences(of: "=", with: "=3D").replacingOccurrences(of: ",", with: "=2C")
        return "n=\(escaped),r=\(clientNonce)"
    }

    /// `n,,n=USER,r=NONCE`.
    package var clientFirstMessage: String { "n,," + clientFirstBare }

    /// The client-final message (with the proof) for the server-first message.
    package mutating func respond(toServerFirst serverFirst: String) throws(XMPPError) -> String {
        var fields: [Character: String] = [:]
        for part in serverFirst.split(separator: ",", omittingEmptySubsequences: false) {
            guard part.count >= 2, part.dropFirst().first == "=", let key = part.first else {
                throw XMPPError(.authenticationFailed, "SCRAM server-first message is malformed: \(serverFirst.prefix(200))")
            }
            guard key != "m" else { throw XMPPError(.authenticationFailed, "SCRAM server asks for an unsupported extension (m=)") }
            fields[key] = String(part.dropFirst(2))
        }
        guard let nonce = fields["r"], nonce.hasPrefix(clientNonce), nonce.count > clientNonce.count else {
            throw XMPPError(.authenticationFailed, "SCRAM server nonce does not extend the client's")
        }
        guard let saltText = fields["s"], let salt = Data(base64Encoded: saltText).map(Array.init), !salt.isEmpty else {
            throw XMPPError(.authenticationFailed, "SCRAM salt missing or not base64")
        }
        guard let iterationText = fields["i"], let iterations = Int(iterationText), iterations >= 1, iterations <= Self.maximumIterations else {
            throw XMPPError(.authenticationFailed, "SCRAM iteration count \(fields["i"] ?? "missing") is not in 1...\(Self.maximumIterations)")
        }
        let salted: [UInt8]
        if let cached = saltedPassword, cached.salt == salt, cached.iterations == iterations {
            salted = cached.key
        } else {
            salted = Self.pbkdf2(password: Array(password.utf8), salt: salt, iterations: iterations)
            saltedPassword = SaltedPassword(salt: salt, iterations: iterations, key: salted)
        }
        let withoutProof = "c=biws,r=\(nonce)"
        let authMessage = Array("\(clientFirstBare),\(serverFirst),\(withoutProof)".utf8)
        let clientKey = HMACSHA1.authenticationCode(key: salted, message: Array("Client Key".utf8))
        let storedKey = SHA1.digest(clientKey)
        let clientSignature = HMACSHA1.authenticationCode(key: storedKey, message: authMessage)
        let proof = zip(clientKey, clientSignature).map { $0 ^ $1 }
        let serverKey = HMACSHA1.authenticationCode(key: salted, message: Array("Server Key".utf8))
        serverSignature = HMACSHA1.authenticationCode(key: serverKey, message: authMessage)
        return withoutProof + ",p=" + Data(proof).base64EncodedString()
    }

    /// Checks the server-final message (`v=SIGNATURE`); throws on `e=` or a wrong signature.
    package func verify(serverFinal: String) throws(XMPPError) {
        if serverFinal.hasPrefix("e=") { throw XMPPError(.authenticationFailed, "SCRAM server error: \(serverFinal.dropFirst(2).prefix(200))") }
        guard let expected = serverSignature else { throw XMPPError(.authenticationFailed, "SCRAM server-final before server-first") }
        let value = serverFinal.split(separator: ",").first { $0.hasPrefix("v=") }.map { String($0.dropFirst(2)) }
        guard let value, let signature = Data(base64Encoded: value), Array(signature) == expected else {
            throw XMPPError(.authenticationFailed, "SCRAM server signature does not verify: the server does not know the password")
        }
    }

    /// Hi() of RFC 5802 §2.2: PBKDF2 with HMAC-SHA-1, one 20-byte block.
    package static func pbkdf2(password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        var previous = HMACSHA1.authenticationCode(key: password, message: salt + [0, 0, 0, 1])
        var result = previous
        for _ in 1..<max(iterations, 1) {
            previous = HMACSHA1.authenticationCode(key: password, message: previous)
            for index in result.indices { result[index] ^= previous[index] }
        }
        return result
    }
}
