import Observability

/// One media connection's lifecycle in a session: its ``MediaConnectionMachine``, the timers
/// the machine arms, and its role, which performs the rest of the machine's actions. Inputs are
/// fed one at a time and their actions performed in order; once closed, the controller
/// takes no input and performs nothing (a stale input after an `await` needs no re-check).
///
/// It is the session's: every method runs on the session's executor (`isolated`), so its
/// state needs no lock. Its timers hold it weakly.
final class MediaConnectionController {
    private(set) var machine: MediaConnectionMachine
    /// Its timers and requested restarts, cancelled by ``close()``.
    var timers: [Task<Void, Never>] = []
    private(set) var isClosed = false
    /// The subscription or publication this connection belongs to.
    weak var role: (any MediaConnectionRole)?
    /// The other side's candidates the engine did not take yet (its description was not set,
    /// or not the one of their ICE generation), tried again when a negotiation ends.
    var heldRemoteCandidates: [IceCandidate?] = []
    /// The other side's candidates dropped: the engine refused them after a negotiation too, or
    /// none of ours was open.
    var droppedRemoteCandidates = 0

    init(settings: MediaConnectionMachine.Settings) {
        machine = MediaConnectionMachine(settings: settings)
    }

    /// The peer connection in use, once started.
    var peerConnection: PeerConnectionID? { machine.peerConnection }
    /// The router handle in use, once started.
    var handle: RouterHandleID? { machine.handle }

    /// Feeds the machine and performs its actions, in order.
    func feed(_ input: MediaConnectionMachine.Input, in session: isolated CallSession) async {
        guard !isClosed else { return }
        let actions = machine.receive(input, now: session.timer.elapsed)
        for action in actions {
            guard !isClosed, let role else { return }
            switch action {
            case .emit(let kind):
                role.emit(kind, in: session)
            case .restartIce(let handle):
                await role.restartIce(on: handle, in: session)
            case .replacePeerConnection(let peerConnection, let handle):
                await role.replace(peerConnection, handle: handle, in: session)
            case .armTimer(let id, let deadline):
                arm(id, at: deadline, in: session)
            case .destroyStream:
                role.destroyStream(in: session)
            case .tearDown(let peerConnection, let handle):
                await role.tearDown(peerConnection, handle: handle, in: session)
            }
        }
        switch input {
        case .answerSent: await addHeldRemoteCandidates(in: session)
        case .peerConnectionStarted: dropHeldRemoteCandidates()   // the old connection's
        default: break
        }
    }

    /// Stops its timers and takes no more input.
    func close() {
        isClosed = true
        for task in timers { task.cancel() }
        timers.removeAll()
    }

    private func arm(_ id: MediaConnectionMachine.TimerID, at deadline: Duration, in session: isolated CallSession) {
        // On the session's executor (it captures the isolated `session`), which it keeps until
        // the deadline or `close()`.
        timers.append(Task { [weak self] in
            do { try await session.timer.sleep(untilElapsed: deadline) } catch { return }
            await self?.feed(.timerFired(id), in: session)
        })
    }
}
