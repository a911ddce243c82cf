#!/usr/bin/env python3
"""Tests of Scripts/series_continuity.py on hand-made series: a 60 s window [0, 60], a scrape
every 5 s at 1, 6, 11, ... 56 (12 scrapes). Expected values worked out by hand in each test.
Standard library only:

    python3 Scripts/test_series_continuity.py
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from series_continuity import check_metric, check_series, identity_problems  # noqa: E402

START, END, INTERVAL = 0.0, 60.0, 5.0
SCRAPES = [1.0 + 5 * i for i in range(12)]          # 1, 6, ..., 56
LABELS = {"__name__": "callscope_subscriber_video_received_packets_total", "job": "bob", "stream": "1"}


def series(times, value=lambda t: t * 10):
    return [(t, float(value(t))) for t in times]


def verdict(samples, counter=True, labels=LABELS):
    return check_series(labels, samples, START, END, INTERVAL, counter)


class CheckSeriesTests(unittest.TestCase):
    def test_every_scrape_present(self):
        v = verdict(series(SCRAPES))
        self.assertTrue(v.continuous, v.problems)
        self.assertEqual((v.expected, v.seen), (12, 12))
        # Edges: 0 -> 1 is 1 s, 56 -> 60 is 4 s; between scrapes 5 s.
        self.assertEqual((v.longest_gap, v.leading, v.trailing, v.missed_scrapes), (5.0, 1.0, 4.0, 0))
        self.assertEqual(v.decreases, [])
        self.assertEqual(v.values, (10.0, 310.0, 560.0))      # min, the 7th of 12 (t = 31), max

    def test_one_missed_scrape_is_allowed(self):
        v = verdict(series([t for t in SCRAPES if t != 26]))
        self.assertTrue(v.continuous, v.problems)
        self.assertEqual((v.seen, v.longest_gap, v.longest_gap_at, v.missed_scrapes), (11, 10.0, 21.0, 1))

    def test_two_missed_scrapes_in_a_row_are_a_gap(self):
        v = verdict(series([t for t in SCRAPES if t not in (26, 31)]))
        self.assertFalse(v.continuous)
        self.assertEqual((v.seen, v.longest_gap, v.missed_scrapes), (10, 15.0, 2))
        self.assertEqual(v.problems, ["gap of 15.0 s (3.0 intervals) at 21.0"])

    def test_jitter_allowance_is_half_an_interval(self):
        # Limit (2 + 0.5) x 5 = 12.5 s: 21 -> 33.4 (12.4 s) passes, 21 -> 33.6 (12.6 s) does not.
        base = [t for t in SCRAPES if t not in (26, 31)]
        self.assertTrue(verdict(series(sorted(base + [33.4]))).continuous)
        self.assertFalse(verdict(series(sorted(base + [33.6]))).continuous)

    def test_late_first_sample_is_a_gap_from_the_start(self):
        v = verdict(series([t for t in SCRAPES if t > 12]))      # first at 16: 16 s without a sample
        self.assertEqual((v.leading, v.longest_gap), (16.0, 16.0))
        self.assertEqual(v.problems, ["gap of 16.0 s (3.2 intervals) from the window's start"])

    def test_early_last_sample_is_a_gap_to_the_end(self):
        v = verdict(series([t for t in SCRAPES if t < 45]))      # last at 41: 19 s to the end
        self.assertEqual((v.trailing, v.seen), (19.0, 9))
        self.assertEqual(v.problems, ["gap of 19.0 s (3.8 intervals) to the window's end"])

    def test_samples_outside_the_window_do_not_count(self):
        v = verdict(series([-4.0, *SCRAPES, 64.0]))
        self.assertEqual((v.seen, v.leading, v.trailing), (12, 1.0, 4.0))

    def test_a_counter_that_decreases(self):
        # 10, 60, 110, then 50 at t = 21 (a reset), then growing again from there.
        v = verdict(series(SCRAPES, lambda t: t * 10 if t < 20 else (t - 16) * 10))
        self.assertFalse(v.continuous)
        self.assertEqual(v.decreases, [(21.0, 160.0, 50.0)])
        self.assertEqual(v.problems, ["counter decreased 1 times (first at 21.0: 160 -> 50)"])

    def test_a_flat_counter_is_not_a_decrease(self):
        self.assertTrue(verdict(series(SCRAPES, lambda t: 7)).continuous)

    def test_a_gauge_may_go_down(self):
        v = verdict(series(SCRAPES, lambda t: 60 - t), counter=False)
        self.assertTrue(v.continuous, v.problems)
        self.assertEqual(v.decreases, [])

    def test_age_of_the_newest_stats_sample(self):
        # The served sample time lags each scrape by 0.3 s, except at t = 31 (2.3 s: a late sample).
        newest = {"__name__": "callscope_last_sample_timestamp_seconds", "job": "bob"}
        samples = [(t, t - (2.3 if t == 31 else 0.3)) for t in SCRAPES]
        v = check_series(newest, samples, START, END, INTERVAL, False)
        self.assertEqual((round(v.ages[0], 6), round(v.ages[1], 6)), (0.3, 2.3))
        self.assertIsNone(verdict(series(SCRAPES)).ages)          # any other series: no age

    def test_no_sample_at_all(self):
        v = verdict([])
        self.assertEqual((v.seen, v.longest_gap, v.values), (0, 60.0, None))
        self.assertEqual(v.problems, ["no sample in the window"])


class IdentityTests(unittest.TestCase):
    def test_a_stream_id_that_changes_halfway(self):
        # Stream 1 until 26, stream 2 from 31: each misses half the window (34 s and 31 s).
        first = verdict(series([t for t in SCRAPES if t <= 26]), labels={**LABELS, "stream": "1"})
        second = verdict(series([t for t in SCRAPES if t >= 31]), labels={**LABELS, "stream": "2"})
        self.assertEqual((first.trailing, second.leading), (34.0, 31.0))
        problems = identity_problems([first, second], START, END, INTERVAL)
        self.assertEqual(len(problems), 2)
        self.assertIn('stream="1"', problems[0])
        self.assertIn('stream="2"', problems[1])

    def test_an_inner_gap_is_not_an_identity_change(self):
        v = verdict(series([t for t in SCRAPES if t not in (26, 31, 36)]))
        self.assertFalse(v.continuous)
        self.assertEqual(identity_problems([v], START, END, INTERVAL), [])


class FakePrometheus:
    """Answers the three queries check_metric asks, from canned series."""

    def __init__(self, samples, count, resets):
        self.samples, self.count, self.resets = samples, count, resets
        self.asked = []

    def query(self, expression, at):
        self.asked.append((expression, at))
        labels = {k: v for k, v in LABELS.items() if k != "__name__"}
        if expression.startswith("count_over_time("):
            return [{"metric": labels, "value": [at, str(self.count)]}]
        if expression.startswith("resets("):
            return [{"metric": labels, "value": [at, str(self.resets)]}]
        return [{"metric": LABELS, "values": [[t, str(v)] for t, v in self.samples]}]


class CheckMetricTests(unittest.TestCase):
    def test_agreeing_prometheus(self):
        fake = FakePrometheus(series(SCRAPES), count=12, resets=0)
        report = check_metric(fake, LABELS["__name__"], "bob", START, END, INTERVAL)
        self.assertTrue(report.continuous, report.problems)
        # A 61 s window (60 s rounded up, plus one) read at the window's end.
        self.assertEqual(fake.asked[0], ('callscope_subscriber_video_received_packets_total{job="bob"}[61s]', END))

    def test_prometheus_counting_otherwise_or_seeing_a_reset(self):
        report = check_metric(FakePrometheus(series(SCRAPES), count=14, resets=1), LABELS["__name__"], "bob",
                              START, END, INTERVAL)
        self.assertFalse(report.continuous)
        self.assertEqual(len(report.problems), 2)
        self.assertIn("count_over_time 14, read 12", report.problems[0])
        self.assertIn("resets() = 1", report.problems[1])

    def test_no_series(self):
        class Empty:
            def query(self, expression, at):
                return []
        report = check_metric(Empty(), "up", "bob", START, END, INTERVAL)
        self.assertEqual(report.problems, ['up{job="bob"}: no series in Prometheus'])


if __name__ == "__main__":
    unittest.main()
