#!/usr/bin/env python3
"""Sanity-check and summarise a webrtc-stats-recording (.ndjson or .ndjson.gz).

    python3 Rig/check_recording.py Recordings/baseline-simulcast.ndjson.gz [--per-second]

Exit 0 when: the header is right; both peers have samples; the publisher has three video
outbound-rtp entries with rid whose bytesSent grows; the subscriber has a video inbound-rtp whose
framesDecoded grows. Prints per-layer bitrates, resolutions, fps and limitation reasons.
"""
import gzip
import json
import sys
from collections import Counter, defaultdict


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    path = sys.argv[1]
    per_second = "--per-second" in sys.argv
    lines = load(path)
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

    pub = [s for s in samples if s["peer"] == "publisher"]
    sub = [s for s in samples if s["peer"] == "subscriber"]
    if not pub or not sub:
        problems.append("missing peer samples")
    # publisher layers
    first, last, t_first, t_last = {}, {}, {}, {}
    fields = set()
    rows = []
    prev = {}
    for s in pub:
        row = [f"{(s['t'] - header.get('t0', s['t'])) / 1000:6.1f}s"]
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
                row.append(f"{rid}:{e.get('frameWidth')}x{e.get('frameHeight')}@{e.get('framesPerSecond')} "
                           f"{kbps:5.0f}kbps {e.get('qualityLimitationReason')}")
        rows.append(" ".join(row))
    rids = sorted(k for k in last if k)
    print(f"publisher video rids: {rids}")
    if len(rids) != 3:
        problems.append(f"expected 3 rids, got {rids}")
    for rid in rids:
        a, b = first[rid], last[rid]
        dt = (t_last[rid] - t_first[rid]) / 1000 or 1
        kbps = (b["bytesSent"] - a["bytesSent"]) * 8 / dt / 1000
        print(f"  rid {rid}: {b.get('frameWidth')}x{b.get('frameHeight')} fps={b.get('framesPerSecond')} "
              f"avg {kbps:.0f} kbps target {b.get('targetBitrate')} limit={b.get('qualityLimitationReason')} "
              f"durations={b.get('qualityLimitationDurations')} enc={b.get('encoderImplementation')} "
              f"mode={b.get('scalabilityMode')}")
        if b["bytesSent"] <= a["bytesSent"]:
            problems.append(f"rid {rid} bytesSent not growing")
    print(f"publisher outbound-rtp video fields: {sorted(fields)}")
    if per_second:
        print("\n".join(rows))
    # subscriber
    vin = [(s["t"], e) for s in sub for e in s["report"] if e["type"] == "inbound-rtp" and e.get("kind") == "video"]
    if not vin:
        problems.append("no subscriber video inbound-rtp")
    else:
        (ta, a), (tb, b) = vin[0], vin[-1]
        dt = (b["timestamp"] - a["timestamp"]) / 1000 or 1
        print(f"subscriber video: {b.get('frameWidth')}x{b.get('frameHeight')} fps={b.get('framesPerSecond')} "
              f"framesDecoded {a.get('framesDecoded')}->{b.get('framesDecoded')} "
              f"avg {(b.get('bytesReceived', 0) - a.get('bytesReceived', 0)) * 8 / dt / 1000:.0f} kbps "
              f"lost={b.get('packetsLost')} freezes={b.get('freezeCount')} pauses={b.get('pauseCount')} "
              f"jitter={b.get('jitter')} decoder={b.get('decoderImplementation')}")
        print(f"subscriber inbound-rtp video fields: {sorted(b.keys())}")
        if not b.get("framesDecoded") or b.get("framesDecoded", 0) <= a.get("framesDecoded", 0):
            problems.append("subscriber framesDecoded not growing")
    if problems:
        print("PROBLEMS:", "; ".join(problems))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
