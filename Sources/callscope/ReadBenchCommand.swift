import CallScopeReplay
import Dispatch
import Foundation
import Observability
import RTCStats

/// `callscope read-bench`: how long replaying a dump takes (our reader, then the engine) beside
/// a plain JSON parse of the same file and of every series or line it embeds, by node and by
/// Python's `json`, measured in the same run on the same bytes.
///
/// Workloads: the real webrtc-internals dumps in `Recordings/`, the subscriber one also
/// lengthened tenfold to about 3 MB (each series repeated, counters and times continuing, as a
/// ten-minute call would write), the real rtcstats dumps among the test fixtures, and any FILE
/// given.
struct ReadBenchCommand: Command {
    static let name = "read-bench"
    static let summary = "Time reading real dumps against node's and Python's JSON parse."
    static let help = """
    callscope read-bench [FILE...] [--json] [--seconds S]

    ms to replay real dumps (reader, then engine) beside node's and Python's plain JSON parse
    of the same file and every series or line in it, measured in the same run.
    """

    var json = false
    var minimumSeconds = 0.4
    var files: [String] = []

    init(arguments: [String]) throws {
        var parser = ArgumentParser(arguments, command: Self.name)
        while let argument = parser.next() {
            switch argument {
            case "--json": json = true
            case "--seconds": minimumSeconds = try parser.positiveNumber(of: argument)
            case let option where ArgumentParser.isOption(option): throw parser.unknownOption(option)
            default: files.append(argument)
            }
        }
    }

    struct Row {
        var name: String
        var bytes: Int
        var samples: Int
        var readMilliseconds: Double
        var engineMilliseconds: Double
        /// Plain JSON parse of the file and its series/lines, by reference tool.
        var references: [(tool: String, milliseconds: Double)]
    }

