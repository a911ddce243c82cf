#!/usr/bin/env python3
"""What the raw getStats data of each rig recording shows, before / during / after its impairment.

    python3 Rig/summarize.py                         # all Recordings/*.labels.json -> Rig/RECORDINGS.md
    python3 Rig/summarize.py --stdout [NAME ...]     # print instead of writing the file
    python3 Rig/summarize.py --per-second NAME       # one line per second (both peers) for one recording

Reads `Recordings/NAME.ndjson.gz` + `NAME.labels.json` only (no CallScope code): it is the
independent check that each recording really contains its impairment. Windows (seconds from t0):
`before` = labels' clean_from .. first impairment start (the whole call for `baseline`);
`during` = impairment start + 5 s .. impairment end (steady state; a blackout shorter than 10 s
uses the whole window); `end+5s` = the 5 s after the impairment ends; `after` = the last 5 s. Per-second values are medians
unless the row says max/min/sum. With several publishers (header `publishers`) the rows are per
publisher (`publisher-a ...`) and per subscribed stream (`subscriber [publisher-a] ...`: the
inbound-rtp entries of the mids the `subscriber-streams` events give that publisher, and the
candidate pair of the connection carrying them). Python 3 standard library only.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import sys

from callscope_rig import REPO_DIR, RIG_DIR, recording

REC_DIR = os.path.join(REPO_DIR, "Recordings")
ORDER = ["baseline", "publisher-uplink-1m", "publisher-uplink-400k", "subscriber-downlink-500k", "subscriber-downlink-500k-sdk",
         "publisher-uplink-loss-8", "subscriber-downlink-loss-10", "both-sides", "subscriber-blackout",
         "publisher-uplink-blackout", "ci-smoke",
         "two-publishers-uplink-300k", "two-publishers-uplink-300k-multistream",
         "two-publishers-downlink-loss-10", "two-publishers-downlink-loss-10-multistream"]


def load(name: str):
    path = os.path.join(REC_DIR, name + ".ndjson.gz")
    lines = recording.read(path)
    with open(os.path.join(REC_DIR, name + ".labels.json")) as f:
        labels = json.load(f)
    return lines[0], lines[1:], labels, os.path.getsize(path)


def selected_pair(report: list[dict]) -> dict | None:
    by_id = {e["id"]: e for e in report}
    for e in report:
        if e["type"] == "transport" and e.get("selectedCandidatePairId") in by_id:
            return by_id[e["selectedCandidatePairId"]]
    for e in report:
        if e["type"] == "candidate-pair" and e.get("nominated") and e.get("state") == "succeeded":
            return e
    return None


def snapshot(peer: str, report: list[dict]) -> dict:
    """Cumulative counters and gauges of one sample."""
    s: dict = {"ts": None}
    cp = selected_pair(report)
    if cp:
        s["ts"] = cp.get("timestamp")
        s["aob"] = cp.get("availableOutgoingBitrate")
        s["cp_rtt"] = cp.get("currentRoundTripTime")
        s["cp_bytes_rx"] = cp.get("bytesReceived")
        s["cp_pkts_rx"] = cp.get("packetsReceived")
        s["stun_unanswered"] = (cp.get("requestsSent") or 0) - (cp.get("responsesReceived") or 0)
        s["cp_not_ok"] = 0 if cp.get("state") == "succeeded" else 1
    if peer == "publisher":
        vb, layers, qlr = 0, [], []
        for e in report:
            if e["type"] == "outbound-rtp" and e.get("kind") == "video":
                vb += e.get("bytesSent", 0)
                s.setdefault("ts", e.get("timestamp"))
                if e.get("frameWidth"):
                    layers.append((e.get("rid"), e.get("frameHeight")))
                if e.get("qualityLimitationReason"):
                    qlr.append(e["qualityLimitationReason"])
            elif e["type"] == "remote-inbound-rtp" and e.get("kind") == "video":
                s.setdefault("ri_lost", 0)
                s["ri_lost"] += e.get("packetsLost", 0)
                s["ri_fl"] = max(s.get("ri_fl", 0), e.get("fractionLost", 0) or 0)
                if e.get("roundTripTime") is not None:
                    s["ri_rtt"] = max(s.get("ri_rtt", 0), e["roundTripTime"])
        s["v_bytes_tx"] = vb
        s["layers"] = sorted(layers, key=lambda x: -(x[1] or 0))
        s["qlr"] = sorted(set(qlr))
    else:
        for e in report:
            if e["type"] == "inbound-rtp":
                k = "v" if e.get("kind") == "video" else "a"
                s[k + "_bytes_rx"] = e.get("bytesReceived", 0)
                s[k + "_pkts_rx"] = e.get("packetsReceived", 0)
                s[k + "_lost"] = e.get("packetsLost", 0)
                s[k + "_jitter"] = e.get("jitter")
                s[k + "_jbd"] = e.get("jitterBufferDelay")
                s[k + "_jbe"] = e.get("jitterBufferEmittedCount")
                if k == "v":
                    s["v_h"] = e.get("frameHeight")
                    s["v_fps"] = e.get("framesPerSecond", 0)     # absent while nothing is decoded
                    if e.get("lastPacketReceivedTimestamp"):
                        s["v_rx_age"] = (e["timestamp"] - e["lastPacketReceivedTimestamp"]) / 1000
                    s["v_freezes"] = e.get("freezeCount", 0)
                    s["v_freeze_dur"] = e.get("totalFreezesDuration", 0)
                    s["v_nack"] = e.get("nackCount", 0)
                    s["v_pli"] = e.get("pliCount", 0)
                    s["v_decoded"] = e.get("framesDecoded", 0)
            elif e["type"] == "remote-outbound-rtp":
                s["ro_rtt_n"] = s.get("ro_rtt_n", 0) + (e.get("roundTripTimeMeasurements") or 0)
                if e.get("roundTripTime") is not None:
                    s["ro_rtt"] = e["roundTripTime"]
    return s


def publishers_of(header) -> list[str]:
    return header.get("publishers") or ["publisher"]


def sub_key(header, publisher: str) -> str:
    """The per-second series of the subscriber's view of `publisher`'s stream."""
    return "subscriber" if len(publishers_of(header)) == 1 else f"subscriber [{publisher}]"


def stream_mids(rest) -> dict[tuple[str, str], str]:
    """(subscriber pc, mid) -> publisher, from the subscriber-streams events."""
    out = {}
    for l in rest:
        if l.get("peer") == "subscriber" and l.get("event") == "subscriber-streams":
            for st in l.get("data", {}).get("streams", []):
                if st.get("publisher") and st.get("type") in ("audio", "video"):
                    out[(l.get("pc"), st.get("mid"))] = st["publisher"]
    return out


def stream_report(report: list[dict], pc: str, owners: dict, publisher: str) -> list[dict]:
    """The entries of a subscriber report that are about `publisher`'s stream: its inbound-rtp
    (by mid), their remote-outbound-rtp, and everything not tied to a stream (candidate pair...)."""
    keep_in = {e["id"] for e in report if e["type"] == "inbound-rtp" and owners.get((pc, e.get("mid"))) == publisher}
    return [e for e in report if (e["type"] != "inbound-rtp" or e["id"] in keep_in) and
            (e["type"] != "remote-outbound-rtp" or e.get("localId") in keep_in)]


def per_second(header, rest) -> dict[str, list[dict]]:
    """series -> list of per-second rows (gauges + deltas vs the previous sample). Series: each
    publisher peer, and the subscriber per publisher's stream (`sub_key`)."""
    t0 = header["t0"]
    pubs = publishers_of(header)
    out = {p: [] for p in pubs}
    out.update({sub_key(header, p): [] for p in pubs})
    owners = stream_mids(rest)
    views = []
    for l in rest:
        if "report" not in l:
            continue
        if l["peer"] in pubs:
            views.append((l["peer"], "publisher", l, l["report"]))
        elif l["peer"] == "subscriber" and len(pubs) == 1:
            views.append(("subscriber", "subscriber", l, l["report"]))
        elif l["peer"] == "subscriber":
            for p in pubs:
                r = stream_report(l["report"], l.get("pc"), owners, p)
                if any(e["type"] == "inbound-rtp" for e in r):
                    views.append((sub_key(header, p), "subscriber", l, r))
    prev: dict[str, dict] = {}
    for key, role, l, report in views:
        s = snapshot(role, report)
        s["sec"] = (l["t"] - t0) / 1000
        p = prev.get(key)
        row = dict(s)
        if p:
            dt = max(1e-3, (l["t"] - p["t_wall"]) / 1000)
            row["dt"] = dt
            for k in ("v_bytes_tx", "v_bytes_rx", "a_bytes_rx"):
                if k in s and k in p:
                    row[k.replace("bytes", "kbps")] = (s[k] - p[k]) * 8 / dt / 1000
            for k in ("v_pkts_rx", "a_pkts_rx", "v_lost", "a_lost", "ri_lost", "v_freezes", "v_freeze_dur",
                      "v_nack", "v_pli", "v_decoded", "cp_pkts_rx", "stun_unanswered"):
                if k in s and k in p:
                    row["d_" + k] = s[k] - p[k]
            for k in ("v", "a"):
                if s.get(k + "_jbe") is not None and p.get(k + "_jbe") is not None and s[k + "_jbe"] > p[k + "_jbe"]:
                    row[k + "_jb_ms"] = (s[k + "_jbd"] - p[k + "_jbd"]) / (s[k + "_jbe"] - p[k + "_jbe"]) * 1000
        s["t_wall"] = l["t"]
        prev[key] = s
        out[key].append(row)
    return out


