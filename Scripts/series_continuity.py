#!/usr/bin/env python3
"""Are a probe's series continuous in Prometheus over a whole call? (docs/live-calls.md, "Memory of a long call")

For each series of the chosen metrics, the raw samples Prometheus stored between START and END
(an instant query of `metric{job="JOB"}[window]` at END: the scrapes' own timestamps, not
`query_range`'s steps, which the 5-minute look-back would fill in) are checked for:

- **gaps**: the longest time without a sample, the window's edges included (START to the first
  sample, the last to END). More than `--max-gap` scrape intervals (default 2) is a gap; half an
  interval is allowed on top for the scrapes' jitter, so one missed scrape (2 intervals between
  samples) passes and two in a row fail;
- **counters** (`*_total`): a value lower than the one before is a decrease (also asked of
  Prometheus itself: `resets()` must be 0);
- **identity**: every label set seen in the window must span it (a series that appears or
  vanishes inside the window means its labels changed, e.g. a new stream id);
- samples expected (`floor(window / interval)`; a window whose both ends fall on scrapes holds
  one more) against seen, and Prometheus' own `count_over_time` of the same window must agree
  with what was read.

For `callscope_last_sample_timestamp_seconds` it also prints how old the newest stats sample was
at each scrape (median and maximum): continuous series could still serve stale numbers.

Usage: python3 Scripts/series_continuity.py --prometheus http://127.0.0.1:9090 --job bob \
           --metric callscope_subscriber_video_frames_per_second ... --start UNIX --end UNIX [--interval 5]
Exit 0 when every series is continuous, 1 otherwise, 2 when a metric has no series at all.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

JITTER_INTERVALS = 0.5          # allowed on top of --max-gap: scrape timestamps wander by milliseconds
# Its value is the unix time of the newest stats sample: scrape time minus value is how old the
# served numbers were at each scrape (a series can be continuous and still stale).
NEWEST_SAMPLE_METRIC = "callscope_last_sample_timestamp_seconds"


@dataclass
class SeriesVerdict:
    """What one series' samples show over the window."""
    labels: dict[str, str]
    counter: bool
    expected: int
    seen: int
    longest_gap: float                      # seconds, edges of the window included
    longest_gap_at: float                   # where it starts (unix seconds)
    missed_scrapes: int                     # inner gaps: sum of (round(gap / interval) - 1)
    leading: float                          # seconds from the window's start to the first sample
    trailing: float                         # seconds from the last sample to the window's end
    decreases: list[tuple[float, float, float]] = field(default_factory=list)    # (time, before, after)
    values: tuple[float, float, float] | None = None                            # min, median, max
    problems: list[str] = field(default_factory=list)
    ages: tuple[float, float] | None = None     # NEWEST_SAMPLE_METRIC only: median, max age at scrape (s)

    @property
    def continuous(self) -> bool:
        return not self.problems


