#if canImport(Darwin)
import CallScopeCore
import Foundation
import XMPP

/// The Apple-platform transport: `URLSessionWebSocketTask` with the `xmpp` subprotocol.
/// Not compiled on Linux (where the task fails at run time: Debian's libcurl has no WebSocket),
/// so it is kept to the minimum and untested here.
package final class URLSessionWebSocketTransport: XMPPTransport {
    private let url: URL
    private let task = Locked<URLSessionWebSocketTask?>(nil)

    package init(url: URL) { self.url = url }

    package func connect(timeout: Duration) async throws(XMPPError) -> AsyncStream<XMPPTransportEvent> {
        let webSocket = URLSession.shared.webSocketTask(with: url, protocols: ["xmpp"])
        webSocket.maximumMessageSize = 1 << 20
        task.withLock { $0 = webSocket }
        webSocket.resume()
        return AsyncStream { continuation in
            let reader = Task {
                while true {
                    do {
                        switch try await webSocket.receive() {
                        case .string(let text): continuation.yield(.message(Array(text.utf8)))
                        case .data(let data): continuation.yield(.message(Array(data)))
                        @unknown default: break
                        }
                    } catch {
                        let clean = webSocket.closeCode == .normalClosure
                        continuation.yield(.closed(clean ? nil : XMPPError(.transport, "WebSocket: \(error.localizedDescription)")))
                        continuation.finish()
                        return
                    }
                }
            }
            continuation.onTermination = { _ in reader.cancel() }
        }
    }

    package func send(_ text: String) async throws(XMPPError) {
        guard let webSocket = task.withLock({ $0 }) else { throw XMPPError(.notConnected, "WebSocket not connected") }
        do { try await webSocket.send(.string(text)) } catch { throw XMPPError(.transport, "WebSocket send: \(error.localizedDescription)") }
    }

    package func close() async { task.withLock { $0 }?.cancel(with: .normalClosure, reason: nil) }

    package func abort() { task.withLock { $0 }?.cancel() }
}
#endif