def windows(labels: dict, header: dict):
    dur = labels.get("duration_ms", int(header.get("seconds", 60) * 1000)) / 1000
    imps = labels.get("impairments", [])
    clean_from = labels.get("clean_from_ms", 8000) / 1000
    if not imps:
        return {"before": (clean_from, dur), "during": None, "end+5s": None, "after": None}
    start = min(i["start_ms"] for i in imps) / 1000
    end = max(i["end_ms"] for i in imps) / 1000
    d0 = start + 5 if end - start >= 10 else start
    after = (dur - 5, dur) if dur - end >= 12 else None
    rec = (end + 0.5, end + 5.5) if dur - end >= 6 else None
    return {"before": (clean_from, start), "during": (d0, end + 0.5), "end+5s": rec, "after": after}


def sel(rows, win):
    if not win:
        return []
    return [r for r in rows if win[0] <= r["sec"] < win[1]]


def vals(rows, key):
    return [r[key] for r in rows if r.get(key) is not None]


def med(rows, key, scale=1.0, fmt="{:.0f}"):
    v = vals(rows, key)
    return fmt.format(statistics.median(v) * scale) if v else "–"


def mx(rows, key, scale=1.0, fmt="{:.0f}"):
    v = vals(rows, key)
    return fmt.format(max(v) * scale) if v else "–"


