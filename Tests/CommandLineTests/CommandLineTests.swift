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
    func callscope(_ arguments: String...) throws -> Run { try callscope(arguments) }

    func callscope(_ arguments: [String]) throws -> Run {
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

    /// The callback names the README's "The command line's output" section lists.
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

    @Test(arguments: [
        (["--width", "0"], "--width takes a whole number from 1 to 7680, not '0'"),
        (["--height", "360p"], "--height takes a whole number from 1 to 4320, not '360p'"),
        (["--fps", "241"], "--fps takes a whole number from 1 to 240, not '241'"),
        (["--bitrates", "150000,500000"], "--bitrates takes three bit rates q,h,f in bit/s"),
        (["--bitrates", "150000,-1,1500000"], "--bitrates takes three bit rates q,h,f in bit/s"),
        (["--camera-file"], "--camera-file needs a value"),
    ])
    func callsMediaOptionsRejectBadValues(arguments: [String], message: String) throws {
        let run = try callscope(["call", "--janus", "http://127.0.0.1:1/janus"] + arguments)
        #expect(run.status == 2)
        #expect(run.errors.contains(message))
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

    /// A recording with the layer policy's lines: replay prints each one, in both formats, with
    /// the receive limit it applied (docs/network-condition.md).
    @Test func policyEventsArePrintedInBothFormats() throws {
        var lines = [#"{"format":"webrtc-stats-recording","version":1,"interval_ms":1000}"#,
                     #"{"t":1000,"peer":"bob","pc":"pc-1","event":"subscriber-streams","data":{"streams":[{"publisher":"P1","stream":"S1"}]}}"#]
        for second in 0..<6 {
            let t = 1000 + 1000 * second
            lines.append(#"{"t":\#(t),"peer":"bob","pc":"pc-1","report":[{"id":"IT1","type":"inbound-rtp","timestamp":\#(t),"kind":"video","bytesReceived":\#(100_000 * second),"packetsReceived":\#(100 * second),"packetsLost":0}]}"#)
            if second == 2 { lines.append(#"{"t":\#(t + 500),"peer":"bob","pc":"pc-1","event":"subscriber.layerChanged","data":{"substream":0,"temporal":1,"limit":"downlink"}}"#) }
            if second == 3 { lines.append(#"{"t":\#(t + 500),"peer":"bob","pc":"pc-1","event":"subscriber.videoDisabled","data":{"reason":"qualityChanged"}}"#) }
            if second == 4 { lines.append(#"{"t":\#(t + 500),"peer":"bob","pc":"pc-1","event":"subscriber.videoEnabled","data":{"reason":"qualityChanged"}}"#) }
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("policy-\(UInt64.random(in: 0...UInt64.max)).ndjson")
        try Data(lines.joined(separator: "\n").utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let ndjson = try callscope("replay", file.path, "--format", "ndjson")
        #expect(ndjson.status == 0)
        let policy = try ndjson.output.split(separator: "\n").map { try JSONParser.parse(Array($0.utf8)) }
            .filter { $0["callback"]?.string?.hasPrefix("subscriber.video") == true && $0["callback"]?.string?.hasSuffix("StatsUpdated") == false
                || $0["callback"]?.string == "subscriber.layerChanged" }
        #expect(policy.map { $0["callback"]?.string } == ["subscriber.layerChanged", "subscriber.videoDisabled", "subscriber.videoEnabled"])
        #expect(policy.map { $0["data"]?["limitApplied"]?.string } == ["downlink", "paused", "downlink"])
        #expect(policy.allSatisfy { $0["stream"]?.string == "S1" && $0["publisher"]?.string == "P1" && $0["pc"]?.string == "pc-1" })
        #expect(policy.map { $0["t"]?.number } == [3500, 4500, 5500])
        #expect(policy[0]["data"]?["substream"]?.number == 0 && policy[1]["data"]?["reason"]?.string == "qualityChanged")

        let text = try callscope("replay", file.path)
        #expect(text.status == 0)
        #expect(text.output.contains("00:03 ▶ bob/pc-1 [S1] layerChanged: substream 0, temporal 1; receive limit downlink"))
        #expect(text.output.contains("00:04 ▶ bob/pc-1 [S1] videoDisabled: qualityChanged; receive limit paused"))
        #expect(text.output.contains("00:05 ▶ bob/pc-1 [S1] videoEnabled: qualityChanged; receive limit downlink"))
    }
}
