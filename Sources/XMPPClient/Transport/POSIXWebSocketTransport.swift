import CallScopeCore
import ConnectivityProbe
import Foundation
import WebSocket
import XMPP

/// Our RFC 6455 client over the project's POSIX sockets (ws:// only), the Linux transport.
/// One reader thread per connection decodes frames (bounded: 1 MiB per message, 16 KiB of
/// handshake), answers pings and hands messages on in order; writes are serialised by a lock;
/// `abort` shuts the socket down from any thread, which wakes the reader.
package final class POSIXWebSocketTransport: XMPPTransport, @unchecked Sendable {
    // @unchecked: `socket` is set once before the reader starts and only read after; a socket
    // is safe to read on one thread and write on another (writes are serialised by `writeLock`);
    // the rest of the mutable state is inside `Locked`.
    private let host: String
    private let port: UInt16
    private let path: String
    private let maximumMessageBytes: Int
    private let writeLock = NSLock()
    private let state = Locked(State())
    private var socket: POSIXSocket?

    private struct State {
        var closing = false
        var aborted = false
        var finished = false
    }

    /// A transport for `url` (`ws://HOST[:PORT]/PATH`); throws for another scheme.
    package init(url: URL, maximumMessageBytes: Int = 1 << 20) throws(XMPPError) {
        guard url.scheme == "ws", let host = url.host, !host.isEmpty else {
            throw XMPPError(.invalidArgument, "\(url.absoluteString): only ws:// URLs on this platform (wss:// needs TLS: docs/peer-to-peer.md)")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        port = UInt16(url.port ?? 80)
        path = url.path.isEmpty ? "/" : url.path
        self.maximumMessageBytes = maximumMessageBytes
    }

    package func connect(timeout: Duration) async throws(XMPPError) -> AsyncStream<XMPPTransportEvent> {
        let result: Result<OpenedSocket, XMPPError> = await withCheckedContinuation { continuation in
            let thread = Thread { [self] in continuation.resume(returning: Result { () throws(XMPPError) in try self.open(timeout: timeout) }) }
            thread.start()
        }
        let opened = try result.get()
        socket = opened.socket
        let (stream, continuation) = AsyncStream<XMPPTransportEvent>.makeStream(bufferingPolicy: .unbounded)
        let reader = Thread { [self] in self.read(opened.socket, leftover: opened.leftover, into: continuation) }
        reader.name = "callscope.xmpp.websocket"
        reader.start()
        return stream
    }

    /// Connects, sends the upgrade and validates the answer; returns the bytes read past the header.
    private func open(timeout: Duration) throws(XMPPError) -> OpenedSocket {
        let deadline = ContinuousClock.now + timeout
        let handshake = WebSocketClientHandshake(host: host, port: port, path: path, subprotocol: "xmpp")
        do {
            let address = try ResolvedAddress.resolve(ProbeEndpoint(host: host, port: port), stream: true)
            let socket = try POSIXSocket(family: address.family, stream: true)
            try socket.open(to: address, deadline: deadline)
            try socket.transmit(handshake.request, deadline: deadline)
            var received: [UInt8] = []
            while true {
                guard let chunk = try socket.receiveBytes(capacity: 4096, deadline: deadline) else {
                    throw XMPPError(.timeout, "no WebSocket handshake answer from \(host):\(port) within \(timeout)")
                }
                guard !chunk.isEmpty else { throw XMPPError(.transport, "\(host):\(port) closed the connection during the WebSocket handshake") }
                received += chunk
                if let end = WebSocketClientHandshake.headerEnd(in: received) {
                    do { try handshake.validate(responseHeader: received[..<end]) } catch { throw XMPPError(.transport, error.message) }
                    return OpenedSocket(socket: socket, leftover: Array(received[end...]))
                }
                guard received.count <= WebSocketClientHandshake.maximumResponseBytes else {
                    throw XMPPError(.transport, "WebSocket handshake answer over \(WebSocketClientHandshake.maximumResponseBytes) bytes")
                }
            }
        } catch let failure as SocketFailure {
            throw XMPPError(.transport, "ws://\(host):\(port)\(path): \(failure.description)")
        } catch let error as XMPPError {
            throw error
        } catch {
            throw XMPPError(.transport, "\(error)")
        }
    }

    /// A connected socket handed from the connecting thread to the reader thread.
    private struct OpenedSocket: @unchecked Sendable {
        // @unchecked: handed over once; after that only the reader reads it (see the class).
        let socket: POSIXSocket
        let leftover: [UInt8]
    }

    /// The reader thread: frames in, messages out, until the connection ends.
    private func read(_ socket: POSIXSocket, leftover: [UInt8], into continuation: AsyncStream<XMPPTransportEvent>.Continuation) {
        var decoder = WebSocketFrameDecoder(maximumMessageBytes: maximumMessageBytes)
        decoder.append(leftover)
        var ending: XMPPError??
        reading: while ending == nil {
            do {
                while let message = try decoder.nextMessage() {
                    switch message {
                    case .text(let bytes), .binary(let bytes):
                        continuation.yield(.message(bytes))
                    case .ping(let data):
                        try write(WebSocketFrameEncoder.frame(.pong, data, maskingKey: WebSocketFrameEncoder.randomMaskingKey()), to: socket)
                    case .pong:
                        break
                    case .close(let code, let reason):
                        let weClosed = state.withLock { state in
                            defer { state.closing = true }
                            return state.closing
                        }
                        if !weClosed { try? write(WebSocketFrameEncoder.frame(.close, WebSocketFrameEncoder.closePayload(code: code ?? 1000), maskingKey: WebSocketFrameEncoder.randomMaskingKey()), to: socket) }
                        ending = weClosed ? .some(nil) : XMPPError(.transport, "server closed the WebSocket (\(code.map(String.init) ?? "no code")\(reason.isEmpty ? "" : ": " + reason))")
                        break reading
                    }
                }
                guard let chunk = try socket.receiveBytes(capacity: 64 << 10, deadline: .now + .milliseconds(500)) else { continue }
                if chunk.isEmpty {
                    let (closing, aborted) = state.withLock { ($0.closing, $0.aborted) }
                    ending = aborted ? XMPPError(.transport, "connection dropped locally") : closing ? .some(nil) : XMPPError(.transport, "server closed the TCP connection")
                } else {
                    decoder.append(chunk)
                }
            } catch let error as WebSocketProtocolError {
                try? write(WebSocketFrameEncoder.frame(.close, WebSocketFrameEncoder.closePayload(code: error.closeCode), maskingKey: WebSocketFrameEncoder.randomMaskingKey()), to: socket)
                ending = XMPPError(.transport, error.description)
            } catch {
                let aborted = state.withLock { $0.aborted }
                ending = XMPPError(.transport, aborted ? "connection dropped locally" : "\(error)")
            }
        }
        socket.shutdownBothDirections()
        state.withLock { $0.finished = true }
        continuation.yield(.closed(ending ?? nil))
        continuation.finish()
    }

    private func write(_ frame: [UInt8], to socket: POSIXSocket) throws(SocketFailure) {
        writeLock.lock()
        defer { writeLock.unlock() }
        try socket.transmit(frame, deadline: .now + .seconds(10))
    }

    package func send(_ text: String) async throws(XMPPError) {
        guard let socket, !state.withLock({ $0.finished || $0.closing }) else { throw XMPPError(.notConnected, "WebSocket to \(host):\(port) is closed") }
        do {
            try write(WebSocketFrameEncoder.frame(.text, Array(text.utf8), maskingKey: WebSocketFrameEncoder.randomMaskingKey()), to: socket)
        } catch {
            throw XMPPError(.transport, "WebSocket send to \(host):\(port): \(error.description)")
        }
    }

    package func close() async {
        guard let socket else { return }
        let alreadyClosing = state.withLock { state in
            defer { state.closing = true }
            return state.closing || state.finished
        }
        if !alreadyClosing {
            try? write(WebSocketFrameEncoder.frame(.close, WebSocketFrameEncoder.closePayload(code: 1000), maskingKey: WebSocketFrameEncoder.randomMaskingKey()), to: socket)
        }
        // The server answers with its close frame and closes TCP; give it a second.
        for _ in 0..<20 where !state.withLock({ $0.finished }) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        socket.shutdownBothDirections()
    }

    package func abort() {
        state.withLock { $0.aborted = true }
        socket?.shutdownBothDirections()
    }
}
