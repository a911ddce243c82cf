import Testing
@testable import XMPP

/// SCRAM-SHA-1 against the example exchange of RFC 5802 §5 (user "user", password "pencil").
@Suite struct SCRAMSHA1Tests {
    static let clientNonce = "fyko+d2lbbFgONRv9qkxdawL"
    static let serverFirst = "r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096"

    @Test func rfc5802ExampleExchange() throws {
        var scram = SCRAMSHA1(username: "user", password: "pencil", clientNonce: Self.clientNonce)
        #expect(scram.clientFirstMessage == "n,,n=user,r=fyko+d2lbbFgONRv9qkxdawL")
        let final = try scram.respond(toServerFirst: Self.serverFirst)
        #expect(final == "c=biws,r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts=")
        try scram.verify(serverFinal: "v=rmF9pqV8S7suAoZWja4dJRkFsKQ=")
        #expect(scram.saltedPassword?.iterations == 4096)
    }

    @Test func cachedSaltedPasswordGivesTheSameProof() throws {
        var first = SCRAMSHA1(username: "user", password: "pencil", clientNonce: Self.clientNonce)
        _ = try first.respond(toServerFirst: Self.serverFirst)
        // A wrong password with the right cached key still proves: the cache is what is used.
        var second = SCRAMSHA1(username: "user", password: "wrong", clientNonce: Self.clientNonce, cached: first.saltedPassword)
        #expect(try second.respond(toServerFirst: Self.serverFirst).hasSuffix("p=v0X8v3Bz2T0CJGbJQyF0X+HI4Ts="))
    }

    @Test func usernameIsEscaped() {
        let scram = SCRAMSHA1(username: "a=b,c", password: "x", clientNonce: "n")
        #expect(scram.clientFirstMessage == "n,,n=a=3Db=2Cc,r=n")
    }

    @Test(arguments: [
        "r=otherNonce,s=QSXCR+Q6sek8bf92,i=4096",                         // nonce does not extend ours
        "r=fyko+d2lbbFgONRv9qkxdawL,s=QSXCR+Q6sek8bf92,i=4096",           // nonce not extended at all
        "r=fyko+d2lbbFgONRv9qkxdawLx,s=QSXCR+Q6sek8bf92,i=2000000000",    // iteration bomb
        "r=fyko+d2lbbFgONRv9qkxdawLx,s=QSXCR+Q6sek8bf92,i=0",
        "r=fyko+d2lbbFgONRv9qkxdawLx,s=!!!,i=4096",                        // salt not base64
        "r=fyko+d2lbbFgONRv9qkxdawLx,i=4096",                              // no salt
        "m=ext,r=fyko+d2lbbFgONRv9qkxdawLx,s=QSXCR+Q6sek8bf92,i=4096",    // mandatory extension
        "garbage",
        "",
    ])
    func hostileServerFirstIsRefused(_ serverFirst: String) {
        var scram = SCRAMSHA1(username: "user", password: "pencil", clientNonce: Self.clientNonce)
        #expect(throws: XMPPError.self) { try scram.respond(toServerFirst: serverFirst) }
    }

    @Test(arguments: ["v=AAAAAAAAAAAAAAAAAAAAAAAAAAA=", "e=invalid-proof", "v=", "x=1"])
    func wrongServerFinalIsRefused(_ serverFinal: String) throws {
        var scram = SCRAMSHA1(username: "user", password: "pencil", clientNonce: Self.clientNonce)
        _ = try scram.respond(toServerFirst: Self.serverFirst)
        #expect(throws: XMPPError.self) { try scram.verify(serverFinal: serverFinal) }
    }

    @Test func plainInitialResponse() {
        // RFC 4616: NUL authcid NUL passwd; "\0tim\0tanstaaftanstaaf" in base64.
        #expect(SASLPlain.initialResponse(username: "tim", password: "tanstaaftanstaaf") == "AHRpbQB0YW5zdGFhZnRhbnN0YWFm")
    }
}
