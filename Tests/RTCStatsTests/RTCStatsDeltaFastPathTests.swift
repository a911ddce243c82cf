import CallScopeTestSupport
import Foundation
import RTCStats
import Testing

/// The rtcstats reader's fast path (getstats lines read straight into the running state,
/// entries only re-stamped sharing their fields, the id index kept while no entry is added)
/// against an independent merge with Foundation, and against the general path on the same
/// deltas.
@Suite struct RTCStatsDeltaFastPathTests {
    /// Every entry of every report, as an independent merge of the dump's JSON (Foundation)
    /// says it must be: id → (timestamp, type, scalar fields).
    private func independentReports(_ bytes: [UInt8]) throws -> [[String: (timestamp: Double, type: String?, fields: [String: JSONValue])]] {
        var state: [String: [String: [String: Any]]] = [:]
        var result: [[String: (timestamp: Double, type: String?, fields: [String: JSONValue])]] = []
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            guard let array = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [Any], array.count >= 4,
                  let name = array[0] as? String, name == "getstats" || name == "getStats", let pc = array[1] as? String,
                  let delta = array[2] as? [String: Any], let lineTime = (array.last as? NSNumber)?.doubleValue else { continue }
            let reportTime = (delta["timestamp"] as? NSNumber)?.doubleValue ?? lineTime
            var running = state[pc] ?? [:]
            for (key, value) in delta {
                guard var fields = value as? [String: Any] else { continue }
                if fields["timestamp"] == nil, running[key] == nil { fields["timestamp"] = reportTime }
                if let stamp = (fields["timestamp"] as? NSNumber)?.doubleValue, stamp == 0 { fields["timestamp"] = reportTime }
                fields["id"] = nil  // an entry keeps the id it was created with
                running[key, default: ["id": (value as? [String: Any])?["id"] as? String ?? key]].merge(fields) { $1 }
            }
            state[pc] = running
            var report: [String: (timestamp: Double, type: String?, fields: [String: JSONValue])] = [:]
            for (_, fields) in running {
                var scalars: [String: JSONValue] = [:]
                for (name, value) in fields where !["id", "type", "timestamp"].contains(name) {
                    if let number = value as? NSNumber { scalars[name] = .number(number.doubleValue) }  // Booleans as 1 / 0
                    if let text = value as? String { scalars[name] = .string(text) }
                }
                report[pc + "/" + (fields["id"] as! String)] = ((fields["timestamp"] as! NSNumber).doubleValue, fields["type"] as? String, scalars)
            }
            result.append(report)
        }
        return result
    }

    @Test(arguments: ["chrome-relay.rtcstats", "firefox97-standard-stats-sfu.rtcstats", "safari-relay.rtcstats", "chrome-standard-pc-reconnect.rtcstats"])
    func everyEntryOfEveryReportMatchesAnIndependentMerge(name: String) throws {
        let bytes = try Synthetic.fixture(name)
        let expected = try independentReports(bytes)
        let timeline = try StatsTimeline.read(bytes)
        #expect(timeline.problems.isEmpty)
        let samples = timeline.samples
        #expect(samples.count == expected.count)
        for (sample, report) in zip(samples, expected) {
            #expect(sample.report.count == report.count)
            for entry in sample.report.entries {
                guard let want = report[sample.peerConnection + "/" + entry.id] else {
                    Issue.record("\(name): \(entry.id) is not in the independent merge")
                    continue
                }
                #expect(abs(entry.timestamp - want.timestamp) <= 1e-14 * want.timestamp, "\(name) \(entry.id) at \(sample.time)")
                if let type = want.type { #expect(entry.type.rawValue == type) }
                for (field, value) in want.fields {
                    var ours = entry[field]
                    if case .bool(let flag)? = ours { ours = .number(flag ? 1 : 0) }
                    // Foundation's JSON numbers on Linux are not always correctly rounded
                    // (0.00009999999999999999 reads as 0.0001); the parser's rounding has its
                    // own tests against strtod. Here: the same value within a few ulps.
                    if case .number(let mine)? = ours, case .number(let theirs) = value {
                        #expect(abs(mine - theirs) <= 1e-14 * max(abs(mine), abs(theirs)), "\(name) \(entry.id).\(field) at \(sample.time)")
                    } else {
                        #expect(ours == value, "\(name) \(entry.id).\(field) at \(sample.time)")
                    }
                }
                #expect(sample.report[entry.id]?.timestamp == entry.timestamp, "the report finds every entry by id")
            }
        }
    }

    /// The same deltas, once as fast-path lines and once in shapes only the general path takes
    /// (a fifth element, an escaped key): the same reports.
    @Test func theGeneralPathAndTheFastPathReadTheSameDeltasAlike() throws {
        let fast = """
        ["getstats","PC_0",{"OT1":{"type":"outbound-rtp","timestamp":0,"kind":"video","bytesSent":100,"packetsSent":1},"CP":{"type":"candidate-pair","timestamp":500,"bytesSent":7},"timestamp":1000},1003]
        ["getstats","PC_0",{"OT1":{"timestamp":0},"CP":{"timestamp":0,"bytesSent":9},"timestamp":2000},2004]
        ["getstats","PC_0",{"OT1":{"timestamp":0,"type":"inbound-rtp","bytesSent":300},"NEW":{"type":"codec","timestamp":0}},3004]
        ["getstats","PC_0",{"OT1":{"timestamp":0,"bytesSent":400}},4004]
        """
        let general = """
        ["getstats","PC_0",{"OT1":{"type":"outbound-rtp","timestamp":0,"kind":"video","bytesSent":100,"packetsSent":1},"CP":{"type":"candidate-pair","timestamp":500,"bytesSent":7},"timestamp":1000},"x",1003]
        ["getstats","PC_0",{"OT1":{"timestamp":0},"CP":{"timestamp":0,"b\\u0079tesSent":9},"timestamp":2000},"x",2004]
        ["getstats","PC_0",{"OT1":{"timestamp":0,"type":"inbound-rtp","bytesSent":300},"NEW":{"type":"codec","timestamp":0}},"x",3004]
        ["getstats","PC_0",{"OT1":{"timestamp":0,"bytesSent":400}},"x",4004]
        """
        let fastTimeline = try StatsTimeline.read(Array(fast.utf8))
        let generalTimeline = try StatsTimeline.read(Array(general.utf8))
        #expect(fastTimeline.samples == generalTimeline.samples)
        let samples = fastTimeline.samples
        #expect(samples.count == 4)
        // Hand-worked: a re-stamp alone keeps the fields; 0 means the report's time.
        #expect(samples[1].report["OT1"]?.timestamp == 2000)
        #expect(samples[1].report["OT1"]?.bytesSent == 100)
        #expect(samples[1].report["CP"]?.bytesSent == 9)
        #expect(samples[2].report["OT1"]?.type == .inboundRTP, "a re-typed entry takes its new type")
        #expect(samples[2].report["OT1"]?.timestamp == 3004)
        #expect(samples[2].report["NEW"]?.type == .codec, "an entry added later is found by id")
        #expect(samples[3].report["NEW"]?.timestamp == 3004)
        #expect(samples[3].report["OT1"]?.bytesSent == 400)
        #expect(samples[3].report["CP"]?.timestamp == 2000)
        #expect(samples[3].report.count == 3)
    }

    /// A damaged getstats line is reported with the general parser's message and changes
    /// nothing; the next line merges as if it had not been there.
    @Test func aDamagedDeltaLineIsReportedAndChangesNothing() throws {
        let text = """
        ["getstats","PC_0",{"OT1":{"type":"outbound-rtp","timestamp":0,"bytesSent":100}},1000]
        ["getstats","PC_0",{"OT1":{"timestamp":0,"bytesSent":200},"OT2":{"type":"outbound-rtp","timestamp":0,"bytesSent":5}
        ["getstats","PC_0",{"OT1":{"timestamp":0,"bytesSent":300}},3000]
        ["getstats","PC_0",{"OT1":{"timestamp
        ["getstats","PC_0",{"OT1":{"timestamp":0,"bytesSent":400},"OT3":{"bytesSent":1}},5000,]
        """
        let timeline = try StatsTimeline.read(Array(text.utf8))
        #expect(timeline.samples.count == 2)
        #expect(timeline.problems.map(\.line) == [2, 4, 5])
        #expect(timeline.problems.map(\.code) == [.truncated, .truncated, .invalidJSON])
        #expect(timeline.samples[1].report["OT1"]?.bytesSent == 300)
        #expect(timeline.samples[1].report["OT2"] == nil)
    }
}