def check_series(labels: dict[str, str], samples: list[tuple[float, float]], start: float, end: float,
                 interval: float, counter: bool, max_gap: float = 2) -> SeriesVerdict:
    """One series' verdict from its (time, value) samples; only those within [start, end] count."""
    inside = sorted((t, v) for t, v in samples if start <= t <= end)
    expected = int(math.floor((end - start) / interval + 1e-9))
    times = [start] + [t for t, _ in inside] + [end]
    gaps = [(b - a, a) for a, b in zip(times, times[1:])]
    longest, longest_at = max(gaps)
    missed = sum(max(0, round(gap / interval) - 1) for gap, _ in gaps[1:-1])
    decreases = [(t1, v0, v1) for (_, v0), (t1, v1) in zip(inside, inside[1:]) if v1 < v0] if counter else []
    ordered = sorted(v for _, v in inside)
    values = (ordered[0], ordered[len(ordered) // 2], ordered[-1]) if ordered else None
    verdict = SeriesVerdict(labels, counter, expected, len(inside), longest, longest_at, missed,
                            gaps[0][0], gaps[-1][0], decreases, values)
    if labels.get("__name__") == NEWEST_SAMPLE_METRIC and inside:
        ages = sorted(t - v for t, v in inside)
        verdict.ages = (ages[len(ages) // 2], ages[-1])
    limit = (max_gap + JITTER_INTERVALS) * interval
    if not inside:
        verdict.problems.append("no sample in the window")
    elif longest > limit:
        where = ("from the window's start" if (longest, longest_at) == gaps[0] else
                 "to the window's end" if (longest, longest_at) == gaps[-1] else f"at {longest_at:.1f}")
        verdict.problems.append(f"gap of {longest:.1f} s ({longest / interval:.1f} intervals) {where}")
    if decreases:
        t, before, after = decreases[0]
        verdict.problems.append(f"counter decreased {len(decreases)} times (first at {t:.1f}: {before:g} -> {after:g})")
    return verdict


def identity_problems(verdicts: list[SeriesVerdict], start: float, end: float, interval: float,
                      max_gap: float = 2) -> list[str]:
    """Label sets that do not span the window: a series that begins or ends inside it."""
    limit = (max_gap + JITTER_INTERVALS) * interval
    problems = []
    for verdict in verdicts:
        # Edges only: an inner gap is the gap check's business.
        if verdict.seen and (verdict.leading > limit or verdict.trailing > limit):
            problems.append(f"{format_labels(verdict.labels)} does not span the window (its labels changed, or it began or ended inside it)")
    return problems


def format_labels(labels: dict[str, str]) -> str:
    name = labels.get("__name__", "")
    rest = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()) if k != "__name__")
    return f"{name}{{{rest}}}"


# --------------------------------------------------------------------------- Prometheus' HTTP API
class Prometheus:
    """Instant queries over a Prometheus' HTTP API."""

    def __init__(self, url: str):
        self.url = url.rstrip("/")

    def query(self, expression: str, at: float) -> list[dict]:
        url = f"{self.url}/api/v1/query?" + urllib.parse.urlencode({"query": expression, "time": f"{at:.3f}"})
        with urllib.request.urlopen(url, timeout=30) as response:
            body = json.loads(response.read())
        if body.get("status") != "success":
            raise RuntimeError(f"{expression}: {body}")
        return body["data"]["result"]


@dataclass
class MetricReport:
    """The verdicts of one metric's series, and what Prometheus itself counted."""
    metric: str
    job: str
    verdicts: list[SeriesVerdict]
    problems: list[str]

    @property
    def continuous(self) -> bool:
        return not self.problems and all(v.continuous for v in self.verdicts)


def check_metric(prometheus: Prometheus, metric: str, job: str, start: float, end: float, interval: float,
                 max_gap: float = 2) -> MetricReport:
    window = f"{int(math.ceil(end - start)) + 1}s"
    selector = f'{metric}{{job="{job}"}}'
    counter = metric.endswith("_total")
    verdicts = []
    for series in prometheus.query(f"{selector}[{window}]", end):
        samples = [(float(t), float(v)) for t, v in series["values"]]
        verdicts.append(check_series(series["metric"], samples, start, end, interval, counter, max_gap))
    problems = [] if verdicts else [f"{selector}: no series in Prometheus"]
    problems += identity_problems(verdicts, start, end, interval, max_gap)
    # Prometheus' own view of the same samples: its count and, for counters, its resets.
    # (A window ending at END and reaching back past START: the extra second holds no sample of
    # ours unless one falls in it, which check_series then did not count; allow that one.)
    counted = {frozenset(s["metric"].items()): float(s["value"][1])
               for s in prometheus.query(f"count_over_time({selector}[{window}])", end)}
    for verdict in verdicts:
        key = frozenset((k, v) for k, v in verdict.labels.items() if k != "__name__")
        if key in counted and not 0 <= counted[key] - verdict.seen <= 1:
            problems.append(f"{format_labels(verdict.labels)}: count_over_time {counted[key]:g}, read {verdict.seen}")
    if counter:
        for series in prometheus.query(f"resets({selector}[{window}])", end):
            if float(series["value"][1]) != 0:
                problems.append(f"{format_labels(series['metric'])}: resets() = {series['value'][1]}")
    return MetricReport(metric, job, verdicts, problems)


def describe(report: MetricReport, interval: float) -> list[str]:
    """One line per series: samples expected/seen, longest gap, missed scrapes, monotonicity."""
    lines = []
    for v in report.verdicts:
        kind = ("counter, never decreased" if not v.decreases else f"counter, DECREASED {len(v.decreases)}x") if v.counter else "gauge"
        values = f", values {v.values[0]:g}/{v.values[1]:g}/{v.values[2]:g} (min/median/max)" if v.values else ""
        if v.ages:
            values = f", newest stats sample {v.ages[0]:.2f} s old at the median scrape, {v.ages[1]:.2f} s at most"
        lines.append(f"{'ok ' if v.continuous else 'GAP'} {report.job}: {format_labels(v.labels)}: {v.seen}/{v.expected} samples, "
                     f"longest gap {v.longest_gap:.1f} s ({v.longest_gap / interval:.2f} intervals), "
                     f"{v.missed_scrapes} missed scrapes; {kind}{values}")
        lines += [f"    {problem}" for problem in v.problems]
    lines += [f"PROBLEM {report.job}: {problem}" for problem in report.problems]
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prometheus", required=True, help="its base URL, e.g. http://127.0.0.1:9090")
    parser.add_argument("--job", required=True)
    parser.add_argument("--metric", action="append", required=True)
    parser.add_argument("--start", type=float, required=True, help="unix seconds")
    parser.add_argument("--end", type=float, required=True, help="unix seconds")
    parser.add_argument("--interval", type=float, default=5)
    parser.add_argument("--max-gap", type=float, default=2, help="in scrape intervals")
    args = parser.parse_args()
    prometheus = Prometheus(args.prometheus)
    reports = [check_metric(prometheus, m, args.job, args.start, args.end, args.interval, args.max_gap) for m in args.metric]
    for report in reports:
        print("\n".join(describe(report, args.interval)))
    if any(not r.verdicts for r in reports):
        return 2
    return 0 if all(r.continuous for r in reports) else 1


if __name__ == "__main__":
    sys.exit(main())
