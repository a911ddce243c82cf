import CallScopeTestSupport
import Foundation
import RTCStats
import Testing

/// The built `callscope` binary, run as a user runs it: the ndjson callback contract the README
/// documents, the errors and the exit codes.
@Suite struct CommandLineTests {
    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    /// Runs the binary SwiftPM built beside this test bundle.
    private func callscope(_ arguments: String...) throws -> Run {
        let products = Bundle.main.bundleURL.deletingLastPathComponent()
        let candidates = [products, Bundle.main.bundleURL].map { $0.appendingPathComponent("callscope") }
        let binary = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }, "the callscope binary is built beside the tests")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = Synthetic.repositoryRoot()
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read before waiting: a full pipe would block the child.
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, output: String(decoding: out, as: UTF8.self), errors: String(decoding: err, as: UTF8.self))
    }

    /// The callback names the README's "The command line" section lists.
    private func documentedCallbacks() throws -> Set<String> {
        let readme = try String(contentsOf: Synthetic.repositoryRoot().appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "Callbacks: ").map { readme[$0.upperBound...].prefix(900) })
        let pattern = try Regex("`((publisher|subscriber|participant)\\.[A-Za-z]+)`")
        return Set(section.matches(of: pattern).compactMap { $0.output[1].substring.map(String.init) })
    }

    @Test func ndjsonLinesFollowTheDocumentedContract() throws {
        let documented = try documentedCallbacks()
        #expect(documented.count == 11, "the README lists the eleven callbacks")
        let run = try callscope("replay", "Recordings/both-sides.ndjson.gz", "--format", "ndjson")
        #expect(run.status == 0)
        var seen: Set<String> = []
        var lines = 0
        for line in run.output.split(separator: "\n") {
            lines += 1
            let value = try JSONParser.parse(Array(line.utf8))
            #expect(value["t"]?.number != nil && value["peer"]?.string != nil && value["pc"]?.string != nil && value["stream"]?.string != nil)
            let name = try #require(value["callback"]?.string)
            #expect(documented.contains(name), "\(name) is documented")
            seen.insert(name)
            let data = try #require(value["data"])
            switch name {
            case "publisher.videoNetworkStatsUpdated":
                let layer = try #require(data.array?.first?["videoLayers"]?.array?.first)
                for field in ["width", "height", "bitrate", "totalBitrate", "rid", "codec", "scalabilityMode", "qualityLimitationReason", "encodedFrameRate"] {
                    #expect(layer[field] != nil, "a layer has \(field)")
                }
            case "subscriber.mediaLinkStatsUpdated":
                for field in ["transport", "remotePublisherTransport", "networkDegradationSource"] { #expect(data[field] != nil, "mediaLink has \(field)") }
            default: break
            }
        }
        #expect(lines > 6 * 50, "six per-second callbacks over a 60 s call, less warm-up")
        // A call with both sides impaired produces every per-second callback and the condition events.
        for name in ["publisher.videoNetworkStatsUpdated", "publisher.audioNetworkStatsUpdated", "publisher.mediaLinkStatsUpdated",
                     "subscriber.videoNetworkStatsUpdated", "subscriber.audioNetworkStatsUpdated", "subscriber.mediaLinkStatsUpdated",
                     "publisher.networkConditionChanged", "subscriber.networkConditionChanged"] {
            #expect(seen.contains(name), "\(name) appears")
        }
    }

    @Test func anUnknownOptionIsAOneLineUsageError() throws {
        let run = try callscope("replay", "--colour")
        #expect(run.status == 2)
        #expect(run.errors.split(separator: "\n").count == 1)
        #expect(run.errors.contains("'--colour'"))
        #expect(run.output.isEmpty)
    }

    @Test func callsLayerPreferencesAreCheckedBeforeJoining() throws {
        let size = try callscope("call", "--janus", "http://127.0.0.1:9/janus", "--preferred-resolution", "480")
        #expect(size.status == 2)
        #expect(size.errors.contains("WIDTHxHEIGHT"))
        let rate = try callscope("call", "--janus", "http://127.0.0.1:9/janus", "--preferred-frame-rate", "0")
        #expect(rate.status == 2)
        #expect(rate.errors.contains("--preferred-frame-rate"))
    }

    @Test func aBadOptionValueNamesTheChoices() throws {
        let run = try callscope("replay", "--format=xml")
        #expect(run.status == 2)
        #expect(run.errors.contains("'text' or 'ndjson'") && run.errors.contains("'xml'"))
    }

    @Test func aMissingFileFailsWithItsName() throws {
        let run = try callscope("replay", "/nonexistent/call.ndjson")
        #expect(run.status == 1)
        #expect(run.errors.contains("/nonexistent/call.ndjson"))
    }

    @Test func callsDiscoverabilityOptionsGoTogether() throws {
        let turnAlone = try callscope("call", "--janus", "http://127.0.0.1:1/janus", "--stun", "127.0.0.1:3478", "--turn", "127.0.0.1:3478")
        #expect(turnAlone.status == 2)
        #expect(turnAlone.errors.contains("--turn, --user and --password go together"))
        let badEndpoint = try callscope("call", "--janus", "http://127.0.0.1:1/janus", "--stun", "nowhere")
        #expect(badEndpoint.status == 2)
        #expect(badEndpoint.errors.contains("'nowhere'"))
    }

    @Test func anUnknownCommandIsAUsageError() throws {
        let run = try callscope("replya")
        #expect(run.status == 2)
        #expect(run.errors.contains("'replya'"))
    }

    @Test func helpListsEveryCommandAndEachCommandHasItsOwn() throws {
        let overview = try callscope("--help")
        #expect(overview.status == 0)
        for name in ["replay", "evaluate", "bench", "frames"] {
            #expect(overview.output.contains("  \(name) "), "--help lists \(name)")
            let help = try callscope("help", name)
            #expect(help.status == 0)
            #expect(help.output.hasPrefix("callscope \(name)"))
            #expect(try callscope(name, "--help").output == help.output)
        }
    }

    /// A capture with nothing usable (legacy goog* stats only) used to exit 0 and say "no
    /// degradation: every link stayed fair or better".
    @Test func aCaptureWithNothingUsableSaysWhatItFoundAndFails() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("legacy-\(UInt64.random(in: 0...UInt64.max)).json")
        try Data(#"[{"id":"ssrc_1_send","type":"ssrc","timestamp":1000,"googCodecName":"VP8","bytesSent":"1000"},{"id":"bweforvideo","type":"VideoBwe","timestamp":1000,"googAvailableSendBandwidth":"300000"}]"#.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try callscope("replay", file.path)
        #expect(run.status == 1)
        #expect(run.errors.contains("nothing usable") && run.errors.contains("ssrc"))
        #expect(!run.output.contains("no degradation"))
    }
}
