#!/usr/bin/env python3
"""The layer policy's bounds (docs/adaptation.md) on a rig recording of an `adapt-*` scenario (Rig/README.md, Scenarios):

    python3 Rig/check_adapt.py RECORDING.ndjson.gz [--scenario Rig/scenarios/NAME.json]

Reads the subscriber's reports (decoded video frames and audio loss per second, from consecutive
`inbound-rtp` reports of each connection), the layer policy's events (`subscriber.layerChanged`,
`videoDisableWarning`, `videoDisabled`, `videoEnabled`) and the rig's real cap times
(`impairment-start`/`impairment-end`), prints what it found, and checks the scenario's
`video_expect`:

- `frames-again` (a cap that fits a lower layer): video frames decoded in >= 90 % of the seconds
  from the onset + 5 s to the cap's end (docs/adaptation.md: decodes again within 5 s; the 10 % leaves room
  for the policy's up-probes);
- `disabled` (a cap below the lowest layer): `subscriber.videoDisabled` with reason
  `qualityChanged` within 5 s of the onset, audio packet loss <= 10 % from the onset + 5 s to the
  cap's end (the onset burst excluded; 10 % is the bound of the Swift real test
  `RealAdaptationTests`, which measured 4.8-5.7 %), `subscriber.videoEnabled` within 15 s of the
  cap's removal;
- `warned` (the publisher disallows audio fallback): a `subscriber.videoDisableWarning` during the
  cap and no `subscriber.videoDisabled` at all.

Exit 0 when the expectation holds, 1 when not (each failed check named), 2 on unreadable input.
Standard library only.
"""
from __future__ import annotations

import argparse
import json
import sys

from callscope_rig import recording
from labels import actual_times

ADAPT_EVENTS = ("subscriber.layerChanged", "subscriber.videoDisableWarning", "subscriber.videoDisableWarningLifted",
                "subscriber.videoDisabled", "subscriber.videoEnabled")


def per_second(lines: list[dict], t0: int) -> dict[int, dict]:
    """Second (from t0) -> {"video_frames": decoded video frames, "audio_lost", "audio_received"}
    of the subscriber, summed over its connections, from consecutive reports."""
    prev: dict[tuple[str, str], tuple[int, int, int]] = {}
    out: dict[int, dict] = {}
    for line in lines:
        if line.get("peer") != "subscriber" or "report" not in line:
            continue
        report = line["report"]
        entries = report if isinstance(report, list) else list(report.values())
        sec = int((line["t"] - t0) // 1000)
        row = out.setdefault(sec, {"video_frames": 0, "audio_lost": 0, "audio_received": 0})
        for e in entries:
            if not isinstance(e, dict) or e.get("type") != "inbound-rtp":
                continue
            key = (line.get("pc", ""), e.get("kind", ""))
            cur = (e.get("framesDecoded", 0) or 0, e.get("packetsLost", 0) or 0, e.get("packetsReceived", 0) or 0)
            if key in prev:
                frames, lost, received = (c - p for c, p in zip(cur, prev[key]))
                if key[1] == "video":
                    row["video_frames"] += max(frames, 0)
                elif key[1] == "audio":
                    row["audio_lost"] += max(lost, 0)
                    row["audio_received"] += max(received, 0)
            prev[key] = cur
    return out


def cap_times(lines: list[dict], t0: int) -> tuple[float, float] | None:
    """(onset, removal) in s from t0 of the rig's first impairment step, else None."""
    steps = actual_times(lines, t0)
    if not steps:
        return None
    start, end = steps[min(steps)]
    return start / 1000, end / 1000


def check(lines: list[dict], t0: int, expect: str | None) -> tuple[list[str], list[str]]:
    """(facts, failures) for the recording's lines after the header."""
    facts, failures = [], []
    cap = cap_times(lines, t0)
    if cap is None:
        return facts, ["no impairment-start/impairment-end from the rig"]
    onset, removal = cap
    facts.append(f"cap {onset:.1f}-{removal:.1f} s")
    events = [(round((l["t"] - t0) / 1000, 1), l["event"], l.get("data") or {}) for l in lines
              if l.get("event") in ADAPT_EVENTS]
    for t, name, data in events:
        facts.append(f"{t:7.1f} s {name} {json.dumps({k: v for k, v in data.items() if k != 'stream'})}")
    if not events:
        facts.append("no layer-policy events (a recording without the policy)")
    rows = per_second(lines, t0)
    window = [s for s in sorted(rows) if onset + 5 <= s and s + 1 <= removal]
    decoding = [s for s in window if rows[s]["video_frames"] > 0]
    lost = sum(rows[s]["audio_lost"] for s in window)
    received = sum(rows[s]["audio_received"] for s in window)
    audio_loss = lost / (lost + received) if lost + received else 0.0
    facts.append(f"onset+5 s to the cap's end: video decoded in {len(decoding)}/{len(window)} s, "
                 f"audio loss {audio_loss * 100:.1f} %")
    after = [s for s in sorted(rows) if s >= removal and rows[s]["video_frames"] > 0]
    if after:
        facts.append(f"video decoded again {after[0] - removal:.1f} s after the cap's removal")

    def first(name: str, since: float, reason: str | None = None) -> float | None:
        return next((t for t, n, d in events if n == name and t >= since and (reason is None or d.get("reason") == reason)),
                    None)

    if expect == "frames-again":
        if not window or len(decoding) < 0.9 * len(window):
            failures.append(f"video decoded in {len(decoding)}/{len(window)} s from onset+5 s (< 90 %)")
    elif expect == "disabled":
        t = first("subscriber.videoDisabled", onset, "qualityChanged")
        if t is None or t > onset + 5:
            failures.append(f"videoDisabled(qualityChanged) {'at %.1f s' % t if t is not None else 'never'}, "
                            f"not within 5 s of the onset {onset:.1f} s")
        if audio_loss > 0.10:
            failures.append(f"audio loss {audio_loss * 100:.1f} % from onset+5 s (> 10 %)")
        t = first("subscriber.videoEnabled", removal)
        if t is None or t > removal + 15:
            failures.append(f"videoEnabled {'at %.1f s' % t if t is not None else 'never'}, "
                            f"not within 15 s of the removal {removal:.1f} s")
    elif expect == "warned":
        t = first("subscriber.videoDisableWarning", onset)
        if t is None or t > removal:
            failures.append("no videoDisableWarning during the cap")
        if first("subscriber.videoDisabled", float("-inf")) is not None:
            failures.append("video was disabled although the publisher disallows audio fallback")
    elif expect is not None:
        failures.append(f"unknown video_expect {expect!r} (frames-again, disabled, warned)")
    return facts, failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("recording")
    ap.add_argument("--scenario", help="default: Rig/scenarios/<header scenario>.json")
    a = ap.parse_args()
    try:
        lines = recording.read(a.recording)
        header = lines[0]
        path = a.scenario or recording.scenario_path(header)
        with open(path) as f:
            scenario = json.load(f)
    except (OSError, ValueError, KeyError, IndexError) as e:
        print(f"check_adapt.py: {e}", file=sys.stderr)
        return 2
    expect = scenario.get("video_expect")
    facts, failures = check(lines[1:], header["t0"], expect)
    print(f"{header['scenario']} (video_expect {expect}):")
    for fact in facts:
        print("  " + fact)
    for failure in failures:
        print("FAIL: " + failure)
    if not failures:
        print("OK" if expect else "OK (the scenario gives no video_expect: facts only)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
