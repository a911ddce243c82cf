import Calls
import Foundation
import RTCStats

/// One Janus session over the HTTP API: creates it, long-polls its events
/// (`GET /janus/<session>?maxev=N`) and keeps it alive with an explicit keepalive POST, since a
/// held long poll alone does not (measured: a session with `session_timeout` 20 s timed out at
/// 22.7 s while polled).
///
/// Replies to plugin requests are matched to their request by transaction, whether Janus
/// answers at once (`success`) or later on the poll (`ack`, then an `event`). Everything else
/// goes to the handle it names, in poll order (``JanusHandle/events``).
public actor JanusSession {
    /// Janus' id of the session.
    public nonisolated let id: UInt64
    /// The API's base URL, e.g. `http://127.0.0.1:8088/janus`.
    public nonisolated let url: URL

    private let transport: JanusTransport
    private let keepaliveInterval: Duration
    private var handles: [UInt64: AsyncStream<JanusEvent>.Continuation] = [:]
    private var waiters: [String: CheckedContinuation<JSONValue, any Error>] = [:]
    private var expected: Set<String> = []
    private var unclaimed: [String: JSONValue] = [:]
    private var nextTransaction = 0
    private var pollTask: Task<Void, Never>?
    private var keepaliveTask: Task<Void, Never>?
    private var lost: JanusError?
    /// Long polls that failed at the transport level and were retried.
    public private(set) var pollFailures = 0
    /// Long-poll messages that named no known handle or transaction (counted, not fatal).
    public private(set) var unroutedMessages = 0

    /// Creates a session on the Janus at `url` and starts its long poll and keepalive.
    /// - Parameter keepaliveInterval: below Janus' `session_timeout` (default 60 s); 25 s as
    ///   measured safe.
    public static func create(url: URL, keepaliveInterval: Duration = .seconds(25)) async throws(JanusError) -> JanusSession {
        let transport = JanusTransport(base: url)
        let reply = try await transport.post("", .object(["janus": .string("create"), "transaction": .string("create")]))
        try JanusSession.checkCore(reply)
        guard let id = reply["data"]?["id"]?.unsignedInteger else {
            transport.invalidate()
            throw JanusError(.malformedReply, "create: no data.id in \(JSONWriter.string(reply).prefix(200))")
        }
        let session = JanusSession(id: id, url: url, transport: transport, keepaliveInterval: keepaliveInterval)
        await session.startBackgroundWork()
        return session
    }

    private init(id: UInt64, url: URL, transport: JanusTransport, keepaliveInterval: Duration) {
        self.id = id
        self.url = url
        self.transport = transport
        self.keepaliveInterval = keepaliveInterval
    }

    /// Attaches a plugin handle (`janus.plugin.videoroom` by default).
    public func attach(plugin: String = "janus.plugin.videoroom", opaqueID: String? = nil) async throws(JanusError) -> JanusHandle {
        try checkAlive()
        var body: JSONValue = .object(["janus": .string("attach"), "plugin": .string(plugin), "transaction": .string(transaction())])
        if let opaqueID { body = body.setting("opaque_id", .string(opaqueID)) }
        let reply = try await transport.post("\(id)", body)
        try noteLoss(in: reply)
        try JanusSession.checkCore(reply)
        guard let handleID = reply["data"]?["id"]?.unsignedInteger else {
            throw JanusError(.malformedReply, "attach: no data.id")
        }
        let (events, continuation) = AsyncStream<JanusEvent>.makeStream()
        handles[handleID] = continuation
        return JanusHandle(session: self, id: handleID, events: events)
    }

    /// Destroys the session on Janus and stops polling; every handle's events finish.
    public func destroy() async {
        if lost == nil {
            _ = try? await transport.post("\(id)", .object(["janus": .string("destroy"), "transaction": .string(transaction())]), timeout: 3)
        }
        shutDown(JanusError(.sessionLost, "destroyed by us"))
    }

    // MARK: - Requests (used by JanusHandle)

    /// Sends a plugin message and returns the plugin's answer (`plugindata.data`) and its JSEP,
    /// whether it came synchronously or on the long poll. A plugin `error_code` throws.
    func message(handle: UInt64, body: JSONValue, jsep: SessionDescription?, timeout: Duration) async throws(JanusError) -> JanusReply {
        try await answer(to: try await post(handle: handle, body: body, jsep: jsep), timeout: timeout)
    }

    /// Sends a plugin message and returns as soon as Janus took it: its synchronous reply, or
    /// its `ack` (the answer then comes on the long poll). Janus hands a handle's messages to the
    /// plugin in the order they arrive.
    func post(handle: UInt64, body: JSONValue, jsep: SessionDescription?) async throws(JanusError) -> JanusPostedMessage {
        try checkAlive()
        let tx = transaction()
        var message: JSONValue = .object(["janus": .string("message"), "transaction": .string(tx), "body": body])
        if let jsep { message = message.setting("jsep", jsep.jsep) }
        expected.insert(tx)
        let reply: JSONValue
        do {
            reply = try await transport.post("\(id)/\(handle)", message)
            try noteLoss(in: reply)
            try JanusSession.checkCore(reply)
        } catch {
            expected.remove(tx)
            unclaimed[tx] = nil
            throw error
        }
        if reply["janus"]?.string == "ack" { return .acknowledged(transaction: tx) }
        expected.remove(tx)
        return .answered(reply)
    }

    /// The plugin's answer to a message ``post(handle:body:jsep:)`` sent: at once when it came
    /// with the reply, else from the long poll within `timeout`. A plugin `error_code` throws.
    func answer(to posted: JanusPostedMessage, timeout: Duration) async throws(JanusError) -> JanusReply {
        let answer: JSONValue
        switch posted {
        case .answered(let reply): answer = reply
        case .acknowledged(let tx): answer = try await awaitTransaction(tx, timeout: timeout)
        }
        let result = JanusReply(data: answer["plugindata"]?["data"] ?? .null,
                                jsep: answer["jsep"].flatMap(SessionDescription.init(jsep:)))
        if let code = result.data["error_code"]?.number {
            throw JanusError(.plugin, routerCode: Int(code), result.data["error"]?.string ?? "plugin error \(Int(code))")
        }
        return result
    }

    /// Trickles one local candidate (`nil`: gathering completed).
    func trickle(handle: UInt64, candidate: IceCandidate?) async throws(JanusError) {
        try checkAlive()
        let payload: JSONValue
        if let candidate {
            var fields = [StatsField("candidate", .string(candidate.candidate))]
            if let mid = candidate.sdpMid { fields.append(StatsField("sdpMid", .string(mid))) }
            if let index = candidate.sdpMLineIndex { fields.append(StatsField("sdpMLineIndex", .integer(index))) }
            payload = .object(fields)
        } else {
            payload = .object(["completed": .bool(true)])
        }
        let reply = try await transport.post("\(id)/\(handle)", .object(["janus": .string("trickle"), "transaction": .string(transaction()), "candidate": payload]))
        try noteLoss(in: reply)
        try JanusSession.checkCore(reply)
    }

    /// Detaches a handle; its events finish.
    func detach(handle: UInt64) async {
        if lost == nil {
            _ = try? await transport.post("\(id)/\(handle)", .object(["janus": .string("detach"), "transaction": .string(transaction())]), timeout: 3)
        }
        handles.removeValue(forKey: handle)?.finish()
    }

    // MARK: - Long poll and keepalive

    private func startBackgroundWork() {
        pollTask = Task { [weak self] in
            while let self, await self.pollOnce() {}
        }
        let interval = keepaliveInterval
        keepaliveTask = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let self, await self.keepalive() else { return }
            }
        }
    }

    /// One long poll; `false` when the session is over.
    private func pollOnce() async -> Bool {
        guard lost == nil, !Task.isCancelled else { return false }
        do {
            let reply = try await transport.get("\(id)?maxev=10", timeout: 45)
            for message in reply.array ?? [reply] { route(message) }
        } catch where error.code == .sessionLost {
            shutDown(error)
            return false
        } catch {
            guard lost == nil else { return false }
            pollFailures += 1
            try? await Task.sleep(for: .milliseconds(min(250 * pollFailures, 3000)))
        }
        return lost == nil
    }

    private func keepalive() async -> Bool {
        guard lost == nil else { return false }
        do {
            let reply = try await transport.post("\(id)", .object(["janus": .string("keepalive"), "transaction": .string(transaction())]), timeout: 5)
            try noteLoss(in: reply)
        } catch where error.code == .sessionLost {
            shutDown(error)
            return false
        } catch {
            // A keepalive lost in transit is retried at the next interval.
        }
        return lost == nil
    }

    private func route(_ message: JSONValue) {
        let kind = message["janus"]?.string
        if kind == "keepalive" || kind == "ack" { return }
        if kind == "error", message["error"]?["code"]?.number == 458 {
            shutDown(JanusError(.sessionLost, routerCode: 458, message["error"]?["reason"]?.string ?? "no such session"))
            return
        }
        if let tx = message["transaction"]?.string, expected.contains(tx), kind == "event" || kind == "success" || kind == "error" {
            expected.remove(tx)
            if let waiter = waiters.removeValue(forKey: tx) {
                if kind == "error" {
                    waiter.resume(throwing: JanusError(.core, routerCode: message["error"]?["code"]?.number.map { Int($0) },
                                                       message["error"]?["reason"]?.string ?? "error"))
                } else {
                    waiter.resume(returning: message)
                }
            } else {
                unclaimed[tx] = message
            }
            return
        }
        guard let sender = message["sender"]?.unsignedInteger, let handle = handles[sender] else {
            unroutedMessages += 1
            return
        }
        handle.yield(JanusEvent(message: message))
        if kind == "detached" { handles.removeValue(forKey: sender)?.finish() }
    }

    private func awaitTransaction(_ tx: String, timeout: Duration) async throws(JanusError) -> JSONValue {
        if let early = unclaimed.removeValue(forKey: tx) { return early }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.expire(tx, after: timeout)
        }
        defer { timer.cancel() }
        do {
            return try await withCheckedThrowingContinuation { continuation in
                if let lost {
                    continuation.resume(throwing: lost)
                } else {
                    waiters[tx] = continuation
                }
            }
        } catch let error as JanusError {
            throw error
        } catch {
            throw JanusError(.transport, "\(error)")
        }
    }

    private func expire(_ tx: String, after timeout: Duration) {
        expected.remove(tx)
        waiters.removeValue(forKey: tx)?.resume(throwing: JanusError(.timeout, "no answer to transaction \(tx) within \(timeout)"))
    }

    // MARK: - Helpers

    private func transaction() -> String {
        nextTransaction += 1
        return "cs-\(nextTransaction)"
    }

    private func checkAlive() throws(JanusError) {
        if let lost { throw lost }
    }

    /// Error 458 on any reply means the session is gone.
    private func noteLoss(in reply: JSONValue) throws(JanusError) {
        if reply["janus"]?.string == "error", reply["error"]?["code"]?.number == 458 {
            let error = JanusError(.sessionLost, routerCode: 458, reply["error"]?["reason"]?.string ?? "no such session")
            shutDown(error)
            throw error
        }
    }

    private static func checkCore(_ reply: JSONValue) throws(JanusError) {
        guard reply["janus"]?.string == "error" else { return }
        let code = reply["error"]?["code"]?.number.map { Int($0) }
        throw JanusError(.core, routerCode: code, reply["error"]?["reason"]?.string ?? "error")
    }

    private func shutDown(_ error: JanusError) {
        guard lost == nil else { return }
        lost = error
        pollTask?.cancel()
        keepaliveTask?.cancel()
        for (_, waiter) in waiters { waiter.resume(throwing: error) }
        waiters.removeAll()
        for (_, handle) in handles {
            handle.yield(.sessionLost(error))
            handle.finish()
        }
        handles.removeAll()
        transport.invalidate()
    }
}

/// A plugin's answer to one request.
public struct JanusReply: Sendable, Hashable {
    /// `plugindata.data`.
    public var data: JSONValue
    /// The JSEP that came with it (e.g. the subscriber offer after `join`).
    public var jsep: SessionDescription?
}

/// A plugin message Janus took: answered with the reply, or acknowledged with the answer to
/// come on the long poll.
enum JanusPostedMessage: Sendable, Hashable {
    case answered(JSONValue)
    case acknowledged(transaction: String)
}
