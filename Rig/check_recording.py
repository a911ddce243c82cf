#!/usr/bin/env python3
"""Sanity-check and summarise a webrtc-stats-recording (.ndjson or .ndjson.gz).

    python3 Rig/check_recording.py Recordings/baseline-simulcast.ndjson.gz [--per-second]

Exit 0 when: the header is right; every peer has samples; every publisher (header `publishers`,
default `publisher`) has three video outbound-rtp entries with rid whose bytesSent grows and no
layer limited by `cpu` in the clean part (labels' clean_from to the first impairment; without
labels the whole call); the subscriber has one video inbound-rtp per publisher (mapped through the
`subscriber-streams` events) whose framesDecoded grows, every second of the clean part; the
sender-stats of every publisher arrive (when the messages name their publisher). Prints
per-layer bitrates, resolutions, fps and limitation reasons.
"""
import json
import sys
from collections import Counter, defaultdict

from callscope_rig import recording


def load_labels(path):
    try:
        with open(recording.labels_path(path)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def clean_window(header, labels):
    """(from, to) in s from t0 of the clean part: the labels' clean_from to the first impairment
    (without labels: the whole recording)."""
    end = header.get("seconds") or 1e9
    if not labels:
        return 0.0, end
    imps = labels.get("impairments") or []
    return labels.get("clean_from_ms", 0) / 1000, (min(i["start_ms"] for i in imps) / 1000 if imps else end)


def check_publisher(name, pub, header, clean, per_second, problems):
    """Three simulcast layers whose bytesSent grows; no CPU-limited layer in the clean part."""
    first, last, t_first, t_last = {}, {}, {}, {}
    fields = set()
    rows = []
    prev = {}
    cpu_seconds = set()
    for s in pub:
        sec = (s['t'] - header.get('t0', s['t'])) / 1000
        row = [f"{sec:6.1f}s"]
        for e in s["report"]:
            if e["type"] == "outbound-rtp" and e.get("kind") == "video":
                rid = e.get("rid")
                fields.update(e.keys())
                first.setdefault(rid, e)
                t_first.setdefault(rid, e["timestamp"])
                last[rid], t_last[rid] = e, e["timestamp"]
                pb = prev.get(rid)
                kbps = (e["bytesSent"] - pb["bytesSent"]) * 8 / (e["timestamp"] - pb["timestamp"]) if pb else 0
                prev[rid] = e
                if e.get("qualityLimitationReason") == "cpu" and clean[0] <= sec < clean[1]:
                    cpu_seconds.add(round(sec))
                row.append(f"{rid}:{e.get('frameWidth')}x{e.get('frameHeight')}@{e.get('framesPerSecond')} "
                           f"{kbps:5.0f}kbps {e.get('qualityLimitationReason')}")
        rows.append(" ".join(row))
    rids = sorted(k for k in last if k)
    print(f"{name} video rids: {rids}")
    if len(rids) != 3:
        problems.append(f"{name}: expected 3 rids, got {rids}")
    for rid in rids:
        a, b = first[rid], last[rid]
        dt = (t_last[rid] - t_first[rid]) / 1000 or 1
        kbps = (b["bytesSent"] - a["bytesSent"]) * 8 / dt / 1000
        print(f"  rid {rid}: {b.get('frameWidth')}x{b.get('frameHeight')} fps={b.get('framesPerSecond')} "
              f"avg {kbps:.0f} kbps target {b.get('targetBitrate')} limit={b.get('qualityLimitationReason')} "
              f"durations={b.get('qualityLimitationDurations')} enc={b.get('encoderImplementation')} "
              f"mode={b.get('scalabilityMode')}")
        if b["bytesSent"] <= a["bytesSent"]:
            problems.append(f"{name}: rid {rid} bytesSent not growing")
    print(f"{name}: seconds with a CPU-limited layer in the clean part: {len(cpu_seconds)}")
    if cpu_seconds:
        problems.append(f"{name}: qualityLimitationReason cpu in the clean part at {sorted(cpu_seconds)} s")
    print(f"{name} outbound-rtp video fields: {sorted(fields)}")
    if per_second:
        print("\n".join(rows))


def stream_publishers(events, publishers):
    """(subscriber pc, mid) -> publisher, from the subscriber-streams events; without them (older
    recordings) every video stream is the only publisher's."""
    out = {}
    for e in events:
        if e["peer"] == "subscriber" and e["event"] == "subscriber-streams":
            for st in e["data"].get("streams", []):
                # No `type` and no `mid` (the SDK's `callscope call --record`): the connection's
                # only stream, every m-line of it.
                if st.get("type", "video") == "video" and st.get("publisher"):
                    out[(e.get("pc"), st.get("mid"))] = st["publisher"]
    return out


def check_subscriber(sub, events, publishers, header, clean, problems):
    """One inbound video stream per publisher whose framesDecoded grows, and in the clean part
    decoded frames every second."""
    owners = stream_publishers(events, publishers)
    streams = {}
    for s in sub:
        for e in s["report"]:
            if e["type"] == "inbound-rtp" and e.get("kind") == "video":
                streams.setdefault((s["pc"], e.get("mid")), []).append(((s["t"] - header.get("t0", s["t"])) / 1000, e))
    if not streams:
        problems.append("no subscriber video inbound-rtp")
        return
    seen = set()
    for key, series in sorted(streams.items(), key=lambda x: str(x[0])):
        owner = owners.get(key) or owners.get((key[0], None)) or (publishers[0] if len(publishers) == 1 else None)
        seen.add(owner)
        (ta, a), (tb, b) = series[0], series[-1]
        dt = (b["timestamp"] - a["timestamp"]) / 1000 or 1
        stalled = [round(t) for (t, e), (_, p) in zip(series[1:], series) if clean[0] <= t < clean[1]
                   and (e.get("framesDecoded") or 0) <= (p.get("framesDecoded") or 0)]
        print(f"subscriber video {key[0]} mid {key[1]} ({owner}): {b.get('frameWidth')}x{b.get('frameHeight')} "
              f"fps={b.get('framesPerSecond')} framesDecoded {a.get('framesDecoded')}->{b.get('framesDecoded')} "
              f"avg {(b.get('bytesReceived', 0) - a.get('bytesReceived', 0)) * 8 / dt / 1000:.0f} kbps "
              f"lost={b.get('packetsLost')} freezes={b.get('freezeCount')} pauses={b.get('pauseCount')} "
              f"jitter={b.get('jitter')} decoder={b.get('decoderImplementation')}; "
              f"clean seconds without a decoded frame: {len(stalled)}")
        if not b.get("framesDecoded") or b.get("framesDecoded", 0) <= a.get("framesDecoded", 0):
            problems.append(f"subscriber {key}: framesDecoded not growing")
        if stalled:
            problems.append(f"subscriber {key}: no frame decoded in clean seconds {stalled}")
    print(f"subscriber inbound-rtp video fields: {sorted(series[-1][1].keys())}")
    missing = [p for p in publishers if p not in seen]
    if missing:
        problems.append(f"no subscriber video stream of {', '.join(missing)}")


def check_sender_stats(events, publishers, header, problems):
    """Sender-stats of every publisher reached the subscriber (recordings whose messages name their
    publisher; older ones: any)."""
    got = Counter()
    for e in events:
        if e["peer"] == "subscriber" and e["event"] == "sender-stats":
            got[(e.get("pc"), e["data"].get("publisher"))] += 1
    print("sender-stats at the subscriber (pc, publisher): " + (", ".join(f"{k}: {v}" for k, v in sorted(got.items(), key=str)) or "none"))
    if not any(p for _, p in got):
        return
    for name in publishers:
        if not any(p == name for _, p in got):
            problems.append(f"no sender-stats from {name}")


def rig_warnings(samples, header, clean):
    """Not failures, but worth knowing before shipping a recording: seconds without a sample of a
    connection (the host stalled the rig or a browser), and freezes in the clean part."""
    out = []
    last = {}
    freezes = {}
    t0 = header.get("t0", 0)
    for s in samples:
        key = (s["peer"], s["pc"])
        if key in last and s["t"] - last[key] > 1500:
            out.append(f"{key[0]}/{key[1]}: no sample for {(s['t'] - last[key]) / 1000:.1f} s at "
                       f"{(last[key] - t0) / 1000:.0f} s")
        last[key] = s["t"]
        sec = (s["t"] - t0) / 1000
        for e in s["report"]:
            if e["type"] == "inbound-rtp" and e.get("kind") == "video":
                k = (s["pc"], e.get("mid"))
                n = e.get("freezeCount") or 0
                if k in freezes and n > freezes[k] and clean[0] <= sec < clean[1]:
                    out.append(f"subscriber {k[0]} mid {k[1]}: freeze counted at {sec:.0f} s (clean part)")
                freezes[k] = n
    return out


def main():
    path = sys.argv[1]
    per_second = "--per-second" in sys.argv
    lines = recording.read(path)
    header, rest = lines[0], lines[1:]
    problems = []
    if header.get("format") != "webrtc-stats-recording" or header.get("version") != 1:
        problems.append("bad header")
    samples = [l for l in rest if "report" in l]
    events = [l for l in rest if "event" in l]
    print(f"header: {json.dumps(header)[:400]}")
    print(f"lines: {len(lines)} ({len(samples)} samples, {len(events)} events)")
    by_peer = Counter((s["peer"], s["pc"]) for s in samples)
    print("samples per peer/pc:", dict(by_peer))
    print("event kinds:", dict(Counter((e["peer"], e["event"]) for e in events)))
    types = defaultdict(Counter)
    for s in samples:
        for e in s["report"]:
            types[s["peer"]][e["type"]] += 1
    for peer, c in types.items():
        print(f"{peer} entry types: {dict(c)}")

    publishers = header.get("publishers") or ["publisher"]
    labels = load_labels(path)
    clean = clean_window(header, labels)
    print(f"clean window (s from t0): {clean[0]:.0f}-{clean[1]:.0f}")
    if not [s for s in samples if s["peer"] == "subscriber"] or \
            any(not [s for s in samples if s["peer"] == p] for p in publishers):
        problems.append("missing peer samples")
    for name in publishers:
        check_publisher(name, [s for s in samples if s["peer"] == name], header, clean, per_second, problems)
    check_subscriber([s for s in samples if s["peer"] == "subscriber"], events, publishers, header, clean, problems)
    check_sender_stats(events, publishers, header, problems)
    for w in rig_warnings(samples, header, clean):
        print("warning:", w)
    if problems:
        print("PROBLEMS:", "; ".join(problems))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
