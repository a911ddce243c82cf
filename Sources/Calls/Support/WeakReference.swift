/// A weakly held session delegate, storable in the session.
struct WeakSessionDelegate: Sendable {
    weak var object: (any CallSessionDelegate)?
    init(_ object: (any CallSessionDelegate)?) { self.object = object }
}

/// A weakly held subscriber delegate, storable in a `Locked`.
struct WeakSubscriberDelegate: Sendable {
    weak var object: (any CallSubscriberDelegate)?
    init(_ object: (any CallSubscriberDelegate)?) { self.object = object }
}