def mn(rows, key, scale=1.0, fmt="{:.0f}"):
    v = vals(rows, key)
    return fmt.format(min(v) * scale) if v else "–"


def med_max(key, scale=1.0):
    """A row's cell: `median / max` of `key`."""
    return lambda rows: f"{med(rows, key, scale)} / {mx(rows, key, scale)}"


def total(rows, key):
    v = vals(rows, key)
    return f"{sum(v):.0f}" if v else "–"


def loss_pct(rows, lost_key, rx_key):
    lost, rx = sum(vals(rows, lost_key)), sum(vals(rows, rx_key))
    return f"{100 * lost / (lost + rx):.1f} %" if lost + rx > 0 else "–"


def layers_str(rows):
    seen = {}
    for r in rows:
        k = "+".join(f"{rid}{h}" for rid, h in r.get("layers", [])) or "none"
        seen[k] = seen.get(k, 0) + 1
    return ", ".join(f"{k} ({n}s)" for k, n in sorted(seen.items(), key=lambda x: -x[1])[:3]) or "–"


def qlr_str(rows):
    seen = {}
    for r in rows:
        for q in r.get("qlr", []):
            seen[q] = seen.get(q, 0) + 1
    return ", ".join(f"{k} ({n}s)" for k, n in sorted(seen.items(), key=lambda x: -x[1])) or "–"


def heights(rows):
    seen = {}
    for r in rows:
        seen[r.get("v_h")] = seen.get(r.get("v_h"), 0) + 1
    return ", ".join(f"{k or 'none'}p ({n}s)" for k, n in sorted(seen.items(), key=lambda x: -x[1])[:3]) or "–"


