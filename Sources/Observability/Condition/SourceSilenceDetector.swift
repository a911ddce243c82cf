import RTCStats

/// What the selected candidate pair says of the path while a stream is silent.
enum PathEvidence: Sendable, Hashable {
    /// Something still arrives over the path (bytes, or answers to our STUN checks, at a
    /// round-trip time that does not queue): the silence is the source's.
    case alive
    /// Our STUN checks go unanswered, or the pair left `succeeded`, and nothing arrives: the
    /// path itself is down.
    case dead
}

/// Whether a subscribed stream's publisher has stopped sending, as the subscriber can tell it
/// (docs/network-condition.md, "A publisher that stops sending").
///
/// A stream whose RTP stops altogether (no packet received, none counted lost) has either lost
/// its path or lost its source. The selected pair tells them apart: when our own downlink dies,
/// the pair's received bytes stand still and our STUN checks go unanswered (measured on the
/// rig's subscriber blackout: requests 16 → 70, responses stuck at 16, the pair `in-progress`
/// from +2 s); when the publisher vanishes, crashes or loses its uplink, the router still sends
/// RTCP (128 bytes a second on the rig) and answers every consent check at the usual round-trip
/// time. Two silent intervals in a row with the path alive make the source stopped (one silent
/// second can be a gap); the first interval with packets again ends it, and the loss that
/// interval counts (the stop's sequence gap, measured: 299 video packets after a 6 s uplink
/// blackout) is the stop's, not this downlink's. The kinds need not come back together: the
/// publisher's queued audio leads, and on the rig the video followed only in the next interval
/// in 3 of 38 uplink blackouts, its gap (179, 186, 213 packets) with it. So each kind that flowed
/// before the stop has its gap forgiven in the interval it first arrives again in
/// (``Reading/stopGapLost``).
///
/// The video alone silent while the audio keeps arriving is either the publisher stopping its
/// video (a track removed or stopped) or a link too narrow for it (a capped downlink drops the
/// big video packets and lets the small audio ones through: measured on a relayed call capped
/// at 64 kbit/s, not a video packet arrived for 5 s while the publisher sent 6-22 a second at
/// its 30 kbit/s floor). What the link shows in the silent interval tells them apart
/// (``VideoSilenceEvidence``): any sign of trouble makes the silence the link's,
/// ``videoStarved``, from the first such interval; a clean link makes it the publisher's,
/// ``videoStopped``, after the same two intervals.
struct SourceSilenceDetector: Sendable {
    /// What one report said.
    struct Reading: Sendable, Hashable {
        /// No packet of the stream arrived or was counted lost in the interval, after media had flowed.
        var silent: Bool
        /// What the pair said of the path in the interval (`nil`: nothing either way).
        var path: PathEvidence?
        /// Media arrived again after a stopped source: this interval's loss is the stop's gap.
        var resumedAfterStop: Bool
        /// Packets this interval counts lost that are a stop's sequence gap, not this downlink's
        /// loss: the lost of each kind arriving here for the first time since its publisher
        /// stopped it (the whole stream, or the video alone).
        var stopGapLost: Double = 0
    }

    /// Silent intervals with the path alive before the source counts as stopped.
    static let stoppedAfter = 2

    private var lastPair: (id: String, bytes: Double, responses: Double, requests: Double)?
    private var lastCounts: (audio: Double, video: Double)?
    private var lastLost: (audio: Double, video: Double)?
    private var hadMedia = false
    private var hadAudio = false
    private var hadVideo = false
    /// Kinds the publisher stopped that have not arrived since: the first interval each
    /// arrives in again counts its stop's gap as lost.
    private var awaitingReturn: Set<MediaKind> = []
    private var silentAliveRun = 0
    private var videoSilentRun = 0
    /// The publisher stopped sending altogether (see the type's documentation).
    private(set) var sourceStopped = false
    /// The publisher stopped its video while its audio keeps coming.
    private(set) var videoStopped = false
    /// The video alone is silent on a link that shows trouble (see ``VideoSilenceEvidence``):
    /// the link starves it. Lasts until the video arrives again (or is held).
    private(set) var videoStarved = false
    /// The video was starved when the SDK began to hold it: its gap, when it arrives again, is that starvation's.
    private var starvedGapAwaited = false

