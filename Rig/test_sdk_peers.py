#!/usr/bin/env python3
"""Tests of Rig/callscope_rig/peers.py's merge (the SDK path's relabelling), on hand-written `callscope call
--record` files: two publishers (`publisher-a`, `publisher-b`, Janus ids 111 and 222) and a
subscriber with one connection per feed, `publisher-a`'s replaced once (a reconnect). Expected
labels written out by hand from Rig/README.md ("The SDK path"). Standard library only:

    python3 Rig/test_sdk_peers.py
"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callscope_rig import peers  # noqa: E402

T0 = 1_000_000


def header(publishers):
    return {"format": "webrtc-stats-recording", "version": 1, "scenario": "callscope-call",
            "browser": "Chromium 156.0.1", "sfu": "janus 1.1.2", "interval_ms": 1000, "publishers": publishers}


def report(t, kind):
    return [{"id": "X", "type": kind, "timestamp": t}]


class MergeTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        self.pubs = [peers.SDKPeer("publisher-a", "csrig-pub", d), peers.SDKPeer("publisher-b", "csrig-pub2", d)]
        self.sub = peers.SDKPeer("subscriber", "csrig-sub", d)
        own = lambda n, i: {"publisher": i, "stream": i, "name": n, "own": True}
        self.write(self.pubs[0], header([own("publisher-a", "111")]), [
            {"t": T0 - 500, "peer": "publisher-a.publisher", "pc": "pc-1", "report": report(T0 - 500, "outbound-rtp")},
            {"t": T0 - 400, "peer": "publisher-a", "event": "publisher.streamCreated", "data": {"streamId": "111"}},
            {"t": T0 + 500, "peer": "publisher-a.publisher", "pc": "pc-1", "report": report(T0 + 500, "outbound-rtp")},
        ])
        self.write(self.pubs[1], header([own("publisher-b", "222")]), [
            {"t": T0 + 600, "peer": "publisher-b.publisher", "pc": "pc-1", "report": report(T0 + 600, "outbound-rtp")},
        ])
        other = lambda n, i: {"publisher": i, "stream": i, "name": n, "own": False}
        binding = lambda pc, i: {"t": T0 - 100, "peer": "subscriber", "pc": pc, "event": "subscriber-streams",
                                 "data": {"streams": [{"publisher": i, "stream": i}]}}
        self.write(self.sub, header([other("publisher-a", "111"), other("publisher-b", "222")]), [
            binding("pc-1", "111"),
            {"t": T0 - 50, "peer": "subscriber", "pc": "pc-1", "report": report(T0 - 50, "inbound-rtp")},
            binding("pc-2", "222"),
            {"t": T0 + 100, "peer": "subscriber", "pc": "pc-1", "report": report(T0 + 100, "inbound-rtp")},
            {"t": T0 + 150, "peer": "subscriber", "pc": "pc-2", "event": "sender-stats",
             "data": {"type": "callscope-sender-stats", "v": 2, "seq": 1, "publisher": "222"}},
            {"t": T0 + 160, "peer": "subscriber", "pc": "pc-1", "event": "sender-stats",
             "data": {"type": "callscope-sender-stats", "v": 2, "seq": 1}},
            {"t": T0 + 200, "peer": "subscriber", "event": "subscriber.didDisconnect", "data": {"stream": "111"}},
            binding("pc-3", "111"),
            {"t": T0 + 300, "peer": "subscriber", "pc": "pc-3", "report": report(T0 + 300, "inbound-rtp")},
            {"t": T0 + 310, "peer": "subscriber", "pc": "pc-2", "report": report(T0 + 310, "inbound-rtp")},
        ])

    def tearDown(self):
        self.dir.cleanup()

    @staticmethod
    def write(peer, head, lines):
        with open(peer.record_path, "w") as f:
            for line in [head] + lines:
                f.write(json.dumps(line) + "\n")

    def test_relabels_peers_connections_and_publishers(self):
        lines, facts = peers.merge(self.pubs, self.sub, T0)
        samples = [(l["peer"], l["pc"], l["t"]) for l in lines if "report" in l]
        # Samples before t0 are left out (publisher-a's at -500, the subscriber's at -50).
        self.assertEqual(samples, [("publisher-a", "pub-1", T0 + 500), ("publisher-b", "pub-1", T0 + 600),
                                   ("subscriber", "sub-a", T0 + 100), ("subscriber", "sub-a2", T0 + 300),
                                   ("subscriber", "sub-b", T0 + 310)])
        bindings = [(l["pc"], l["data"]["streams"]) for l in lines if l.get("event") == "subscriber-streams"]
        self.assertEqual(bindings, [("sub-a", [{"publisher": "publisher-a", "stream": "publisher-a"}]),
                                    ("sub-b", [{"publisher": "publisher-b", "stream": "publisher-b"}]),
                                    ("sub-a2", [{"publisher": "publisher-a", "stream": "publisher-a"}])])
        stats = [(l["pc"], l["data"].get("publisher"), l["data"]["seq"]) for l in lines if l.get("event") == "sender-stats"]
        # A named message gets the label; an unnamed one stays unnamed (its connection tells).
        self.assertEqual(stats, [("sub-b", "publisher-b", 1), ("sub-a", None, 1)])
        events = [(l["peer"], l["event"], l["t"]) for l in lines if l.get("event", "").startswith(("publisher.", "subscriber."))]
        # Events keep their own time, also before t0, and their data as recorded.
        self.assertEqual(events, [("publisher-a", "publisher.streamCreated", T0 - 400),
                                  ("subscriber", "subscriber.didDisconnect", T0 + 200)])
        self.assertEqual(facts["browser"], "Chromium 156.0.1")
        self.assertEqual(facts["janus_ids"], {"publisher-a": "111", "publisher-b": "222"})

    def test_policy_events_name_the_relabelled_stream(self):
        # The replay applies a policy event's limit to the stream its data names: the binding's
        # (relabelled) name, not the Janus id; other lifecycle events keep their data.
        self.write(self.sub, header([{"publisher": "111", "stream": "111", "name": "publisher", "own": False}]), [
            {"t": T0, "peer": "subscriber", "pc": "pc-4", "event": "subscriber-streams",
             "data": {"streams": [{"publisher": "111", "stream": "111"}]}},
            {"t": T0 + 1, "peer": "subscriber", "event": "subscriber.layerChanged",
             "data": {"substream": 1, "temporal": 2, "limit": "downlink", "stream": "111"}},
            {"t": T0 + 2, "peer": "subscriber", "event": "subscriber.videoDisabled",
             "data": {"reason": "qualityChanged", "stream": "111"}},
            {"t": T0 + 3, "peer": "subscriber", "event": "subscriber.didConnect", "data": {"stream": "111"}},
            {"t": T0 + 4, "peer": "subscriber", "event": "subscriber.videoEnabled",
             "data": {"reason": "qualityChanged", "stream": "999"}},
            {"t": T0 + 5, "peer": "subscriber", "pc": "pc-4", "event": "subscriber.receiveLimit",
             "data": {"limit": "downlink", "stream": "111"}},
        ])
        pub = peers.SDKPeer("publisher", "csrig-pub", self.dir.name)
        self.write(pub, header([]), [])
        lines, _ = peers.merge([pub], self.sub, T0)
        named = [(l["event"], l["data"].get("stream")) for l in lines if l.get("event", "").startswith("subscriber.")]
        self.assertEqual(named, [("subscriber.layerChanged", "publisher"), ("subscriber.videoDisabled", "publisher"),
                                 ("subscriber.didConnect", "111"), ("subscriber.videoEnabled", "999"),
                                 ("subscriber.receiveLimit", "publisher")])
        self.assertEqual(lines[1]["data"]["limit"], "downlink")
        self.assertEqual([l.get("pc") for l in lines if l.get("event") in ("subscriber-streams", "subscriber.receiveLimit")], ["sub-1", "sub-1"])

    def test_one_publisher_numbers_connections(self):
        self.write(self.sub, header([{"publisher": "111", "stream": "111", "name": "publisher", "own": False}]), [
            {"t": T0, "peer": "subscriber", "pc": "pc-4", "event": "subscriber-streams",
             "data": {"streams": [{"publisher": "111", "stream": "111"}]}},
            {"t": T0 + 1, "peer": "subscriber", "pc": "pc-4", "report": report(T0 + 1, "inbound-rtp")},
            {"t": T0 + 2, "peer": "subscriber", "pc": "pc-9", "report": report(T0 + 2, "inbound-rtp")},
        ])
        pub = peers.SDKPeer("publisher", "csrig-pub", self.dir.name)
        self.write(pub, header([]), [])
        lines, _ = peers.merge([pub], self.sub, T0)
        self.assertEqual([(l["pc"], l.get("data", {}).get("streams")) for l in lines],
                         [("sub-1", [{"publisher": "publisher", "stream": "publisher"}]), ("sub-1", None), ("sub-2", None)])

    def test_a_missing_or_foreign_recording_is_an_error(self):
        os.remove(self.sub.record_path)
        with self.assertRaisesRegex(peers.SDKPeerError, "cannot read the SDK recording"):
            peers.merge(self.pubs, self.sub, T0)
        with open(self.sub.record_path, "w") as f:
            f.write('{"format":"something-else"}\n')
        with self.assertRaisesRegex(peers.SDKPeerError, "not a webrtc-stats-recording"):
            peers.merge(self.pubs, self.sub, T0)

    def test_the_binary_is_found_or_named(self):
        with self.assertRaisesRegex(peers.SDKPeerError, "swift build -c release --product callscope"):
            peers.find_callscope(self.dir.name, None)
        with self.assertRaisesRegex(peers.SDKPeerError, "--callscope PATH"):
            peers.find_callscope(self.dir.name, os.path.join(self.dir.name, "nope"))

    def test_argv_runs_in_the_namespace(self):
        argv = self.pubs[0].argv("/bin/callscope", "http://10.201.1.1:8/janus", 1234, True, ["--width", "640"])
        self.assertEqual(argv[:5], ["ip", "netns", "exec", "csrig-pub", "/bin/callscope"])
        self.assertIn("--publish", argv)
        self.assertEqual(argv[argv.index("--display") + 1], "publisher-a")
        self.assertEqual(argv[-2:], ["--width", "640"])
        self.assertEqual(self.sub.argv("/bin/callscope", "u", 1234, False, ["--width", "640"])[-2:], ["--subscribe", "all"])


class ScenarioArgsTests(unittest.TestCase):
    """The scenario's `subscriber_args` / `publisher_args` (Rig/README.md, "The SDK path")."""

    PUBS = ["publisher-a", "publisher-b"]

    def test_peer_args_per_peer(self):
        sc = {"subscriber_args": ["--preferred-resolution", "480x270"], "publisher_args": ["--x"]}
        self.assertEqual(peers.peer_args(sc, "subscriber"), ["--preferred-resolution", "480x270"])
        self.assertEqual(peers.peer_args(sc, "publisher-b"), ["--x"])      # a list: every publisher
        sc = {"publisher_args": {"publisher-b": ["--y"]}}
        self.assertEqual(peers.peer_args(sc, "publisher-a"), [])
        self.assertEqual(peers.peer_args(sc, "publisher-b"), ["--y"])
        self.assertEqual(peers.peer_args(sc, "subscriber"), [])

    def test_malformed_args_are_named(self):
        err = lambda sc: peers.scenario_args_error(sc, self.PUBS)
        self.assertIsNone(err({}))
        self.assertIsNone(err({"subscriber_args": ["--a", "1"], "publisher_args": {"publisher-a": []}}))
        self.assertIn("subscriber_args", err({"subscriber_args": "--no-audio-fallback"}))
        self.assertIn("subscriber_args", err({"subscriber_args": ["--preferred-frame-rate", 15]}))
        self.assertIn("'publisher-c'", err({"publisher_args": {"publisher-c": ["--a"]}}))
        self.assertIn("publisher_args['publisher-a']", err({"publisher_args": {"publisher-a": "--a"}}))
        self.assertIn("publisher_args", err({"publisher_args": 3}))

    def test_argv_appends_the_scenario_args_last(self):
        peer = peers.SDKPeer("subscriber", None, "/tmp")
        argv = peer.argv("/bin/callscope", "u", 1234, False, [], ["--no-audio-fallback"])
        self.assertEqual(argv[0], "/bin/callscope")                              # no namespace
        self.assertEqual(argv[-3:], ["--subscribe", "all", "--no-audio-fallback"])

    def test_unknown_options_against_the_help_text(self):
        help_text = ("usage: callscope call --janus URL [--preferred-resolution WxH] [--no-audio-fallback]\n"
                     "  --record PATH  write the recording\n")
        args = ["--preferred-resolution", "480x270", "--no-audio-fallback", "--publisher-no-audio-fallback", "7"]
        # Values (480x270, 7) are not options; only the option the help lacks is named.
        self.assertEqual(peers.unknown_options(help_text, args), ["--publisher-no-audio-fallback"])
        self.assertEqual(peers.unknown_options(help_text, ["--record", "x"]), [])
        # A prefix of a known option is not that option.
        self.assertEqual(peers.unknown_options(help_text, ["--no-audio"]), ["--no-audio"])


if __name__ == "__main__":
    unittest.main()
