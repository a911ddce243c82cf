import ConnectivityProbe
import Testing

/// `HOST:PORT` as `callscope discover` takes it.
@Suite struct ProbeEndpointTests {
    @Test(arguments: [
        ("127.0.0.1:3478", "127.0.0.1", UInt16(3478)),
        ("turn.example.com:443", "turn.example.com", 443),
        ("[2001:db8::1]:3478", "2001:db8::1", 3478),
        ("[::1]:1", "::1", 1),
    ])
    func parses(text: String, host: String, port: UInt16) throws {
        let endpoint = try #require(ProbeEndpoint(parsing: text))
        #expect(endpoint.host == host && endpoint.port == port)
        #expect(endpoint.description == text)
    }

    @Test(arguments: ["", "host", "host:", ":3478", "host:0", "host:65536", "host:-1", "2001:db8::1:3478", "[::1]3478", "[::1]:", "[]:1", "h:1x"])
    func rejects(text: String) {
        #expect(ProbeEndpoint(parsing: text) == nil)
    }
}
