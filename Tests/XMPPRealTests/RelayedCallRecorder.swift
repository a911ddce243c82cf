import Foundation

/// Everything one async sequence yielded, with when, for the checks of a real test.
final class RelayedCallRecorder<Element: Sendable>: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [Element] = []
    private var task: Task<Void, Never>?

    init(_ sequence: AsyncStream<Element>) {
        task = Task { [weak self] in
            for await element in sequence { self?.append(element) }
        }
    }

    deinit { task?.cancel() }

    private func append(_ element: Element) { lock.withLock { stored.append(element) } }

    var all: [Element] { lock.withLock { stored } }

    /// The first element matching `predicate`, waiting up to `timeout` for it.
    func wait(_ timeout: Duration, _ predicate: (Element) -> Bool) async -> Element? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let found = all.first(where: predicate) { return found }
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }
}