def publisher_rows(name: str, P: dict, row) -> list[str]:
    """The table rows about publisher `name` (P: window -> per-second rows)."""
    return [
        row(f"{name} availableOutgoingBitrate kbit/s, median", lambda r: med(r, "aob", 1e-3), P),
        row(f"{name} availableOutgoingBitrate kbit/s, min", lambda r: mn(r, "aob", 1e-3), P),
        row(f"{name} video sent kbit/s (all layers), median", lambda r: med(r, "v_kbps_tx"), P),
        row(f"{name} layers sending (rid+height)", layers_str, P),
        row(f"{name} qualityLimitationReason", qlr_str, P),
        row(f"{name} RTT candidate-pair ms, max", lambda r: mx(r, "cp_rtt", 1e3), P),
        row(f"{name} RTT remote-inbound-rtp (video) ms, max", lambda r: mx(r, "ri_rtt", 1e3), P),
        row(f"{name} candidate-pair: unanswered STUN requests / s not 'succeeded'",
            lambda r: f"{total(r, 'd_stun_unanswered')} / {total(r, 'cp_not_ok')}", P),
        row(f"{name} remote-inbound video packetsLost, sum", lambda r: total(r, "d_ri_lost"), P),
        row(f"{name} remote-inbound video fractionLost, max", lambda r: mx(r, "ri_fl", 1, "{:.2f}"), P),
    ]


def subscriber_rows(name: str, S: dict, row) -> list[str]:
    """The table rows about the subscriber's view `name` (`subscriber`, or `subscriber [publisher-a]`)."""
    return [
        row(f"{name} video received kbit/s, median", lambda r: med(r, "v_kbps_rx"), S),
        row(f"{name} video received kbit/s, min", lambda r: mn(r, "v_kbps_rx"), S),
        row(f"{name} video packetsLost, sum (loss %)",
            lambda r: f"{total(r, 'd_v_lost')} ({loss_pct(r, 'd_v_lost', 'd_v_pkts_rx')})", S),
        row(f"{name} audio packetsLost, sum (loss %)",
            lambda r: f"{total(r, 'd_a_lost')} ({loss_pct(r, 'd_a_lost', 'd_a_pkts_rx')})", S),
        row(f"{name} video receive gap s (max age of lastPacketReceivedTimestamp)",
            lambda r: mx(r, "v_rx_age", 1, "{:.1f}"), S),
        row(f"{name} candidate-pair: unanswered STUN requests / s not 'succeeded'",
            lambda r: f"{total(r, 'd_stun_unanswered')} / {total(r, 'cp_not_ok')}", S),
        row(f"{name} RTT candidate-pair ms, median / max", med_max("cp_rtt", 1e3), S),
        row(f"{name} video jitter ms, median / max", med_max("v_jitter", 1e3), S),
        row(f"{name} audio jitter ms, median / max", med_max("a_jitter", 1e3), S),
        row(f"{name} video jitterBufferDelay/emitted ms, median / max", med_max("v_jb_ms"), S),
        row(f"{name} audio jitterBufferDelay/emitted ms, median / max", med_max("a_jb_ms"), S),
        row(f"{name} decoded height", heights, S),
        row(f"{name} framesPerSecond, median", lambda r: med(r, "v_fps"), S),
        row(f"{name} freezes (count, total s)",
            lambda r: f"{total(r, 'd_v_freezes')}, {sum(vals(r, 'd_v_freeze_dur')):.1f}", S),
        row(f"{name} NACKs / PLIs sent", lambda r: f"{total(r, 'd_v_nack')} / {total(r, 'd_v_pli')}", S),
    ]


