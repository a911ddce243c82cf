#!/usr/bin/env python3
"""CI smoke assertion on `callscope replay REC --format ndjson` output (used by Rig/ci_smoke.sh).

    python3 Rig/ci_check.py REPLAY.ndjson REC.labels.json [--min-seconds 5]

Checks the publisher's `publisher.mediaLinkStatsUpdated` lines
(`data[0].transport.networkCondition` / `networkConditionReason`) against the labels' rate cap on
`publisher-uplink`:
  (a) during the cap: networkCondition warning/critical with reason "bandwidth" in at least
      --min-seconds distinct seconds;
  (b) before the cap (from the labels' clean_from to the cap start): every line excellent/good.
Prints the timeline and a PASS/FAIL line; exit 0 on PASS, 1 on FAIL, 2 on unusable input.
Lines that are not JSON (e.g. debug prints interleaved on stdout) are skipped and counted.
"""
from __future__ import annotations

import argparse
import json
import sys

GOOD = {"excellent", "good"}
BAD = {"warning", "critical"}


def parse_lines(path: str):
    good, skipped = [], 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            obj = None
            start = line.find('{"t":')
            for cand in ([line] + ([line[start:]] if start > 0 else [])):
                try:
                    obj = json.loads(cand)
                    break
                except ValueError:
                    continue
            if isinstance(obj, dict):
                good.append(obj)
            else:
                skipped += 1
    return good, skipped


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("replay")
    ap.add_argument("labels")
    ap.add_argument("--min-seconds", type=int, default=5)
    a = ap.parse_args()
    with open(a.labels) as f:
        labels = json.load(f)
    t0 = labels["t0"]
    caps = [i for i in labels.get("impairments", []) if i["side"] == "publisher-uplink" and i["kind"] == "rate"]
    if not caps:
        print("FAIL: labels have no publisher-uplink rate cap")
        return 2
    cap_from, cap_to = caps[0]["start_ms"] / 1000, caps[0]["end_ms"] / 1000
    clean_from = labels.get("clean_from_ms", 5000) / 1000
    lines, skipped = parse_lines(a.replay)
    pub = []
    for l in lines:
        if l.get("callback") != "publisher.mediaLinkStatsUpdated":
            continue
        d = l.get("data")
        d = d[0] if isinstance(d, list) and d else d
        tr = (d or {}).get("transport", {}) if isinstance(d, dict) else {}
        pub.append(((l["t"] - t0) / 1000, tr.get("networkCondition"), tr.get("networkConditionReason"),
                    tr.get("connectionEstimatedBandwidth")))
    print(f"replay: {len(lines)} JSON lines ({skipped} non-JSON skipped), {len(pub)} publisher.mediaLinkStatsUpdated; "
          f"cap {caps[0]['value']} bit/s at {cap_from:.1f}-{cap_to:.1f} s, clean from {clean_from:.1f} s")
    for t, cond, reason, bwe in pub:
        mark = ("cap" if cap_from <= t < cap_to else "   " if t < clean_from else
                "pre" if t < cap_from else "end")
        bwe_s = f"{bwe / 1000:.0f}k" if isinstance(bwe, (int, float)) else str(bwe)
        print(f"  {t:5.1f} s {mark} {cond}/{reason} bwe={bwe_s}")
    before = [(t, c, r) for t, c, r, _ in pub if clean_from <= t < cap_from]
    during = [(t, c, r) for t, c, r, _ in pub if cap_from <= t < cap_to + 0.5]
    bad_before = [(t, c, r) for t, c, r in before if c not in GOOD]
    hit_secs = sorted({int(t) for t, c, r in during if c in BAD and r == "bandwidth"})
    first = min((t for t, c, r in during if c in BAD and r == "bandwidth"), default=None)
    problems = []
    if len(before) < 3:
        problems.append(f"only {len(before)} publisher lines before the cap")
    if bad_before:
        problems.append("before the cap not excellent/good at " +
                        ", ".join(f"{t:.0f}s={c}/{r}" for t, c, r in bad_before[:5]))
    if len(hit_secs) < a.min_seconds:
        problems.append(f"during the cap warning/critical+bandwidth in {len(hit_secs)} s (< {a.min_seconds})")
    delay = f"{first - cap_from:.1f} s" if first is not None else "never"
    if problems:
        print(f"FAIL: ci-smoke: {'; '.join(problems)} (detection delay {delay})")
        return 1
    print(f"PASS: ci-smoke: before the cap {len(before)} s excellent/good; during the cap warning/critical "
          f"+ bandwidth in {len(hit_secs)} s; detection delay {delay}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
