/// Which side of a two-party call this device is: the one that proposes it (XEP-0353
/// `propose`) or the one that takes it (`proceed`).
public enum JingleCallRole: String, Hashable, Sendable {
    /// Proposes the call to the friend's devices and waits for one to proceed.
    case caller
    /// Waits for the friend's proposal and proceeds.
    case callee
}
