import Connectivity
@testable import Friends
import Testing

/// What the friend manager reports as discoverability: the probes' level, `offline` while the
/// XMPP stream is down for good, the probes' level again when it is back; each only on change.
@Suite struct DiscoverabilityPublicationTests {
    enum Step: Sendable, CustomStringConvertible {
        case measured(SelfConnectionStatus)
        case streamDown
        case streamBack
        var description: String {
            switch self {
            case .measured(let status): "measured \(status)"
            case .streamDown: "stream down"
            case .streamBack: "stream back"
            }
        }
    }

    /// Each row: the steps, and what is reported after each (`nil`: nothing).
    @Test(arguments: [
        ([.measured(.udp)], [SelfConnectionStatus?.some(.udp)]),
        ([.measured(.udp), .measured(.udp)], [.udp, nil]),
        ([.measured(.udp), .streamDown, .streamBack], [.udp, .offline, .udp]),
        // Probes keep measuring while the stream is down: nothing shows until it is back.
        ([.measured(.udp), .streamDown, .measured(.tcp), .streamBack], [.udp, .offline, nil, .tcp]),
        // The probes say offline too: the stream coming back changes nothing.
        ([.measured(.udp), .streamDown, .measured(.offline), .streamBack], [.udp, .offline, nil, nil]),
        ([.streamDown, .measured(.udp), .streamBack], [.offline, nil, .udp]),
        ([.streamBack], [nil]),
        ([.measured(.tcp), .streamDown, .streamDown], [.tcp, .offline, nil]),
    ] as [([Step], [SelfConnectionStatus?])])
    func reportedLevels(steps: [Step], expected: [SelfConnectionStatus?]) {
        var publication = DiscoverabilityPublication()
        let evidence = DiscoverabilityEvidence(results: [], rounds: 1)
        let reported = steps.map { step -> SelfConnectionStatus? in
            switch step {
            case .measured(let status): publication.measured(status, evidence)
            case .streamDown: publication.stream(down: true)
            case .streamBack: publication.stream(down: false)
            }
        }
        #expect(reported == expected, "\(steps)")
    }
}
