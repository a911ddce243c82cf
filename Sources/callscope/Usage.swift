/// The command line's help text.
enum Usage {
    static let text = """
    callscope — see what a video SDK would have reported for a call.

    USAGE
      callscope replay [FILE...] [--format text|ndjson] [--sender-stats auto|off] [--push URL] [--otlp URL]
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
          --push URL        after each file, PUT its final metrics (Prometheus text) to the
                            Pushgateway at URL, grouped by job="callscope" and call=<file name>
          --otlp URL        after each file, POST its final metrics as OTLP/HTTP JSON to the
                            collector at URL (/v1/metrics appended unless given)

      callscope evaluate [RECORDING...] [--json]
          Scores the engine on labelled recordings (NAME.ndjson.gz + NAME.labels.json; default:
          every labelled recording in Recordings/): per scenario and peer, the share of labelled
          seconds whose degradation source and reason match, the detection delay after each
          impairment onset, and condition events per minute under steady impairment.

      callscope report FILE... [-o report.html]
          One self-contained HTML page per call (no network needed; opens from a mail
          attachment): per-second charts of bitrate per layer and stream (with and without RTP
          overhead), estimated bandwidth, loss, RTT and jitter, frame rate and size; network
          condition per side, degradation source, freezes, pauses and quality events; a summary
          table on top. -o names the output of a single FILE; by default FILE's name + .html,
          in the current directory.

      callscope analyze DIR|FILE... [--json|--csv] [--jobs N]
          Replays many captures at once on all cores (a progress bar when stderr is a terminal):
          one row per call and video stream (duration, mean and 5th-percentile bitrate, loss,
          freezes, seconds per network condition, dominant degradation source) and a total.
          A file that cannot be read is reported and skipped. Directories are searched for
          .ndjson, .json, .rtcstats, .jsonl and .txt files (optionally .gz).

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

      callscope help
          This text.
    """
}

/// A mistake in how the command was called.
struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
