#!/usr/bin/env python3
"""Ground-truth labels for a rig recording (`NAME.labels.json`, see docs/spec/recording-format.md).

record.py calls `write_labels()` at the end of every `--scenario` run. Standalone, it (re)writes the
labels of an existing recording from its scenario, taking `t0` and the real impairment times from
the recording's header and `rig` `impairment-start`/`impairment-end` event lines:

    python3 Rig/labels.py Recordings/NAME.ndjson.gz [--scenario Rig/scenarios/NAME.json] [--check]

`--check` writes nothing: exit 1 (with a message) when the labels file differs from what the
scenario and the recording give now.

All times in the labels are milliseconds relative to `t0` (the header's unix ms of the first
sample tick). Label semantics (what an engine should say, per peer):

- clean baseline, from `clean_from` (default 8 s) to the first impairment start: both peers
  `{"degradation_source":"none","reason":"none"}`;
- every interval in which impairments are active: the expected value for that set of steps
  (the scenario's `expect` when given, else the rules below);
- the `recovery_seconds` (default 20) after an impairment ends are NOT labelled (Chrome's
  bandwidth estimator ramps back slowly); any time after that, until the next impairment or the
  end of the recording, is labelled none/none again.

Rules (subscriber view = where its downlink trouble comes from; publisher view = its own uplink):
- subscriber: `publisher-uplink` step -> source `remote`; `subscriber-downlink` step -> `local`;
  both at once -> `bothOrUnclear` with the reason of the local side. Reason: `rate` ->
  `bandwidth`, `loss`/`blackout` -> `packetLoss`.
- publisher: `local` + reason when a `publisher-uplink` step is active, else none/none.
- `publisher-downlink` / `subscriber-uplink` steps have no rule: such a scenario must give `expect`.

With several publishers (`"publishers": N`, peers `publisher-a`, `publisher-b`, ...) the same rules
hold per stream: every subscriber entry gains `"stream": "<publisher peer label>"` (the publisher
whose stream it is about) and is `remote` only when THAT publisher's uplink is impaired (a
`publisher-*` step's `publisher` field; default the first publisher); `local` comes from the
subscriber's own downlink and applies to every stream. Publisher entries carry the publisher's
peer label as `peer`. The scenario's `expect` then reads
`{"subscriber": {"publisher-a": {...}, "publisher-b": {...}}, "publisher-a": {...}, ...}`.
With one publisher the labels are exactly as before (peers `subscriber`/`publisher`, no `stream`).
`grace_ms` (default 5000) is written at top level: an evaluator skips that long after every
impairment start and end when scoring accuracy, and measures detection delay separately.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from callscope_rig import recording
from callscope_rig.recording import labels_path

PEERS = ("subscriber", "publisher")
REASON = {"rate": "bandwidth", "loss": "packetLoss", "blackout": "packetLoss"}
NONE = {"degradation_source": "none", "reason": "none"}
DEFAULT_CLEAN_FROM = 8
DEFAULT_RECOVERY = 20
DEFAULT_GRACE_MS = 5000


def publisher_labels(count: int) -> list[str]:
    """The publishers' peer labels: `publisher` alone, else `publisher-a`, `publisher-b`, ..."""
    if count == 1:
        return ["publisher"]
    return [f"publisher-{chr(ord('a') + i)}" for i in range(count)]


def label_keys(publishers: list[str]) -> list[tuple[str, str | None]]:
    """(peer, stream) of every labelled view, in the order the labels list them: with one
    publisher ("subscriber", None), ("publisher", None); with more, the subscriber per publisher's
    stream, then each publisher."""
    if len(publishers) == 1:
        return [("subscriber", None), ("publisher", None)]
    return [("subscriber", p) for p in publishers] + [(p, None) for p in publishers]


def step_publisher(step: dict, publishers: list[str]) -> str | None:
    """The publisher a `publisher-*` step impairs (default the first); None for subscriber sides."""
    return (step.get("publisher") or publishers[0]) if step["side"].startswith("publisher-") else None


