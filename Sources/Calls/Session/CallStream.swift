import Foundation

/// A participant in the session (ours or another's), the `connection` of docs/spec/sessions.md §1.
public struct CallConnection: Hashable, Sendable {
    /// The connection's id (Janus: the participant id).
    public var connectionId: String
    /// When we learned of it (injected wall clock).
    public var creationTime: Date
    /// The display name it joined with.
    public var data: String?

    /// Creates a connection.
    public init(connectionId: String, creationTime: Date, data: String?) {
        self.connectionId = connectionId
        self.creationTime = creationTime
        self.data = data
    }
}

/// What a stream's video comes from.
public enum CallStreamVideoType: String, Hashable, Sendable {
    /// A camera.
    case camera
    /// A screen share.
    case screen
    /// An app-provided source.
    case custom
}

/// Width and height of a stream's video.
public struct CallVideoDimensions: Hashable, Sendable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int

    /// Creates dimensions.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// A published stream in the session (docs/spec/sessions.md §1).
///
/// A stream is "mine" when `stream.connection.connectionId == session.connection?.connectionId`.
/// With Janus VideoRoom a participant publishes one feed, so the stream id is the feed id.
///
/// Equality and hashing leave out ``videoDimensions``: a stream whose decoded size changed is
/// still the same stream (as a dictionary key, in a set, in `didReconnect(stream)`).
public struct CallStream: Hashable, Sendable, Identifiable {
    /// The stream's unique id (Janus: the feed id).
    public var streamId: String
    /// The connection publishing it.
    public var connection: CallConnection
    /// When it was published: its publisher's time where it says it through the router (a
    /// CallScope publisher does; Janus keeps no time of its own), else when we first saw it
    /// (injected wall clock).
    public var creationTime: Date
    /// Whether it carries audio.
    public var hasAudio: Bool
    /// Whether it carries video.
    public var hasVideo: Bool
    /// The publisher's name for it (``CallPublisherSettings/name``, carried in the router's
    /// description of its media), else the display name it joined with.
    public var name: String?
    /// Camera, screen or custom (carried in the router's description of its media; camera when
    /// absent).
    public var videoType: CallStreamVideoType
    /// The video's size: the size its publisher captures, where it says so through the router
    /// (a CallScope publisher does, so it is known before subscribing), then the size we
    /// decode once subscribed; `nil` when neither is known.
    public var videoDimensions: CallVideoDimensions?

    /// The stream id.
    public var id: String { streamId }

    /// Creates a stream.
    public init(streamId: String, connection: CallConnection, creationTime: Date, hasAudio: Bool, hasVideo: Bool,
                name: String?, videoType: CallStreamVideoType, videoDimensions: CallVideoDimensions? = nil) {
        self.streamId = streamId
        self.connection = connection
        self.creationTime = creationTime
        self.hasAudio = hasAudio
        self.hasVideo = hasVideo
        self.name = name
        self.videoType = videoType
        self.videoDimensions = videoDimensions
    }
}

extension CallStream {
    /// Equal when everything but ``videoDimensions`` is.
    public static func == (lhs: CallStream, rhs: CallStream) -> Bool {
        lhs.streamId == rhs.streamId && lhs.connection == rhs.connection && lhs.creationTime == rhs.creationTime
            && lhs.hasAudio == rhs.hasAudio && lhs.hasVideo == rhs.hasVideo && lhs.name == rhs.name && lhs.videoType == rhs.videoType
    }

    /// Hashes everything but ``videoDimensions``.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(streamId)
        hasher.combine(connection)
        hasher.combine(creationTime)
        hasher.combine(hasAudio)
        hasher.combine(hasVideo)
        hasher.combine(name)
        hasher.combine(videoType)
    }
}
