/// The sender-stats messages a subscriber received from one publisher: the latest, and the
/// upstream loss each recent message reported (so a one-message spike is not missed between
/// two samples).
struct ReceivedSenderStats: Sendable {
    /// The messages of the last `window` ms (the latest always among them), in the order they arrived.
    private var recent: [(message: SenderStatsMessage, receivedAt: Double)] = []
    private let window: Double

    /// Creates an empty inbox keeping `window` ms of history.
    init(window: Double = 10_000) {
        self.window = window
    }

    /// The latest accepted message and when it arrived (ms).
    var latest: (message: SenderStatsMessage, receivedAt: Double)? { recent.last }

    /// Records an accepted message.
    mutating func record(_ message: SenderStatsMessage, at time: Double) {
        recent.append((message, time))
        recent.removeAll { $0.receivedAt < time - window }
    }

    /// The inbox as it stood at `time`: only the messages that had arrived by then.
    ///
    /// A sample is judged with what had arrived by its report's time, not by the moment it
    /// reached the engine, so a message that came in between (the report was taken, then the
    /// message arrived, then the report was fed) counts from the next sample on. A replay,
    /// which feeds a recording's lines in time order, then sees each sample exactly as the
    /// live call did. A message older than the window is forgotten here.
    func arrived(by time: Double) -> ReceivedSenderStats {
        guard let latest, latest.receivedAt > time else { return self }
        var earlier = ReceivedSenderStats(window: window)
        for entry in recent where entry.receivedAt <= time { earlier.record(entry.message, at: entry.receivedAt) }
        return earlier
    }

    /// The mean upstream loss reported by the messages that arrived after `time`.
    func meanLoss(after time: Double) -> Double? {
        let losses = recent.filter { $0.receivedAt > time }.compactMap(\.message.lossFraction)
        return losses.isEmpty ? nil : losses.reduce(0, +) / Double(losses.count)
    }

    /// The mean upstream loss of the last `count` messages that reported one.
    func recentMeanLoss(count: Int) -> Double? {
        let losses = recent.compactMap(\.message.lossFraction).suffix(count)
        return losses.isEmpty ? nil : losses.reduce(0, +) / Double(losses.count)
    }
}
