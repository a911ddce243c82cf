import Connectivity

/// A TURN allocation over TCP with long-term credentials (RFC 8656 §7, RFC 8489 §9.2): an
/// unauthenticated Allocate, the 401 with REALM and NONCE, the Allocate again with USERNAME,
/// REALM, NONCE and MESSAGE-INTEGRITY (key MD5(user:realm:password)), then a Refresh with
/// LIFETIME 0 so the relay is freed at once. Everything within `timeout`.
struct TURNAllocationProbe {
    let server: ProbeEndpoint
    let credentials: STUNCredentials
    let timeout: Duration

    private struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Reads whole STUN messages from the stream, checking each through a filter.
    private final class Connection {
        let socket: POSIXSocket
        var buffer: [UInt8] = []
        var ignored = 0
        var ignoredReasons: [STUNDropReason: Int] = [:]

        init(socket: POSIXSocket) { self.socket = socket }

        /// Sends `request` and returns the first trusted response to it before `deadline`.
        func transaction(_ request: STUNMessage, key: [UInt8]?, deadline: ContinuousClock.Instant) throws(Failure) -> STUNMessage {
            do {
                try socket.transmit(request.encoded(integrityKey: key, fingerprint: true), deadline: deadline)
            } catch {
                throw Failure(description: "\(error)")
            }
            var filter = STUNResponseFilter(transactionID: request.transactionID, method: request.type.method, integrityKey: key)
            defer {
                ignored += filter.droppedCount
                ignoredReasons.merge(filter.drops, uniquingKeysWith: +)
            }
            while true {
                let frame = try nextFrame(deadline: deadline)
                if let response = filter.accept(frame) { return response }
            }
        }

        private func nextFrame(deadline: ContinuousClock.Instant) throws(Failure) -> [UInt8] {
            while true {
                let size: Int?
                do {
                    size = try STUNMessage.frameSize(prefix: buffer)
                } catch {
                    throw Failure(description: "the TCP stream is not STUN (\(error)); it cannot be read further")
                }
                if let size, buffer.count >= size {
                    let frame = Array(buffer.prefix(size))
                    buffer.removeFirst(size)
                    return frame
                }
                let chunk: [UInt8]?
                do {
                    chunk = try socket.receiveBytes(capacity: 4096, deadline: deadline)
                } catch {
                    throw Failure(description: "\(error)")
                }
                guard let chunk else { throw Failure(description: "no answer in time") }
                guard !chunk.isEmpty else { throw Failure(description: "the server closed the connection") }
                buffer += chunk
            }
        }
    }

    func run() -> DiscoverabilityProbeResult {
        let clock = ContinuousClock()
        let start = clock.now
        let deadline = start + timeout
        var connection: Connection?
        func result(_ succeeded: Bool, _ detail: String, at end: ContinuousClock.Instant? = nil) -> DiscoverabilityProbeResult {
            var note = ""
            if let connection, connection.ignored > 0 {
                let reasons = connection.ignoredReasons.map { "\($0.value) \($0.key)" }.sorted().joined(separator: ", ")
                note = "; ignored \(connection.ignored) untrusted (\(reasons))"
            }
            return DiscoverabilityProbeResult(probe: .tcpAllocation, succeeded: succeeded, elapsed: start.duration(to: end ?? clock.now),
                                              detail: detail + note, ignoredMessages: connection?.ignored ?? 0)
        }
        let prefix = "TURN allocation over TCP at \(server)"
        do {
            let address = try ResolvedAddress.resolve(server, stream: true)
            let socket = try POSIXSocket(family: address.family, stream: true)
            try socket.open(to: address, deadline: deadline)
            connection = Connection(socket: socket)
        } catch {
            return result(false, "\(prefix): \(error)")
        }
        guard let connection else { return result(false, prefix) }
        do {
            // 1. Unauthenticated: the server answers 401 with its realm and nonce.
            let allocate = { (attributes: [STUNAttribute]) in
                STUNMessage(type: STUNMessageType(method: .allocate, messageClass: .request), transactionID: .random(),
                            attributes: [.requestedTransport()] + attributes)
            }
            let challenge = try connection.transaction(allocate([]), key: nil, deadline: deadline)
            if challenge.type.messageClass == .successResponse {
                return result(true, "\(prefix) granted without credentials")
            }
            guard try challenge.errorCode()?.code == STUNErrorCode.unauthorized,
                  let realm = challenge.text(of: .realm), var nonce = challenge.text(of: .nonce)
            else {
                return result(false, "\(prefix): expected 401 with REALM and NONCE, got \(Self.describe(challenge))")
            }
            // 2. Authenticated; a 438 (stale nonce) is retried once with the new nonce.
            let key = credentials.longTermKey(realm: realm)
            let authentication = { (nonce: String) -> [STUNAttribute] in
                [.text(.username, credentials.username), .text(.realm, realm), .text(.nonce, nonce)]
            }
            var granted = try connection.transaction(allocate(authentication(nonce)), key: key, deadline: deadline)
            if try granted.errorCode()?.code == STUNErrorCode.staleNonce, let fresh = granted.text(of: .nonce) {
                nonce = fresh
                granted = try connection.transaction(allocate(authentication(nonce)), key: key, deadline: deadline)
            }
            let grantedAt = clock.now
            guard granted.type.messageClass == .successResponse else {
                return result(false, "\(prefix): the credentials of '\(credentials.username)' in realm '\(realm)' were refused: \(Self.describe(granted))")
            }
            let relayed = (try? granted.relayedAddress())?.map { " (relayed address \($0))" } ?? ""
            // 3. Free the relay: Refresh with LIFETIME 0 (at most 1 s more, whatever the outcome).
            let refresh = { (nonce: String) in
                STUNMessage(type: STUNMessageType(method: .refresh, messageClass: .request), transactionID: .random(),
                            attributes: [.lifetime(seconds: 0)] + authentication(nonce))
            }
            var freed = "freed with Refresh lifetime 0"
            do {
                let refreshDeadline = clock.now + .seconds(1)
                var answer = try connection.transaction(refresh(nonce), key: key, deadline: refreshDeadline)
                if try answer.errorCode()?.code == STUNErrorCode.staleNonce, let fresh = answer.text(of: .nonce) {
                    answer = try connection.transaction(refresh(fresh), key: key, deadline: refreshDeadline)
                }
                if answer.type.messageClass != .successResponse { freed = "not freed: Refresh got \(Self.describe(answer))" }
            } catch {
                freed = "not freed: Refresh \(error)"
            }
            return result(true, "\(prefix) granted\(relayed); \(freed)", at: grantedAt)
        } catch let failure as Failure {
            return result(false, "\(prefix): \(failure.description)")
        } catch {
            return result(false, "\(prefix): \(error)")
        }
    }

    private static func describe(_ message: STUNMessage) -> String {
        if let code = try? message.errorCode() { return "error \(code)" }
        return "\(message.type.method) \(message.type.messageClass)"
    }
}
