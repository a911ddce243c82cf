/// The command line's help text.
enum Usage {
    static let text = """
    callscope — see what a video SDK would have reported for a call.

    USAGE
      callscope replay [FILE...] [--format text|ndjson] [--sender-stats auto|off]
          Replays recorded calls through the CallScope engine. FILE may be a CallScope
          recording (.ndjson or .ndjson.gz), a Chrome webrtc-internals dump, an rtcstats dump
          (Chrome, Firefox, Safari) or a single getStats() JSON report; the format is detected
          from the content. With no FILE, replays the real call shipped in Recordings/.
          --format text     per-second stats a person can read, then a summary per stream (default)
          --format ndjson   one JSON line per callback:
                            {"t":ms,"peer":..,"pc":..,"stream":..,"callback":..,"data":{..}}
          --sender-stats auto  when a recording holds a publisher and a subscriber but no
                               sender-stats lines, derive the messages the publisher's SDK would
                               have sent (one interval late, same encoder and decoder) (default)
          --sender-stats off   replay without sender stats

      callscope evaluate [RECORDING...] [--json]
          Scores the engine on labelled recordings (NAME.ndjson.gz + NAME.labels.json; default:
          every labelled recording in Recordings/): per scenario and peer, the share of labelled
          seconds whose degradation source and reason match, the detection delay after each
          impairment onset, and condition events per minute under steady impairment.

      callscope bench [--json] [--seconds S]
          Microseconds per report for parsing and for the engine, on realistic reports of about
          20, 100 and 300 entries and on a recording replay, beside the JSONSerialization floor
          measured in the same run.

      callscope frames convert IN.y4m[.gz] --to bgra|nv12 [--matrix bt601|bt709] [--range limited|full] -o OUT
          Converts every frame of a YUV4MPEG2 (4:2:0) clip and writes the frames back to back,
          without padding. --matrix defaults to bt601; --range to the clip's XCOLORRANGE, else
          limited. Frames before a truncation are written, then the truncation is reported.

      callscope frames bench [--json] [--seconds S]
          ms per frame of I420 → BGRA and NV12 → BGRA at 720p and 1080p: ours on one thread
          and on all cores, libyuv (when installed) and a memcpy of the output, in one run,
          with cached ("hot") and streaming frames; libyuv also restricted to its 128-bit code,
          the vector width our kernels are compiled for.

      callscope call --janus URL [--room N] [--publish] [--subscribe all|none] [--duration S]
                     [--format text|ndjson] [--display NAME] [--chromedriver PATH] [--chromium PATH]
          Joins a Janus VideoRoom (default room 1234) as a live client, with a headless Chromium
          (started through chromedriver; Debian paths by default) as the media engine, and prints
          what the SDK reports: session.didConnect, session.streamCreated/streamDestroyed,
          session.connectionCreated/connectionDestroyed, subscriber.didConnect/didDisconnect/
          didReconnect, and the stats callbacks of `replay`, one line each (`t` in unix ms).
          --publish publishes the fake camera (3-layer VP8 simulcast) and microphone;
          --subscribe all (default) subscribes to every other stream; --duration defaults to 30.

      callscope help
          This text.
    """
}

/// A mistake in how the command was called.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
