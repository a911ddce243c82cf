extension NetworkDegradationSource {
    /// Whose network is at fault (docs/spec/observability.md §6). Degraded means `warning` or `critical`.
    ///
    /// - Parameters:
    ///   - local: this subscriber's downlink condition.
    ///   - remote: the remote publisher's uplink condition (`unknown` without sender stats).
    ///   - videoPoor: the received video is poor right now (freezes, frame-rate collapse, loss),
    ///     which matters only when the remote side is unknown.
    public static func classify(local: NetworkCondition, remote: NetworkCondition, videoPoor: Bool) -> NetworkDegradationSource {
        switch (local.isDegraded, remote.isDegraded) {
        case (true, true): return .bothOrUnclear
        case (true, false): return .local
        case (false, true): return .remote
        case (false, false): return remote == .unknown && videoPoor ? .unknown : .none
        }
    }
}