def summarize(name: str) -> tuple[str, dict]:
    header, rest, labels, size = load(name)
    t0 = header["t0"]
    ps = per_second(header, rest)
    pubs = publishers_of(header)
    multi = len(pubs) > 1
    w = windows(labels, header)
    cols = [c for c in ("before", "during", "end+5s", "after") if w[c]]

    def row(label, fn, rows):
        return f"| {label} | " + " | ".join(fn(rows[c]) for c in cols) + " |"

    rows = []
    for pn in pubs:
        P = {c: sel(ps[pn], w[c]) for c in cols}
        rows += publisher_rows(pn, P, row)
    for pn in pubs:
        S = {c: sel(ps[sub_key(header, pn)], w[c]) for c in cols}
        rows += subscriber_rows(sub_key(header, pn), S, row)
    sub = [r for pn in pubs for r in ps[sub_key(header, pn)]]
    pub, sub1 = ps[pubs[0]], ps[sub_key(header, pubs[0])]
    ro_n = max(vals(sub, "ro_rtt_n") or [0])
    events = []
    slow = {}
    for l in rest:
        if l.get("event") == "janus-slowlink":
            sec = (l["t"] - t0) / 1000
            who = f"{l['peer']}/{l['pc']}" if multi and l.get("pc") else l["peer"]
            k = (who, "uplink=true" if l.get("data", {}).get("uplink") else "uplink=false")
            c = slow.setdefault(k, [0, sec, sec, 0])
            c[0] += 1
            c[1], c[2] = min(c[1], sec), max(c[2], sec)
            c[3] += l.get("data", {}).get("lost") or 0
            continue
        ev = l.get("event")
        if ev in ("ice-connection-state", "connection-state", "janus-slowlink", "layer-switch", "impairment-start",
                  "impairment-end", "janus-media", "janus-hangup", "datachannel-close", "signaling-poll-error"):
            d = l.get("data", {})
            sec = (l["t"] - t0) / 1000
            if ev == "layer-switch" and d.get("substream") is None:
                continue
            desc = {"ice-connection-state": lambda: f"ICE {d.get('state')}",
                    "connection-state": lambda: f"connection {d.get('state')}",
                    "janus-slowlink": lambda: f"Janus slowlink ({'uplink' if d.get('uplink') else 'downlink'} "
                                              f"{d.get('media')}, lost {d.get('lost')})",
                    "layer-switch": lambda: f"substream -> {d.get('substream')}",
                    "impairment-start": lambda: f"**{d.get('side')}{' of ' + d['publisher'] if d.get('publisher') else ''} "
                                                f"{d.get('kind')} {d.get('value')} on**",
                    "impairment-end": lambda: f"**{d.get('side')}{' of ' + d['publisher'] if d.get('publisher') else ''} "
                                              f"{d.get('kind')} off**",
                    "janus-media": lambda: f"Janus media {d.get('type')} receiving={d.get('receiving')}",
                    "janus-hangup": lambda: f"Janus hangup {d.get('reason')}",
                    "datachannel-close": lambda: "data channel closed",
                    "signaling-poll-error": lambda: "signaling long-poll error"}[ev]()
            if sec < 1 and ev in ("ice-connection-state", "connection-state", "janus-media"):
                continue           # call set-up
            who = f"{l['peer']}/{l['pc']}" if multi and l.get("pc") else l["peer"]
            events.append(f"{sec:.1f} s {who}: {desc}")
    for (peer, d), (n, a, b, lost) in sorted(slow.items(), key=lambda x: x[1][1]):
        events.append(f"{a:.1f}–{b:.1f} s {peer}: {n}× Janus slowlink ({d}, lost {lost} in total)")
    events.sort(key=lambda e: float(e.split(" ")[0].split("–")[0]))
    imps = labels.get("impairments", [])
    imp_s = "; ".join(f"{i['side']}{' of ' + i['publisher'] if i.get('publisher') else ''} {i['kind']} {i['value']} "
                      f"at {i['start_ms'] / 1000:.1f}–{i['end_ms'] / 1000:.1f} s" for i in imps) or "none"
    host = header.get("host", {})
    win_s = ", ".join(f"{c} {w[c][0]:.0f}–{min(w[c][1], labels.get('duration_ms', 0) / 1000):.0f} s" for c in cols)
    video = header.get("video", {})
    setup = (f"{len(pubs)} publishers ({', '.join(pubs)}), {video.get('top_layer')} top layer, subscriber: "
             f"{header.get('subscriber_connections')} connection{'s' if header.get('subscriber_connections') == 'per-feed' else ''}. "
             if multi else "")
    if str(header.get("peers", "")).startswith("callscope call"):
        setup += "Peers: `callscope call` processes (the rig's SDK path; what the SDK itself saw). "
    out = [f"### {name}", "",
           setup + f"Impairment: {imp_s}. Duration {labels.get('duration_ms', 0) / 1000:.0f} s, file {size / 1024:.0f} KB, "
           f"host CPU {host.get('cpu_busy_fraction', 0) * 100:.0f} % busy (rig: "
           + ", ".join(f"{k.split(' ')[0]} {v}" for k, v in cpu_used(host).items()) + " cores). "
           f"Windows: {win_s}.", "",
           "| raw getStats | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols)] + rows
    out.append("")
    if ro_n == 0:
        out.append("remote-outbound-rtp `roundTripTimeMeasurements` stays 0 (Janus sends no DLRR), so the "
                   "subscriber has no RTCP-based RTT; its only RTT is the candidate pair's (STUN consent).")
        out.append("")
    if events:
        out.append("Events (s from t0; negative = warm-up): " + "; ".join(events[:40]) +
                   (" …" if len(events) > 40 else "") + ".")
        out.append("")
    return "\n".join(out), {"pub": pub, "sub": sub1, "w": w}


def cpu_used(host: dict) -> dict:
    """The header's cores used per rig process; on the SDK path a peer's whole namespace
    (callscope + chromedriver + Chromium) stands for it, not the callscope process alone."""
    used = host.get("cpu_cores_used", {})
    whole = {k.split(" ")[0] for k in used if "(namespace:" in k}
    return {k: v for k, v in used.items() if not (k.endswith("(callscope)") and k.split(" ")[0] in whole)}


def print_per_second(name: str) -> None:
    header, rest, labels, _ = load(name)
    ps = per_second(header, rest)
    for pub in publishers_of(header):
        if len(publishers_of(header)) > 1:
            print(f"{pub} || {sub_key(header, pub)}")
        print_pair(ps[pub], ps[sub_key(header, pub)])


def print_pair(pub_rows: list[dict], sub_rows: list[dict]) -> None:
    """One line per second: a publisher, then the subscriber's view of its stream."""
    subs = {round(r["sec"]): r for r in sub_rows}

    def f(v, scale=1.0, nd=0):
        return "-" if v is None else f"{v * scale:.{nd}f}"
    print(f"{'sec':>4} | {'aob':>5} {'vTx':>5} {'rtt':>4} {'riLost':>6} layers/qlr || "
          f"{'vRx':>5} {'lost':>4} {'aLost':>5} {'rtt':>4} {'vJit':>4} {'aJit':>4} {'vJB':>4} {'aJB':>4} h fps frz")
    for r in pub_rows:
        s = subs.get(round(r["sec"]), {})
        lay = "+".join(f"{rid}" for rid, _ in r.get("layers", []))
        print(f"{r['sec']:4.0f} | {f(r.get('aob'), 1e-3):>5} {f(r.get('v_kbps_tx')):>5} {f(r.get('cp_rtt'), 1e3):>4} "
              f"{f(r.get('d_ri_lost')):>6} {lay}/{','.join(r.get('qlr', []))} || "
              f"{f(s.get('v_kbps_rx')):>5} {f(s.get('d_v_lost')):>4} {f(s.get('d_a_lost')):>5} "
              f"{f(s.get('cp_rtt'), 1e3):>4} {f(s.get('v_jitter'), 1e3):>4} {f(s.get('a_jitter'), 1e3):>4} "
              f"{f(s.get('v_jb_ms')):>4} {f(s.get('a_jb_ms')):>4} {s.get('v_h')} {s.get('v_fps')} "
              f"{f(s.get('d_v_freezes'))}")


INTRO = """# Rig recordings: what the raw data shows

Generated by `python3 Rig/summarize.py` from `Recordings/*.ndjson.gz` + `*.labels.json` (raw getStats
only, no CallScope code). Windows: `before` = clean baseline from the labels' `clean_from` to the
impairment start; `during` = impairment start + 5 s to its end (a 6 s blackout: the whole window);
`end+5s` = the 5 s right after the impairment is lifted; `after` = the last 5 s of the recording
(both in the unlabelled recovery). Per-second values; RTT, jitter in ms;
`–` = not reported. Recorded on 2 cores (Debian 12, Chromium 156, Janus 1.1.2), 960×540 3-layer VP8
simulcast (f/h/q), subscriber on substream 2. Caps are `tc tbf` with a 300 ms queue; loss and blackouts
are iptables DROP rules (all protocols, so STUN, RTCP and signaling are hit too).
"""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--stdout", action="store_true")
    ap.add_argument("--per-second", metavar="NAME")
    ap.add_argument("--out", default=os.path.join(RIG_DIR, "RECORDINGS.md"))
    a = ap.parse_args()
    if a.per_second:
        print_per_second(a.per_second)
        return 0
    names = a.names
    if not names:
        have = [os.path.basename(p)[: -len(".labels.json")] for p in glob.glob(os.path.join(REC_DIR, "*.labels.json"))]
        names = [n for n in ORDER if n in have] + sorted(n for n in have if n not in ORDER)
    parts = [INTRO]
    notes_path = os.path.join(RIG_DIR, "RECORDINGS.notes.md")
    if os.path.exists(notes_path) and not a.names:
        with open(notes_path) as f:
            parts.append(f.read().rstrip() + "\n")
    for n in names:
        parts.append(summarize(n)[0])
    text = "\n".join(parts).rstrip() + "\n"
    if a.stdout:
        print(text)
    else:
        with open(a.out, "w") as f:
            f.write(text)
        print(f"wrote {a.out} ({len(names)} recordings)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
