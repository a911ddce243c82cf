/// The sender-stats messages a subscriber received from one publisher: the latest, and the
/// upstream loss each recent message reported (so a one-message spike is not missed between
/// two samples).
struct ReceivedSenderStats: Sendable {
    /// The latest accepted message and when it arrived (ms).
    private(set) var latest: (message: SenderStatsMessage, receivedAt: Double)?
    /// `(arrival ms, lossFraction)` of the messages of the last `window` ms.
    private(set) var recentLosses: [(receivedAt: Double, loss: Double)] = []
    private let window: Double

    /// Creates an empty inbox keeping `window` ms of loss history.
    init(window: Double = 10_000) {
        self.window = window
    }

    /// Records an accepted message.
    mutating func record(_ message: SenderStatsMessage, at time: Double) {
        latest = (message, time)
        if let loss = message.lossFraction { recentLosses.append((time, loss)) }
        recentLosses.removeAll { $0.receivedAt < time - window }
    }

    /// The mean upstream loss reported by the messages that arrived after `time`.
    func meanLoss(after time: Double) -> Double? {
        let losses = recentLosses.filter { $0.receivedAt > time }.map(\.loss)
        return losses.isEmpty ? nil : losses.reduce(0, +) / Double(losses.count)
    }

    /// The mean upstream loss of the last `count` messages.
    func recentMeanLoss(count: Int) -> Double? {
        let losses = recentLosses.suffix(count).map(\.loss)
        return losses.isEmpty ? nil : losses.reduce(0, +) / Double(losses.count)
    }
}