    /// Feeds one report: the stream's audio and video packets received plus lost, and of those
    /// lost (cumulative; `nil` for a kind it does not have), the selected pair, and whether its
    /// round-trip time is queueing. `videoHeld`: the SDK itself holds the video off (a pause,
    /// `subscribeToVideo` off), so missing video is not the publisher's doing.
    mutating func update(audioPackets: Double?, videoPackets: Double?, audioLost: Double? = nil, videoLost: Double? = nil,
                         selectedPair pair: StatsEntry?, roundTripQueued: Bool, videoHeld: Bool) -> Reading {
        let audio = audioPackets ?? 0, video = videoPackets ?? 0
        var audioArrived = false, videoArrived = false
        if let last = lastCounts {
            audioArrived = audio > last.audio
            videoArrived = video > last.video
        }
        let first = lastCounts == nil
        let audioBefore = lastCounts?.audio ?? audio
        lastCounts = (audio, video)
        let lost = (audio: audioLost ?? 0, video: videoLost ?? 0)
        let lostBefore = lastLost ?? lost
        lastLost = lost
        // A stopped kind's first packets again: the gap they close is the stop's.
        var stopGap = 0.0
        if videoHeld { awaitingReturn.remove(.video) }
        // Starved, then held by the SDK (its fallback acted on it): the packets the link dropped
        // meanwhile, counted when the video arrives again, are that starvation's, not new loss
        // (measured: the gap then held the downlink `critical` past the probe's `videoEnabled`,
        // and the policy fell back again).
        if videoStarved, videoHeld { starvedGapAwaited = true }
        if audioArrived, awaitingReturn.remove(.audio) != nil { stopGap += max(0, lost.audio - lostBefore.audio) }
        if videoArrived, awaitingReturn.remove(.video) != nil || starvedGapAwaited {
            stopGap += max(0, lost.video - lostBefore.video)
            starvedGapAwaited = false
        }
        // Held video and no audio: nothing is due, so nothing missing is silence.
        let due = audioPackets != nil || (videoPackets != nil && !videoHeld)
        let silent = !first && hadMedia && due && !audioArrived && !videoArrived
        if audioArrived || videoArrived { hadMedia = true }
        if audioArrived { hadAudio = true }
        if videoArrived { hadVideo = true }

        let path = evidence(pair, roundTripQueued: roundTripQueued)
        var resumed = false
        if silent {
            silentAliveRun = path == .dead ? 0 : (path == .alive || silentAliveRun > 0 ? silentAliveRun + 1 : 0)
            if path == .dead {
                // Our own path died: what returns after it is not the publisher's gap alone.
                sourceStopped = false
                awaitingReturn = []
            }
            if silentAliveRun >= Self.stoppedAfter {
                sourceStopped = true
                if hadAudio { awaitingReturn.insert(.audio) }
                if hadVideo, !videoHeld { awaitingReturn.insert(.video) }
            }
        } else if !first {
            resumed = sourceStopped
            silentAliveRun = 0
            sourceStopped = false
        }
        // The video alone: audio arrives (so the path works), video does not, and we do not hold it.
        if !first, audioArrived, !videoArrived, hadVideo, !videoHeld {
            videoSilentRun += 1
            let audioLoss = lost.audio - lostBefore.audio
            let audioExpected = audio - audioBefore
            let evidence = VideoSilenceEvidence(audioLossFraction: audioExpected > 0 ? max(0, audioLoss) / audioExpected : 0,
                                                roundTripQueued: roundTripQueued)
            // Decided once per silence: a stopped camera stays stopped on a link that degrades later.
            if !videoStopped, evidence.linkStarves { videoStarved = true }
            if videoStarved {
                videoStopped = false
            } else if videoSilentRun >= Self.stoppedAfter {
                videoStopped = true
                awaitingReturn.insert(.video)
            }
        } else if videoArrived || videoHeld || silent {
            videoSilentRun = 0
            videoStopped = false
            videoStarved = false
        }
        return Reading(silent: silent, path: path, resumedAfterStop: resumed, stopGapLost: stopGap)
    }

    /// The pair's evidence between this report and the one before (none when the pair changed).
    private mutating func evidence(_ pair: StatsEntry?, roundTripQueued: Bool) -> PathEvidence? {
        guard let pair else {
            lastPair = nil
            return nil
        }
        let now = (id: pair.id, bytes: pair.bytesReceived ?? 0, responses: pair.number("responsesReceived") ?? 0,
                   requests: pair.number("requestsSent") ?? 0)
        defer { lastPair = now }
        guard let last = lastPair, last.id == now.id else { return nil }
        let bytes = now.bytes > last.bytes, answered = now.responses > last.responses
        if (bytes || answered), !roundTripQueued, (pair.state ?? "succeeded") == "succeeded" { return .alive }
        if !bytes, !answered, now.requests > last.requests || (pair.state.map { $0 != "succeeded" } ?? false) { return .dead }
        return nil
    }
}
