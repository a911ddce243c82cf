import Foundation
import RTCStats

/// Builders for small, hand-checkable stats reports used across the test targets.
public enum Synthetic {
    /// An entry from literal fields (`Int`, `Double`, `String`, `Bool`).
    public static func entry(_ id: String, _ type: StatsType, at timestamp: Double, _ fields: [String: Any]) -> StatsEntry {
        StatsEntry(id: id, type: type, timestamp: timestamp,
                   fields: fields.sorted { $0.key < $1.key }.map { StatsField($0.key, JSONValue(any: $0.value)) })
    }

    /// A video `outbound-rtp` layer.
    public static func videoLayer(_ id: String, at time: Double, rid: String?, width: Int, height: Int, bytesSent: Double, headerBytesSent: Double? = nil, packetsSent: Double = 0, framesEncoded: Double = 0, framesPerSecond: Double? = nil, extra: [String: Any] = [:]) -> StatsEntry {
        var fields: [String: Any] = ["kind": "video", "ssrc": Double(id.utf8.reduce(0) { $0 &* 31 &+ Int($1) } & 0xFFFF), "bytesSent": bytesSent, "packetsSent": packetsSent,
                                     "frameWidth": width, "frameHeight": height, "framesEncoded": framesEncoded, "codecId": "COV"]
        if let rid { fields["rid"] = rid }
        if let headerBytesSent { fields["headerBytesSent"] = headerBytesSent }
        if let framesPerSecond { fields["framesPerSecond"] = framesPerSecond }
        fields.merge(extra) { $1 }
        return entry(id, .outboundRTP, at: time, fields)
    }

    /// The VP8 codec entry `COV` the layers point to.
    public static func vp8Codec(at time: Double) -> StatsEntry {
        entry("COV", .codec, at: time, ["mimeType": "video/VP8", "payloadType": 96, "clockRate": 90000])
    }

    /// A sample of `peer`/`pc` at `time` with `entries`.
    public static func sample(_ peer: String = "publisher", pc: String = "pc-1", at time: Double, _ entries: [StatsEntry]) -> StatsSample {
        StatsSample(time: time, peer: peer, peerConnection: pc, report: StatsReport(entries: entries))
    }

    /// Bytes of a fixture file next to the calling test file, in `Fixtures/`.
    public static func fixture(_ name: String, testFile: String = #filePath) throws -> [UInt8] {
        let url = URL(fileURLWithPath: testFile).deletingLastPathComponent().appendingPathComponent("Fixtures").appendingPathComponent(name)
        return [UInt8](try Data(contentsOf: url))
    }

    /// The repository root, found from a test file's path (`Tests/<Target>/<file>.swift`).
    public static func repositoryRoot(testFile: String = #filePath) -> URL {
        URL(fileURLWithPath: testFile).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
