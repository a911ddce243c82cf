extension AsyncStream where Element: Sendable {
    /// The first `count` elements, or fewer when `timeout` passes first: a test that waits on a
    /// stream then fails on the count instead of hanging.
    public func first(_ count: Int, timeout: Duration = .seconds(5)) async -> [Element] {
        await withTaskGroup(of: [Element]?.self) { group in
            group.addTask {
                var collected: [Element] = []
                for await element in self {
                    collected.append(element)
                    if collected.count == count { break }
                }
                return collected
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
    }
}
