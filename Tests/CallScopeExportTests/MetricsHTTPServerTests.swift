@testable import CallScopeExport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The `/metrics` server on a real loopback socket (port chosen by the kernel), read with
/// URLSession like any HTTP client.
@Suite struct MetricsHTTPServerTests {
    private func get(_ url: String) async throws -> (status: Int, body: String, type: String?) {
        let (data, response) = try await fetch(URL(string: url)!)
        let http = response as! HTTPURLResponse
        return (http.statusCode, String(decoding: data, as: UTF8.self), http.value(forHTTPHeaderField: "Content-Type"))
    }

    private func fetch(_ url: URL) async throws -> (Data, URLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            URLSession.shared.dataTask(with: URLRequest(url: url, timeoutInterval: 5)) { data, response, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: (data ?? Data(), response!)) }
            }.resume()
        }
    }

    @Test func servesTheExpositionOnMetricsAndNothingElse() async throws {
        var collector = CallMetricsCollector()
        collector.ingest(Fixture.subscriberVideo(at: 1_000, bytes: 777, received: 7, lost: 1, bitrate: 5_000))
        let text = PrometheusTextEncoder.encode(collector.snapshot())
        let server = try MetricsHTTPServer(port: 0) { text }
        defer { server.stop() }
        #expect(server.port != 0)
        let metrics = try await get("http://127.0.0.1:\(server.port)/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.body == text)
        #expect(metrics.body.contains("callscope_subscriber_video_received_bytes_total{peer=\"subscriber\",stream=\"cam\"} 777\n"))
        #expect(metrics.type == PrometheusTextEncoder.contentType)
        let other = try await get("http://127.0.0.1:\(server.port)/")
        #expect(other.status == 404)
    }

    @Test func afterStopThePortIsClosedAndExportsReportUnreachable() async throws {
        let server = try MetricsHTTPServer(port: 0) { "" }
        let port = server.port
        server.stop()
        server.stop()   // idempotent
        let exporter = try PushgatewayExporter(url: "http://127.0.0.1:\(port)")
        await #expect(throws: CallMetricsExportError.self) {
            try await exporter.export(CallMetricsSnapshot(time: 0, startTime: 0, families: []))
        }
    }

    @Test func droppingTheServerClosesItsPort() async throws {
        var port: UInt16 = 0
        do {
            let server = try MetricsHTTPServer(port: 0) { "x 1\n" }
            port = server.port
            #expect(try await get("http://127.0.0.1:\(port)/metrics").body == "x 1\n")
        }
        await #expect(throws: (any Error).self) { try await get("http://127.0.0.1:\(port)/metrics") }
    }

    @Test func aSilentClientDoesNotStopTheServer() async throws {
        let server = try MetricsHTTPServer(port: 0) { "x 2\n" }
        defer { server.stop() }
        // A client that connects and never sends a request: dropped after its 2 s.
        let silent = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(silent) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = server.port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(silent, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(connected == 0)
        #expect(try await get("http://127.0.0.1:\(server.port)/metrics").body == "x 2\n")
    }

    @Test func aBusyPortIsATypedError() throws {
        let server = try MetricsHTTPServer(port: 0) { "" }
        defer { server.stop() }
        #expect(throws: MetricsServerError.self) { try MetricsHTTPServer(port: server.port) { "" } }
        #expect(throws: MetricsServerError.self) { try MetricsHTTPServer(host: "not-an-ip") { "" } }
    }
}