def derive(active: list[dict], publishers: list[str] = ("publisher",)) -> dict[tuple[str, str | None], dict]:
    """Expected value per (peer, stream) (see `label_keys`) while exactly the steps in `active` are on."""
    publishers = list(publishers)
    other = [s for s in active if s["side"] not in ("subscriber-downlink", "publisher-uplink")]
    if other:
        raise ValueError(f"no labelling rule for side {other[0]['side']}; give the scenario an 'expect'")
    local = [s for s in active if s["side"] == "subscriber-downlink"]
    out = {}
    for pub in publishers:
        remote = [s for s in active if s["side"] == "publisher-uplink" and step_publisher(s, publishers) == pub]
        if local and remote:
            sub = {"degradation_source": "bothOrUnclear", "reason": REASON[local[0]["kind"]]}
        elif local:
            sub = {"degradation_source": "local", "reason": REASON[local[0]["kind"]]}
        elif remote:
            sub = {"degradation_source": "remote", "reason": REASON[remote[0]["kind"]]}
        else:
            sub = dict(NONE)
        single = len(publishers) == 1
        out[("subscriber", None if single else pub)] = sub
        out[(pub, None)] = ({"degradation_source": "local", "reason": REASON[remote[0]["kind"]]} if remote
                            else dict(NONE))
    return out


def expect_value(override: dict, key: tuple[str, str | None]) -> dict | None:
    """The scenario's `expect` for (peer, stream), or None when it does not say."""
    peer, stream = key
    v = override.get(peer)
    if stream is not None and isinstance(v, dict):
        v = v.get(stream)
    return v if isinstance(v, dict) and "degradation_source" in v else None


def build(scenario: dict, seconds: float, t0: int, actual: dict[int, tuple[int, int]] | None = None) -> dict:
    """Labels for `scenario`. `actual` maps step index -> (start_ms, end_ms) as really applied
    (relative to t0); nominal scenario times are used for steps missing from it."""
    total_ms = int(round(seconds * 1000))
    steps = scenario.get("steps", [])
    publishers = publisher_labels(scenario.get("publishers", 1))
    keys = label_keys(publishers)
    imps = []
    for i, s in enumerate(steps):
        start_ms = int(round(s["start"] * 1000))
        end_ms = int(round((s["end"] if s.get("end") is not None else seconds) * 1000))
        if actual and i in actual:
            start_ms, end_ms = actual[i]
        imp = {"side": s["side"], "kind": s["kind"], "value": s.get("value")}
        if len(publishers) > 1 and step_publisher(s, publishers):
            imp["publisher"] = step_publisher(s, publishers)
        imp.update(start_ms=start_ms, end_ms=min(end_ms, total_ms), _step=s)
        imps.append(imp)
    clean_from = int(round(scenario.get("clean_from", DEFAULT_CLEAN_FROM) * 1000))
    recovery = int(round(scenario.get("recovery_seconds", DEFAULT_RECOVERY) * 1000))
    override = scenario.get("expect")

    # Sweep the timeline: elementary intervals between all boundaries.
    bounds = sorted({clean_from, total_ms} | {b for m in imps for b in (m["start_ms"], m["end_ms"])})
    bounds = [b for b in bounds if clean_from <= b <= total_ms]
    segs = []   # (from, to, values-or-None)
    for a, b in zip(bounds, bounds[1:]):
        if b <= a:
            continue
        active = [m["_step"] for m in imps if m["start_ms"] <= a and m["end_ms"] >= b]
        if active:
            if override:
                try:
                    derived = derive(active, publishers)
                except ValueError:
                    derived = {}
                vals = {}
                for k in keys:
                    v = expect_value(override, k) or derived.get(k)
                    if v is None:
                        raise ValueError(f"the scenario's expect says nothing about {k}")
                    vals[k] = dict(v)
            else:
                vals = derive(active, publishers)
            segs.append((a, b, vals))
        else:
            last_end = max((m["end_ms"] for m in imps if m["end_ms"] <= a), default=None)
            if last_end is None:
                segs.append((a, b, {k: dict(NONE) for k in keys}))
            else:
                quiet_from = last_end + recovery
                if b > quiet_from:
                    segs.append((max(a, quiet_from), b, {k: dict(NONE) for k in keys}))
    expected = []
    for key in keys:
        peer, stream = key
        for a, b, vals in segs:
            v = vals[key]
            last = expected[-1] if expected else None
            if last and last["peer"] == peer and last.get("stream") == stream and last["to_ms"] == a and \
                    last["degradation_source"] == v["degradation_source"] and last["reason"] == v["reason"]:
                last["to_ms"] = b          # merge adjacent equal windows
                continue
            entry = {"peer": peer}
            if stream is not None:
                entry["stream"] = stream
            entry.update({"from_ms": a, "to_ms": b,
                          "degradation_source": v["degradation_source"], "reason": v["reason"]})
            expected.append(entry)
    for m in imps:
        m.pop("_step")
    out = {
        "scenario": scenario["name"],
        "t0": t0,
        "duration_ms": total_ms,
        "grace_ms": int(scenario.get("grace_ms", DEFAULT_GRACE_MS)),
        "note": ("times are ms relative to t0 (unix ms of the first sample tick); impairment times are "
                 "when the rig really applied/removed them. expected: subscriber = source of its downlink "
                 "trouble (local / remote publisher uplink / bothOrUnclear / none) + reason; publisher = "
                 "its own uplink. Unlabelled: before clean_from and the recovery_seconds after an "
                 "impairment ends. Skip grace_ms after each impairment start/end when scoring accuracy."),
    }
    if len(publishers) > 1:
        out["note"] += (" Several publishers: each subscriber entry is about the stream of the publisher in "
                        "its `stream` (remote = that publisher's uplink is impaired, local = the "
                        "subscriber's downlink); publisher entries use the publisher's peer label.")
        out["publishers"] = publishers
        out["subscriber_connections"] = scenario.get("subscriber_connections", "per-feed")
    out.update({
        "clean_from_ms": clean_from,
        "recovery_ms": recovery,
        "impairments": imps,
        "expected": expected,
    })
    return out


