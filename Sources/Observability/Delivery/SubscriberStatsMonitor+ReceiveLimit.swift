extension SubscriberStatsMonitor {
    /// Tells the monitor why the subscriber receives less than its preferences ask for (the
    /// SDK's layer policy calls it whenever its decision changes). Stub on this branch: the
    /// attribution branch defines what the engine does with it.
    public func setReceiveLimit(_ limit: SubscriberReceiveLimit) {}
}
