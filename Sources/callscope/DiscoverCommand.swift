import Connectivity
import ConnectivityProbe
import Foundation

/// `callscope discover`: can others reach this machine? A STUN binding over UDP (`udp`), else a
/// TURN allocation over TCP (`tcp`), else `offline`; prints the level and which probe answered
/// in how many ms. Exit status 0 for udp/tcp, 1 for offline.
struct DiscoverCommand: Command {
    static let name = "discover"
    static let summary = "Can others reach this machine: udp, tcp (relay only) or offline."
    static let help = """
    callscope discover --stun HOST:PORT [--turn HOST:PORT --user U --password P]
                       [--watch SECONDS [--interval S] [--confirmations N]] [--format text|ndjson]

    Can others reach this machine? A STUN binding over UDP answered → udp; otherwise a TURN
    allocation over TCP granted (long-term credentials, freed at once) → tcp; otherwise
    offline. Prints the level and each probe's outcome and time in ms; exit status 0 for udp
    or tcp, 1 for offline. --watch re-evaluates for SECONDS (every --interval seconds, default
    30; a worse level only after --confirmations consecutive rounds, default 2) and prints each
    change with its time since the start.
    """

    enum Format: String { case text, ndjson }

    let configuration: DiscoverabilityProbeConfiguration
    let watchSeconds: Double?
    let interval: Double
    let confirmations: Int
    let format: Format

    init(arguments: [String]) throws {
        var remaining = arguments[...]
        var stun: ProbeEndpoint?, turn: ProbeEndpoint?, user: String?, password: String?
        var watch: Double?, interval = 30.0, confirmations = 2, format = Format.text
        func value(_ option: String) throws -> String {
            guard let value = remaining.popFirst() else { throw UsageError("\(option) needs a value") }
            return value
        }
        func endpoint(_ option: String) throws -> ProbeEndpoint {
            let text = try value(option)
            guard let endpoint = ProbeEndpoint(parsing: text) else { throw UsageError("\(option) takes HOST:PORT (or [IPv6]:PORT), not '\(text)'") }
            return endpoint
        }
        func seconds(_ option: String) throws -> Double {
            guard let number = Double(try value(option)), number > 0, number < 86_400 else { throw UsageError("\(option) takes seconds (> 0)") }
            return number
        }
        while let argument = remaining.popFirst() {
            switch argument {
            case "--stun": stun = try endpoint(argument)
            case "--turn": turn = try endpoint(argument)
            case "--user": user = try value(argument)
            case "--password": password = try value(argument)
            case "--watch": watch = try seconds(argument)
            case "--interval": interval = try seconds(argument)
            case "--confirmations":
                guard let number = Int(try value(argument)), (1...10).contains(number) else { throw UsageError("--confirmations takes 1–10") }
                confirmations = number
            case "--format":
                guard let parsed = Format(rawValue: try value(argument)) else { throw UsageError("--format takes 'text' or 'ndjson'") }
                format = parsed
            default: throw UsageError("unknown option '\(argument)' for discover")
            }
        }
        guard let stun else { throw UsageError("discover needs --stun HOST:PORT") }
        guard (turn == nil) == (user == nil), (user == nil) == (password == nil) else {
            throw UsageError("--turn, --user and --password go together")
        }
        configuration = DiscoverabilityProbeConfiguration(
            stunServer: stun, turnServer: turn, credentials: user.map { STUNCredentials(username: $0, password: password ?? "") })
        watchSeconds = watch
        self.interval = interval
        self.confirmations = confirmations
        self.format = format
    }

    func run() throws -> ExitCode {
        let watcher = DiscoverabilityWatcher(prober: DiscoverabilityProber(configuration: configuration),
                                             reevaluationInterval: .milliseconds(Int64(interval * 1000)), confirmationRounds: confirmations)
        var last: SelfConnectionStatus = .offline
        if let watchSeconds {
            watcher.watch(for: .milliseconds(Int64(watchSeconds * 1000))) { status, evidence, time in
                last = status
                report(status, evidence, at: time)
            }
        } else {
            let reading = watcher.evaluateOnce()
            let (status, evidence) = (reading.status, reading.evidence)
            last = status
            report(status, evidence, at: nil)
        }
        return last == .offline ? .failure : .success
    }

    private func report(_ status: SelfConnectionStatus, _ evidence: DiscoverabilityEvidence, at time: Duration?) {
        switch format {
        case .text:
            var lines = [(time.map { "+\(Self.seconds($0)) s  " } ?? "") + status.rawValue
                + (evidence.rounds > 1 ? " (after \(evidence.rounds) rounds agreed)" : "")]
            for result in evidence.results {
                let elapsed = Self.milliseconds(result.elapsed)
                lines.append("  \(result.probe.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0))"
                    + "\(result.succeeded ? "ok    " : "failed")  \(String(repeating: " ", count: max(0, 8 - elapsed.count)))\(elapsed) ms  \(result.detail)")
            }
            write(lines.joined(separator: "\n"))
        case .ndjson:
            let probes = evidence.results.map { result in
                "{\"probe\":\"\(result.probe.rawValue)\",\"ok\":\(result.succeeded),\"ms\":\(Self.milliseconds(result.elapsed)),"
                    + "\"ignored\":\(result.ignoredMessages),\"detail\":\(Self.jsonString(result.detail))}"
            }
            let timeField = time.map { "\"t_ms\":\(Self.milliseconds($0))," } ?? ""
            write("{\(timeField)\"status\":\"\(status.rawValue)\",\"rounds\":\(evidence.rounds),\"probes\":[\(probes.joined(separator: ","))]}")
        }
    }

    /// Unbuffered, so a watcher reading the pipe sees each change when it happens.
    private func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    private static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.2f", Double(seconds) + Double(attoseconds) / 1e18)
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.1f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    private static func jsonString(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case _ where scalar.value < 0x20: escaped += String(format: "\\u%04x", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }
}
