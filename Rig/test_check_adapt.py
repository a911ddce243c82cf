#!/usr/bin/env python3
"""Tests of Rig/check_adapt.py on hand-written recording lines: a 40 s call, cap 10-25 s, one
subscriber connection reporting once per second. Expected values counted by hand. Standard
library only:

    python3 Rig/test_check_adapt.py
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_adapt  # noqa: E402

T0 = 1_000_000
ONSET, REMOVAL = 10, 25


def call(video_fps, audio_lost=lambda s: 0, events=()):
    """Lines of a 40 s call: per second s the subscriber decoded `video_fps(s)` frames and lost
    `audio_lost(s)` of 50 audio packets; `events`: (second, name, data)."""
    lines = [{"t": T0 + ONSET * 1000, "peer": "rig", "event": "impairment-start", "data": {"index": 0}},
             {"t": T0 + REMOVAL * 1000, "peer": "rig", "event": "impairment-end", "data": {"index": 0}}]
    frames = lost = received = 0
    for s in range(40):
        if s:
            frames += video_fps(s)
            lost += audio_lost(s)
            received += 50 - audio_lost(s)
        lines.append({"t": T0 + s * 1000 + 100, "peer": "subscriber", "pc": "sub-1", "report": [
            {"type": "inbound-rtp", "kind": "video", "framesDecoded": frames},
            {"type": "inbound-rtp", "kind": "audio", "packetsLost": lost, "packetsReceived": received}]})
    for s, name, data in events:
        lines.append({"t": T0 + int(s * 1000), "peer": "subscriber", "event": name, "data": dict(data, stream="1")})
    return sorted(lines, key=lambda l: l["t"])


class CheckAdaptTests(unittest.TestCase):
    def test_frames_again_counts_the_seconds_from_onset_plus_5(self):
        # Seconds 15..24 are the window (10 s). Frames in all but 24: 9/10 = 90 % passes.
        facts, failures = check_adapt.check(call(lambda s: 0 if s == 24 else 30), T0, "frames-again")
        self.assertEqual(failures, [])
        self.assertIn("onset+5 s to the cap's end: video decoded in 9/10 s, audio loss 0.0 %", facts)
        # Frames in 8/10 (23 and 24 without): fails.
        _, failures = check_adapt.check(call(lambda s: 0 if s in (23, 24) else 30), T0, "frames-again")
        self.assertEqual(failures, ["video decoded in 8/10 s from onset+5 s (< 90 %)"])

    def test_disabled_needs_the_event_audio_and_reenable(self):
        ok = [(12.0, "subscriber.videoDisabled", {"reason": "qualityChanged"}),
              (33.0, "subscriber.videoEnabled", {"reason": "qualityChanged"})]
        # 5 of 50 audio packets lost in each window second: 10.0 %, at the bound, passes; the
        # onset burst (second 11, all lost) is outside the window.
        audio = lambda s: 50 if s == 11 else (5 if 15 <= s < 25 else 0)
        facts, failures = check_adapt.check(call(lambda s: 0 if 12 <= s < 33 else 30, audio, ok), T0, "disabled")
        self.assertEqual(failures, [])
        self.assertIn("video decoded again 8.0 s after the cap's removal", facts)
        late = [(16.0, "subscriber.videoDisabled", {"reason": "qualityChanged"}),
                (41.0, "subscriber.videoEnabled", {"reason": "qualityChanged"})]
        _, failures = check_adapt.check(call(lambda s: 30, lambda s: 6 if 15 <= s < 25 else 0, late), T0, "disabled")
        self.assertEqual(failures, [
            "videoDisabled(qualityChanged) at 16.0 s, not within 5 s of the onset 10.0 s",
            "audio loss 12.0 % from onset+5 s (> 10 %)",
            "videoEnabled at 41.0 s, not within 15 s of the removal 25.0 s"])
        # Another reason does not count.
        other = [(12.0, "subscriber.videoDisabled", {"reason": "subscriberPropertyChanged"})]
        _, failures = check_adapt.check(call(lambda s: 30, events=other), T0, "disabled")
        self.assertIn("videoDisabled(qualityChanged) never, not within 5 s of the onset 10.0 s", failures)

    def test_warned_forbids_disabling(self):
        warned = [(12.0, "subscriber.videoDisableWarning", {})]
        self.assertEqual(check_adapt.check(call(lambda s: 30, events=warned), T0, "warned")[1], [])
        both = warned + [(14.0, "subscriber.videoDisabled", {"reason": "qualityChanged"})]
        self.assertEqual(check_adapt.check(call(lambda s: 30, events=both), T0, "warned")[1],
                         ["video was disabled although the publisher disallows audio fallback"])
        self.assertEqual(check_adapt.check(call(lambda s: 30), T0, "warned")[1], ["no videoDisableWarning during the cap"])

    def test_no_cap_or_unknown_expectation_fails(self):
        lines = [l for l in call(lambda s: 30) if l.get("peer") != "rig"]
        self.assertEqual(check_adapt.check(lines, T0, "frames-again")[1],
                         ["no impairment-start/impairment-end from the rig"])
        self.assertEqual(check_adapt.check(call(lambda s: 30), T0, "sometimes")[1],
                         ["unknown video_expect 'sometimes' (frames-again, disabled, warned)"])


if __name__ == "__main__":
    unittest.main()
