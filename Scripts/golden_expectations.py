#!/usr/bin/env python3
"""Independent expected values for the golden test on a shipped recording.

Reads a CallScope recording with Python's gzip and json modules (nothing shared with the Swift
engine) and computes, straight from the W3C definitions in spec/observability.md:
  - publisher: per video layer (rid) 8*Δbytes/Δt and 8*Δ(bytes+headerBytes)/Δt over the entries'
    own timestamps, Σ video bytesSent / packetsSent, Σ remote-inbound packetsLost of video SSRCs;
  - subscriber: video 8*ΔbytesReceived/Δt (with headers), totals, frame size, freezes and pauses
    (W3C counters, seconds -> ms).
Only intervals where every counter grew and the gap is at most 3 s are written, so the expected
values do not depend on the engine's reset or first-sample policies.

usage: golden_expectations.py RECORDING.ndjson.gz > RECORDING.expected.json
"""
import gzip
import hashlib
import json
import sys


def load(path):
    raw = open(path, "rb").read()
    text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    lines = text.decode().splitlines()
    return hashlib.sha256(raw).hexdigest(), [json.loads(l) for l in lines[1:] if l.strip()]


def main(path):
    digest, lines = load(path)
    samples = [l for l in lines if "report" in l]
    previous = {}
    expected = []
    for sample in samples:
        peer, entries = sample["peer"], {e["id"]: e for e in sample["report"]}
        key = (peer, sample["pc"])
        before = previous.get(key)
        previous[key] = entries
        record = {"t": sample["t"], "peer": peer}
        outbound_video = [e for e in entries.values() if e["type"] == "outbound-rtp" and e.get("kind") == "video"]
        inbound_video = [e for e in entries.values() if e["type"] == "inbound-rtp" and e.get("kind") == "video"]
        if outbound_video:
            record["videoBytesSent"] = sum(e.get("bytesSent", 0) for e in outbound_video)
            record["videoPacketsSent"] = sum(e.get("packetsSent", 0) for e in outbound_video)
            video_ids = {e["id"] for e in outbound_video}
            record["videoPacketsLost"] = sum(e.get("packetsLost", 0) for e in entries.values()
                                             if e["type"] == "remote-inbound-rtp" and e.get("localId") in video_ids)
            if before:
                layers = {}
                for e in outbound_video:
                    old = before.get(e["id"])
                    if not old or e.get("active") is False:
                        continue
                    dt = e["timestamp"] - old["timestamp"]
                    db = e["bytesSent"] - old["bytesSent"]
                    dh = e.get("headerBytesSent", 0) - old.get("headerBytesSent", 0)
                    if 0 < dt <= 3000 and db > 0 and dh >= 0:
                        layers[e.get("rid", e["id"])] = {"bitrate": 8 * db * 1000 / dt, "totalBitrate": 8 * (db + dh) * 1000 / dt,
                                                         "width": e.get("frameWidth", 0), "height": e.get("frameHeight", 0)}
                record["layers"] = layers
        if inbound_video:
            e = inbound_video[0]
            record["videoBytesReceived"] = e.get("bytesReceived", 0)
            record["videoPacketsReceived"] = e.get("packetsReceived", 0)
            record["width"] = e.get("frameWidth", 0)
            record["height"] = e.get("frameHeight", 0)
            record["freezeCount"] = e.get("freezeCount", 0)
            record["totalFreezesDuration"] = e.get("totalFreezesDuration", 0) * 1000
            record["pauseCount"] = e.get("pauseCount", 0)
            old = before.get(e["id"]) if before else None
            if old:
                dt = e["timestamp"] - old["timestamp"]
                db = e["bytesReceived"] - old["bytesReceived"]
                dh = e.get("headerBytesReceived", 0) - old.get("headerBytesReceived", 0)
                if 0 < dt <= 3000 and db >= 0 and dh >= 0:
                    record["bitrate"] = 8 * db * 1000 / dt
                    record["totalBitrate"] = 8 * (db + dh) * 1000 / dt
        if len(record) > 2:
            expected.append(record)
    json.dump({"recording_sha256": digest, "samples": expected}, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
