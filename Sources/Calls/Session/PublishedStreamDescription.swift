import Foundation

/// A stream's properties as its publisher tells the router (Janus VideoRoom `descriptions`), so
/// every participant reads the same ones before subscribing (seed 004's `OTStream`): name, video
/// type, when it was published (the publisher's clock: Janus gives no time of its own), the
/// size it captures, and whether audio and video are on.
///
/// Encoded as a small JSON object marked `"callscope":1`. A description that is not one (another
/// client's free text, such as "My front webcam") is read as the stream's name, or as its video
/// type when it is exactly `camera`, `screen` or `custom`; it never fails.
struct PublishedStreamDescription: Hashable, Sendable {
    var name: String?
    var videoType: CallStreamVideoType?
    var creationTime: Date?
    var videoDimensions: CallVideoDimensions?
    var hasAudio: Bool?
    var hasVideo: Bool?

    /// The longest description read (Janus keeps what it is given; a hostile one is ignored).
    static let maximumLength = 4096

    init(name: String? = nil, videoType: CallStreamVideoType? = nil, creationTime: Date? = nil,
         videoDimensions: CallVideoDimensions? = nil, hasAudio: Bool? = nil, hasVideo: Bool? = nil) {
        self.name = name
        self.videoType = videoType
        self.creationTime = creationTime
        self.videoDimensions = videoDimensions
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
    }

    /// Our own stream's properties.
    init(stream: CallStream) {
        self.init(name: stream.name, videoType: stream.videoType, creationTime: stream.creationTime,
                  videoDimensions: stream.videoDimensions, hasAudio: stream.hasAudio, hasVideo: stream.hasVideo)
    }

    /// Reads a router's description; `nil` text reads as nothing known.
    init(decoding text: String?) {
        self.init()
        guard let text, !text.isEmpty, text.utf8.count <= Self.maximumLength else { return }
        guard let object = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any],
              (object["callscope"] as? NSNumber)?.intValue == 1 else {
            if let type = CallStreamVideoType(rawValue: text) { videoType = type } else { name = text }
            return
        }
        name = object["name"] as? String
        videoType = (object["videoType"] as? String).flatMap(CallStreamVideoType.init(rawValue:))
        if let milliseconds = (object["created"] as? NSNumber)?.doubleValue, milliseconds.isFinite, milliseconds > 0 {
            creationTime = Date(timeIntervalSince1970: milliseconds / 1000)
        }
        if let width = Self.dimension(object["width"]), let height = Self.dimension(object["height"]) {
            videoDimensions = CallVideoDimensions(width: width, height: height)
        }
        hasAudio = Self.flag(object["audio"])
        hasVideo = Self.flag(object["video"])
    }

    /// The JSON text for the router, keys sorted (the same properties give the same text).
    func encoded() -> String {
        var object: [String: Any] = ["callscope": 1]
        if let name { object["name"] = name }
        if let videoType { object["videoType"] = videoType.rawValue }
        if let creationTime { object["created"] = Int64((creationTime.timeIntervalSince1970 * 1000).rounded()) }
        if let videoDimensions {
            object["width"] = videoDimensions.width
            object["height"] = videoDimensions.height
        }
        if let hasAudio { object["audio"] = hasAudio }
        if let hasVideo { object["video"] = hasVideo }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    private static func dimension(_ value: Any?) -> Int? {
        guard let double = (value as? NSNumber)?.doubleValue else { return nil }
        guard double.isFinite, double == double.rounded(), double > 0, double <= 16_384 else { return nil }
        return Int(double)
    }

    private static func flag(_ value: Any?) -> Bool? {
        guard let number = value as? NSNumber else { return nil }
        return number.boolValue
    }
}
