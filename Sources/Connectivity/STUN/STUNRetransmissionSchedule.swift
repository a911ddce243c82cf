/// When a STUN client over UDP sends a request and when it gives up (RFC 8489 §6.2.1): the
/// first retransmission after `initialRTO`, each later one after twice the previous wait, at
/// most `transmissions` sends in all, then a final wait of `finalWaitMultiplier × initialRTO`.
///
/// The RFC's defaults (RTO 500 ms, Rc 7, Rm 16) give up after 39.5 s; a discoverability probe
/// wants an answer sooner, so ``probeDefault`` keeps the RTO and sends 3 times (see
/// docs/connection-state.md).
public struct STUNRetransmissionSchedule: Hashable, Sendable {
    /// The wait before the first retransmission.
    public var initialRTO: Duration
    /// Sends in all, the first included (Rc).
    public var transmissions: Int
    /// The final wait after the last send, in RTOs (Rm).
    public var finalWaitMultiplier: Int

    /// Creates a schedule (`transmissions` and `finalWaitMultiplier` at least 1).
    public init(initialRTO: Duration, transmissions: Int, finalWaitMultiplier: Int) {
        self.initialRTO = initialRTO
        self.transmissions = max(1, transmissions)
        self.finalWaitMultiplier = max(1, finalWaitMultiplier)
    }

    /// RFC 8489's defaults: 500 ms, 7 sends, final wait 16 RTOs (gives up after 39.5 s).
    public static let rfcDefault = STUNRetransmissionSchedule(initialRTO: .milliseconds(500), transmissions: 7, finalWaitMultiplier: 16)

    /// The probe's: 500 ms, 3 sends (0, 0.5, 1.5 s), final wait 2 RTOs: gives up after 2.5 s.
    public static let probeDefault = STUNRetransmissionSchedule(initialRTO: .milliseconds(500), transmissions: 3, finalWaitMultiplier: 2)

    /// When each send happens, from the first.
    public var sendOffsets: [Duration] {
        var offsets: [Duration] = [.zero]
        var wait = initialRTO
        while offsets.count < transmissions {
            offsets.append(offsets[offsets.count - 1] + wait)
            wait *= 2
        }
        return offsets
    }

    /// When the client gives up, from the first send.
    public var giveUpAfter: Duration { sendOffsets[sendOffsets.count - 1] + initialRTO * finalWaitMultiplier }
}
