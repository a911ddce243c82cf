import Connectivity

/// A STUN Binding request over UDP, retransmitted on the schedule until a trusted answer or the
/// give-up time (RFC 8489 §6.2.1). Untrusted datagrams are counted and ignored.
struct UDPBindingProbe {
    let server: ProbeEndpoint
    let schedule: STUNRetransmissionSchedule

    func run() -> DiscoverabilityProbeResult {
        let clock = ContinuousClock()
        let start = clock.now
        func result(_ succeeded: Bool, _ detail: String, ignored: Int = 0) -> DiscoverabilityProbeResult {
            DiscoverabilityProbeResult(probe: .udpBinding, succeeded: succeeded, elapsed: start.duration(to: clock.now), detail: detail, ignoredMessages: ignored)
        }
        let socket: POSIXSocket
        do {
            let address = try ResolvedAddress.resolve(server, stream: false)
            socket = try POSIXSocket(family: address.family, stream: false)
            try socket.open(to: address, deadline: start + schedule.giveUpAfter)
        } catch {
            return result(false, "STUN binding over UDP to \(server): \(error)")
        }
        let transactionID = STUNTransactionID.random()
        let request = STUNMessage(type: STUNMessageType(method: .binding, messageClass: .request), transactionID: transactionID)
            .encoded(fingerprint: true)
        var filter = STUNResponseFilter(transactionID: transactionID, method: .binding)
        let offsets = schedule.sendOffsets
        var sent = 0
        while true {
            let elapsed = start.duration(to: clock.now)
            if sent < offsets.count, elapsed >= offsets[sent] {
                do {
                    try socket.transmit(request, deadline: clock.now + .milliseconds(100))
                } catch {
                    return result(false, "STUN binding over UDP to \(server): \(error)", ignored: filter.droppedCount)
                }
                sent += 1
                continue
            }
            guard elapsed < schedule.giveUpAfter else {
                return result(false, "no answer to a STUN binding over UDP from \(server) after \(sent) transmissions\(Self.ignoredNote(filter))", ignored: filter.droppedCount)
            }
            let next = sent < offsets.count ? offsets[sent] : schedule.giveUpAfter
            let datagram: [UInt8]?
            do {
                datagram = try socket.receiveBytes(deadline: start + next)
            } catch {
                // ECONNREFUSED: an ICMP port unreachable for an earlier send; no server there.
                return result(false, "STUN binding over UDP to \(server): \(error)", ignored: filter.droppedCount)
            }
            guard let datagram, let response = filter.accept(datagram) else { continue }
            if response.type.messageClass == .errorResponse {
                let code = (try? response.errorCode())?.description ?? "without ERROR-CODE"
                return result(false, "\(server) answered the STUN binding over UDP with error \(code)", ignored: filter.droppedCount)
            }
            let mapped = (try? response.mappedAddress())?.map { "; the server saw \($0)" } ?? ""
            return result(true, "STUN binding over UDP to \(server) answered after \(sent) transmission\(sent == 1 ? "" : "s")\(mapped)\(Self.ignoredNote(filter))", ignored: filter.droppedCount)
        }
    }

    static func ignoredNote(_ filter: STUNResponseFilter) -> String {
        guard filter.droppedCount > 0 else { return "" }
        let reasons = filter.drops.map { "\($0.value) \($0.key)" }.sorted().joined(separator: ", ")
        return "; ignored \(filter.droppedCount) untrusted (\(reasons))"
    }
}