    func run() throws -> ExitCode {
        var workloads: [(name: String, bytes: [UInt8])] = []
        let recordings = ShippedRecordings.directory
        for name in ["webrtc-internals-publisher.json.gz", "webrtc-internals-subscriber.json.gz"] {
            guard let data = FileManager.default.contents(atPath: recordings + "/" + name) else { continue }
            let plain = try Gzip.decompress([UInt8](data))
            workloads.append((name.replacingOccurrences(of: ".gz", with: ""), plain))
            if name.contains("subscriber") {
                workloads.append(("\(name.replacingOccurrences(of: ".json.gz", with: "")) ×10", try Self.lengthened(plain, times: 10)))
            }
        }
        let fixtures = URL(fileURLWithPath: recordings).deletingLastPathComponent().appendingPathComponent("Tests/RTCStatsTests/Fixtures").path
        for name in ["chrome-standard-pc-reconnect.rtcstats", "safari-relay.rtcstats"] {
            if let data = FileManager.default.contents(atPath: fixtures + "/" + name) { workloads.append((name, [UInt8](data))) }
        }
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else { throw ReplayFileError(message: "\(file): cannot read the file") }
            var bytes = [UInt8](data)
            if Gzip.isCompressed(bytes) { bytes = try Gzip.decompress(bytes, limits: .default) }
            workloads.append((URL(fileURLWithPath: file).lastPathComponent, bytes))
        }
        var rows: [Row] = []
        for workload in workloads { rows.append(try measure(workload.name, workload.bytes)) }
        report(rows)
        return .success
    }

    func measure(_ name: String, _ bytes: [UInt8]) throws -> Row {
        let timeline = try StatsTimeline.read(bytes)
        let read = bestMilliseconds { _ = try? StatsTimeline.read(bytes) }
        let engine = bestMilliseconds { _ = ReplayDriver.replay(timeline) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("callscope-read-bench-\(getpid()).json").path
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw ReplayFileError(message: "read-bench: cannot write \(path)")
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        var references: [(String, Double)] = []
        let lines = timeline.format == .webrtcInternals ? "0" : "1"
        let rounds = String(max(5, Int(minimumSeconds * 25)))
        if let milliseconds = Self.runReference(["node", "-e", Self.nodeScript, path, lines, rounds]) { references.append(("node", milliseconds)) }
        if let milliseconds = Self.runReference(["python3", "-c", Self.pythonScript, path, lines, rounds]) { references.append(("python3 json", milliseconds)) }
        return Row(name: name, bytes: bytes.count, samples: timeline.samples.count, readMilliseconds: read, engineMilliseconds: engine, references: references)
    }

    func report(_ rows: [Row]) {
        if json {
            var object: [StatsField] = []
            for row in rows {
                var fields = [
                    StatsField("bytes", .number(Double(row.bytes))),
                    StatsField("samples", .number(Double(row.samples))),
                    StatsField("read_ms", .number(BenchCommand.round(row.readMilliseconds, digits: 2))),
                    StatsField("engine_ms", .number(BenchCommand.round(row.engineMilliseconds, digits: 2))),
                ]
                for reference in row.references {
                    fields.append(StatsField("\(reference.tool)_ms", .number(BenchCommand.round(reference.milliseconds, digits: 2))))
                    fields.append(StatsField("replay_over_\(reference.tool)", .number(BenchCommand.round((row.readMilliseconds + row.engineMilliseconds) / reference.milliseconds, digits: 2))))
                }
                object.append(StatsField(row.name, .object(fields)))
            }
            object.append(StatsField("machine", .string(BenchCommand.machine())))
            print(JSONWriter.string(.object(object)))
            return
        }
        print("callscope read-bench — ms per file, best of several runs (\(BenchCommand.machine()))")
        print("replay = our reader + the engine; reference = a plain JSON parse of the file and every series/line in it")
        for row in rows {
            let replay = row.readMilliseconds + row.engineMilliseconds
            var line = String(format: "%-40@ %9d bytes %6d samples  read %7.2f  engine %7.2f  replay %7.2f", row.name, row.bytes, row.samples, row.readMilliseconds, row.engineMilliseconds, replay)
            for reference in row.references {
                line += String(format: "  %@ %6.2f (×%.2f)", reference.tool, reference.milliseconds, replay / reference.milliseconds)
            }
            print(line)
        }
    }

    // MARK: Measuring

    /// The best of several timed runs of `body`, over at least `minimumSeconds`, in ms.
    func bestMilliseconds(_ body: () -> Void) -> Double {
        body()  // Warm up.
        var best = Double.infinity
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(minimumSeconds * 1e9)
        var runs = 0
        repeat {
            let start = DispatchTime.now().uptimeNanoseconds
            body()
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            runs += 1
        } while runs < 5 || DispatchTime.now().uptimeNanoseconds < deadline
        return best
    }

    /// Runs a reference script (it prints its best time in ms); `nil` when the tool is missing.
    static func runReference(_ command: [String]) -> Double? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return Double(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// argv: file, 1 = parse each line (NDJSON) / 0 = parse the document and every series' values, rounds.
    static let nodeScript = """
        const fs = require('fs'); const [file, lines, rounds] = process.argv.slice(1);
        const text = fs.readFileSync(file, 'utf8'); let best = Infinity;
        for (let r = 0; r < +rounds; r++) {
          const t = process.hrtime.bigint(); let n = 0;
          if (lines === '1') { for (const l of text.split('\\n')) if (l.trim()) { try { JSON.parse(l); n++ } catch (e) {} } }
          else { const d = JSON.parse(text); for (const pc of Object.values(d.PeerConnections || {})) for (const s of Object.values(pc.stats || {})) if (typeof s.values === 'string') n += JSON.parse(s.values).length; }
          best = Math.min(best, Number(process.hrtime.bigint() - t) / 1e6);
        }
        console.log(best);
        """

    static let pythonScript = """
        import json, sys, time
        path, lines, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
        data = open(path, 'rb').read(); best = float('inf')
        for _ in range(rounds):
            t = time.perf_counter(); n = 0
            if lines == '1':
                for line in data.split(b'\\n'):
                    if line.strip():
                        try: json.loads(line); n += 1
                        except ValueError: pass
            else:
                d = json.loads(data)
                for pc in d.get('PeerConnections', {}).values():
                    for s in pc.get('stats', {}).values():
                        if isinstance(s.get('values'), str): n += len(json.loads(s['values']))
            best = min(best, time.perf_counter() - t)
        print(best * 1000)
        """

    // MARK: Workloads

    /// A webrtc-internals dump with every series repeated `times` times: numbers continue from
    /// where the series ended (counters keep counting, times keep rising one poll apart), other
    /// values repeat.
    static func lengthened(_ dump: [UInt8], times: Int) throws -> [UInt8] {
        guard case .object(var top) = try JSONParser.parse(dump),
              let connectionsIndex = top.firstIndex(where: { $0.name == "PeerConnections" }),
              case .object(var connections) = top[connectionsIndex].value else {
            throw ReplayFileError(message: "read-bench: not a webrtc-internals dump")
        }
        for connectionIndex in connections.indices {
            guard case .object(var connection) = connections[connectionIndex].value,
                  let statsIndex = connection.firstIndex(where: { $0.name == "stats" }),
                  case .object(var stats) = connection[statsIndex].value else { continue }
            // Times move on by one whole span of the connection's polls (plus one poll) per round,
            // the same for every entry, so the entries' polls stay aligned.
            var earliest = Double.infinity, latest = -Double.infinity, count = 0
            for series in stats where series.name.hasSuffix("-timestamp") {
                guard let encoded = series.value["values"]?.string, case .array(let values) = try JSONParser.parse(encoded) else { continue }
                for time in values.compactMap(\.number) {
                    earliest = min(earliest, time)
                    latest = max(latest, time)
                }
                count = max(count, values.count)
            }
            let timeShift = latest > earliest ? (latest - earliest) * Double(count) / Double(max(count - 1, 1)) : 1000
            for seriesIndex in stats.indices {
                guard case .object(var attributes) = stats[seriesIndex].value,
                      let valuesIndex = attributes.firstIndex(where: { $0.name == "values" }),
                      let encoded = attributes[valuesIndex].value.string,
                      case .array(let values) = try JSONParser.parse(encoded), !values.isEmpty else { continue }
                let isTime = stats[seriesIndex].name.hasSuffix("-timestamp")
                let first = values.first?.number, last = values.last?.number
                let span = (first != nil && last != nil) ? last! - first! : 0
                var longer: [JSONValue] = []
                longer.reserveCapacity(values.count * times)
                for round in 0..<times {
                    for value in values {
                        if let number = value.number {
                            longer.append(.number(number + Double(round) * (isTime ? timeShift : span)))
                        } else {
                            longer.append(value)
                        }
                    }
                }
                attributes[valuesIndex].value = .string(JSONWriter.string(.array(longer)))
                stats[seriesIndex].value = .object(attributes)
            }
            connection[statsIndex].value = .object(stats)
            connections[connectionIndex].value = .object(connection)
        }
        top[connectionsIndex].value = .object(connections)
        return Array(JSONWriter.string(.object(top)).utf8)
    }
}