def disagreements(scenario: dict) -> list[str]:
    """Where the scenario's `expect` differs from the rules (for each set of steps that is on at
    some time, nominal times); empty when it agrees or gives none."""
    override = scenario.get("expect")
    if not override:
        return []
    publishers = publisher_labels(scenario.get("publishers", 1))
    steps = scenario.get("steps", [])
    out = []
    for t in sorted({s["start"] for s in steps}):
        active = [s for s in steps if s["start"] <= t and (s.get("end") is None or s["end"] > t)]
        try:
            derived = derive(active, publishers)
        except ValueError:
            continue
        for k, v in derived.items():
            e = expect_value(override, k)
            if e and (e["degradation_source"], e["reason"]) != (v["degradation_source"], v["reason"]):
                out.append(f"{k} at {t} s: expect {e}, rules {v}")
    return out


def labels_text(scenario: dict, seconds: float, t0: int, actual: dict[int, tuple[int, int]] | None = None) -> str:
    return json.dumps(build(scenario, seconds, t0, actual), indent=1) + "\n"


def write_labels(recording: str, scenario: dict, seconds: float, t0: int,
                 actual: dict[int, tuple[int, int]] | None = None) -> str:
    text = labels_text(scenario, seconds, t0, actual)
    path = labels_path(recording)
    with open(path + ".part", "w") as f:
        f.write(text)
    os.replace(path + ".part", path)
    return path


def actual_times(lines: list[dict], t0: int) -> dict[int, tuple[int, int]]:
    """Step index -> (start_ms, end_ms) from the rig's impairment events."""
    starts, ends = {}, {}
    for l in lines:
        if l.get("peer") == "rig" and l.get("event") in ("impairment-start", "impairment-end"):
            idx = l.get("data", {}).get("index")
            (starts if l["event"] == "impairment-start" else ends)[idx] = l["t"] - t0
    return {i: (starts[i], ends.get(i, starts[i])) for i in starts if i in ends}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("recording")
    ap.add_argument("--scenario", help="default: Rig/scenarios/<header scenario>.json")
    ap.add_argument("--check", action="store_true", help="only compare with the labels file; exit 1 when it differs")
    a = ap.parse_args()
    lines = recording.read(a.recording)
    header = lines[0]
    sc_path = a.scenario or recording.scenario_path(header)
    with open(sc_path) as f:
        scenario = json.load(f)
    scenario.setdefault("name", header["scenario"])
    for d in disagreements(scenario):
        print(f"warning: {d}", file=sys.stderr)
    t0 = header["t0"]
    seconds = header.get("seconds") or scenario.get("seconds")
    if a.check:
        path = labels_path(a.recording)
        try:
            with open(path) as f:
                shipped = f.read()
        except OSError as e:
            print(f"{path}: {e}", file=sys.stderr)
            return 1
        if shipped != labels_text(scenario, seconds, t0, actual_times(lines[1:], t0)):
            print(f"{path}: differs from what {sc_path} and the recording give; run python3 Rig/labels.py "
                  f"{a.recording}", file=sys.stderr)
            return 1
        return 0
    path = write_labels(a.recording, scenario, seconds, t0, actual_times(lines[1:], t0))
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
