#!/usr/bin/env python3
"""Tests of the rig package's parts that need no root, browser or server (Rig/callscope_rig):
which veth end each impairment uses, the recorder's addressing plan, template filling, the
recording writer and the Y4M writer. Expected values written out by hand from Rig/README.md.
Standard library only:

    python3 Rig/test_package.py
"""
import base64
import gzip
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callscope_rig import janus, netlab, pages, procs, recording  # noqa: E402


class ImpairmentEndTests(unittest.TestCase):
    """Rig/README.md, Scenarios: rate on the sending end, loss/blackout at the receiving end."""

    def setUp(self):
        self.imp = netlab.Impairments(netlab.network_plan(["publisher-a", "publisher-b"]), ["publisher-a", "publisher-b"])

    def test_plan(self):
        plan = netlab.network_plan(["publisher-a", "publisher-b"])
        self.assertEqual([(p, l.ns, l.root_if, l.ns_if, l.root_ip, l.ns_ip) for p, l in plan.items()], [
            ("publisher-a", "csrig-pub", "csrig-pub0", "csrig-pub1", "10.201.1.1", "10.201.1.2"),
            ("publisher-b", "csrig-pub2", "csrig-pub20", "csrig-pub21", "10.201.3.1", "10.201.3.2"),
            ("subscriber", "csrig-sub", "csrig-sub0", "csrig-sub1", "10.201.2.1", "10.201.2.2")])

    def test_rate_is_on_the_sending_end(self):
        self.assertEqual(self.imp.sending_end({"side": "publisher-uplink"}), ("csrig-pub", "csrig-pub1"))
        self.assertEqual(self.imp.sending_end({"side": "publisher-uplink", "publisher": "publisher-b"}),
                         ("csrig-pub2", "csrig-pub21"))
        self.assertEqual(self.imp.sending_end({"side": "subscriber-downlink"}), (None, "csrig-sub0"))
        self.assertEqual(self.imp.sending_end({"side": "publisher-downlink"}), (None, "csrig-pub0"))

    def test_drops_are_at_the_receiving_end(self):
        self.assertEqual(self.imp.receiving_end({"side": "publisher-uplink"}), (None, "csrig-pub0"))
        self.assertEqual(self.imp.receiving_end({"side": "subscriber-downlink"}), ("csrig-sub", "csrig-sub1"))
        self.assertEqual(self.imp.receiving_end({"side": "subscriber-uplink"}), (None, "csrig-sub0"))

    def test_drop_rules(self):
        self.assertEqual(self.imp._drop_rule(3, {"side": "subscriber-downlink", "kind": "loss", "value": 0.1}),
                         ["INPUT", "-i", "csrig-sub1", "-m", "statistic", "--mode", "random", "--probability", "0.1000",
                          "-m", "comment", "--comment", "csrig-3", "-j", "DROP"])
        self.assertEqual(self.imp._drop_rule(0, {"side": "publisher-uplink", "kind": "blackout", "value": 1}),
                         ["INPUT", "-i", "csrig-pub0", "-m", "comment", "--comment", "csrig-0", "-j", "DROP"])

    def test_nsx(self):
        self.assertEqual(netlab.nsx(None), [])
        self.assertEqual(netlab.nsx("csrig-sub"), ["ip", "netns", "exec", "csrig-sub"])


class FillTests(unittest.TestCase):
    def test_fills_and_names_what_is_left(self):
        self.assertEqual(janus.fill("port = @@HTTP_PORT@@ # @@...@@", {"HTTP_PORT": 8088}, "@@"), "port = 8088 # @@...@@")
        with self.assertRaisesRegex(procs.RigError, "@RELAY_IP@"):
            janus.fill("listening-ip=@LISTEN_IP@\nrelay-ip=@RELAY_IP@", {"LISTEN_IP": "10.0.0.1"}, "@")

    def test_the_repository_templates_are_filled_completely(self):
        rig = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(rig, "coturn", "turnserver.conf")) as f:
            janus.fill(f.read(), {k: "x" for k in ("LISTEN_IP", "RELAY_IP", "PORT", "MIN_PORT", "MAX_PORT", "REALM",
                                                   "USER", "PASSWORD", "RUN_DIR")}, "@")
        for name in os.listdir(os.path.join(rig, "janus")):
            with open(os.path.join(rig, "janus", name)) as f:
                janus.fill(f.read(), {k: "x" for k in ("CONFIGS_FOLDER", "RTP_PORT_RANGE", "ICE_ENFORCE_LIST",
                                                       "HTTP_PORT", "HTTP_IP")}, "@@")


class RecordingTests(unittest.TestCase):
    def test_round_trip_and_same_bytes(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "x.ndjson.gz")
            lines = [{"t": 2, "peer": "publisher", "pc": "pub-1", "report": []},
                     recording.event("rig", "impairment-start", {"index": 0}, t=3)]
            recording.write(path, {"scenario": "x"}, lines)
            with open(path, "rb") as f:
                first = f.read()
            recording.write(path, {"scenario": "x"}, lines)
            with open(path, "rb") as f:
                self.assertEqual(f.read(), first)          # gzip -9 -n: no name, mtime 0
            self.assertEqual(gzip.decompress(first).decode().splitlines()[2],
                             '{"t":3,"peer":"rig","event":"impairment-start","data":{"index":0}}')
            back = recording.read(path)
            self.assertEqual(back[0], {"scenario": "x", "format": "webrtc-stats-recording", "version": 1})
            self.assertEqual(back[1:], lines)
            self.assertFalse(os.path.exists(path + ".part"))

    def test_labels_path(self):
        self.assertEqual(recording.labels_path("R/a.ndjson.gz"), "R/a.labels.json")
        self.assertEqual(recording.labels_path("R/a.ndjson"), "R/a.labels.json")


class Y4MTests(unittest.TestCase):
    def test_header_frames_and_timestamps(self):
        frame = bytes(range(4 * 2 + 2 * 2 * 1))           # 4x2 I420: 8 luma + 2 x (2x1) chroma
        got = {"width": 4, "height": 2, "frames": [base64.b64encode(frame).decode()] * 2, "rtpTimestamps": [90, 3090],
               "colorSpace": {"fullRange": False, "matrix": "smpte170m"}}
        data = pages.y4m(got, 30)
        self.assertTrue(data.startswith(b"YUV4MPEG2 W4 H2 F30:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED "
                                        b"XWEBCODECS_MATRIX=smpte170m\nFRAME XRTP=90\n" + frame + b"FRAME XRTP=3090\n"))
        got["frames"][1] = base64.b64encode(frame[:-1]).decode()
        with self.assertRaisesRegex(procs.RigError, "11 bytes"):
            pages.y4m(got, 30)


if __name__ == "__main__":
    unittest.main()
