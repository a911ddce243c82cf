#!/usr/bin/env python3
"""CallScope real-call recording rig.

One command records a real routed call (headless Chromium -> Janus VideoRoom -> headless
Chromium) as a `webrtc-stats-recording` (see docs/spec/recording-format.md):

    python3 Rig/record.py --seconds 40 --out Recordings/baseline-simulcast.ndjson.gz
    python3 Rig/record.py --scenario Rig/scenarios/publisher-uplink-400k.json \
        --out Recordings/publisher-uplink-400k.ndjson.gz

It starts Janus (config from Rig/janus, copied to a temp dir with free ports filled in) and the
peers. On the SDK path (default) each peer is a `callscope call --record` process
(callscope_rig.peers) and their recordings are merged into the rig's at the end; on the page path
(--webrtc-internals, --frames, multistream, --peers page) a small HTTP server for Rig/web and one
chromedriver + headless Chromium per peer (callscope_rig.pages), whose getStats() the rig samples
once per second. It writes the gzip NDJSON recording.
With a scenario (or --netns), publisher and subscriber each run in their own network namespace
joined to the root namespace by a veth pair (callscope_rig.netlab); Janus stays in the root
namespace and the scenario's impairments are applied with `tc qdisc tbf` (rate) and iptables
`statistic` (loss, blackout) on the right side of the right veth.

Python 3.11, stdlib only. Must run as root for --netns/--scenario. Every process it starts is
ended by pid (process group) on success, failure, SIGINT/SIGTERM/SIGHUP; every namespace, veth
and iptables rule it made is deleted; stale ones from an interrupted run are removed first
(pidfile under /tmp/callscope-rig).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import urllib.parse

import labels  # Rig/labels.py (this script's directory is on sys.path)
from callscope_rig import REPO_DIR, netlab, pages, peers, procs, recording
from callscope_rig.janus import Janus
from callscope_rig.procs import RigError, log
from callscope_rig.webdriver import WebDriverError

STATE_DIR = "/tmp/callscope-rig"
PIDFILE = os.path.join(STATE_DIR, "pids.json")
ROOM = 1234
SUBSCRIBER_CONNECTIONS = ("per-feed", "multistream")


def cleanup_stale() -> None:
    """End what an earlier run left: the processes of its pidfile (pid + start time checked),
    every `csrig-*` network object; keep the run dirs (logs of failed runs) of the last 3 runs
    only. RigError while another record.py is alive."""
    old = procs.PidBook.read(PIDFILE)
    owner = old.get("owner_pid")
    if owner and owner != os.getpid() and procs.proc_starttime(owner) and _is_record_py(owner):
        raise RigError(f"another record.py (pid {owner}) is still running; stop it first")
    procs.PidBook.end_stale_processes(old)
    netlab.cleanup_network_objects()          # recognised by name prefix; only the rig uses it
    with contextlib.suppress(OSError):
        runs = sorted((os.path.join(STATE_DIR, d) for d in os.listdir(STATE_DIR) if d.startswith("run-")),
                      key=os.path.getmtime)
        for d in runs[:-3]:
            shutil.rmtree(d, ignore_errors=True)
    with contextlib.suppress(OSError):
        os.remove(PIDFILE)


def _is_record_py(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"record.py" in f.read()
    except OSError:
        return False


class Rig:
    def __init__(self, args):
        self.args = args
        self.book = procs.PidBook(PIDFILE)
        os.makedirs(STATE_DIR, exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix="run-", dir=STATE_DIR)
        self.procs = procs.Processes(self.book)
        self.netlab: netlab.NetLab | None = None
        self.impair = netlab.Impairments()
        self.janus = Janus(self.procs, self.tmp)
        self.page_server: pages.PageServer | None = None
        self.peers: dict[str, pages.PagePeer] = {}
        self.sdk_peers: dict[str, peers.SDKPeer] = {}
        self.sdk = False
        self.peer_args: dict[str, list[str]] = {}   # the scenario's extra `callscope call` options per peer
        self.lines: list[dict] = []                 # the recording's lines after the header
        self.header: dict = {}

    # ---- scenario
    def load_scenario(self) -> dict:
        if not self.args.scenario:
            return {"name": self.args.name or "baseline-simulcast", "steps": []}
        with open(self.args.scenario) as f:
            sc = json.load(f)
        sc.setdefault("name", os.path.splitext(os.path.basename(self.args.scenario))[0])
        n = sc.get("publishers", 1)
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 5:
            raise RigError(f"bad publishers {n!r} (1 to 5; the room takes 6)")
        if sc.get("subscriber_connections", "per-feed") not in SUBSCRIBER_CONNECTIONS:
            raise RigError(f"bad subscriber_connections {sc.get('subscriber_connections')!r} "
                           f"(one of {', '.join(SUBSCRIBER_CONNECTIONS)})")
        names = labels.publisher_labels(n)
        why = peers.scenario_args_error(sc, names)
        if why:
            raise RigError(f"bad scenario: {why}")
        for s in sc.get("steps", []):
            if s["side"] not in netlab.Impairments.SIDES:
                raise RigError(f"bad side {s['side']}")
            if s["kind"] not in ("rate", "loss", "blackout"):
                raise RigError(f"bad kind {s['kind']}")
            if "publisher" in s and (not s["side"].startswith("publisher-") or s["publisher"] not in names):
                raise RigError(f"bad publisher {s['publisher']!r} for side {s['side']} (publishers: {', '.join(names)})")
        return sc

    # ---- main flow
    def record(self) -> None:
        a = self.args
        scenario = self.load_scenario()
        use_netns = a.network == "netns"
        if scenario.get("steps") and not use_netns:
            raise RigError("impairment scenarios need --network netns")
        seconds = a.seconds if a.seconds else scenario.get("seconds", 40)
        publishers = labels.publisher_labels(scenario.get("publishers", 1))
        connections = scenario.get("subscriber_connections", "per-feed")
        # Camera size and layer caps: command line, else the scenario, else 960x540 and 150k/500k/1.5M.
        a.width = a.width or scenario.get("width", 960)
        a.height = a.height or scenario.get("height", 540)
        a.bitrates = a.bitrates or scenario.get("bitrates", "150000,500000,1500000")
        self.peer_args = {n: peers.peer_args(scenario, n) for n in publishers + ["subscriber"]}
        self.sdk = self.use_sdk_path(connections, any(self.peer_args.values()))
        callscope = None
        if self.sdk:
            try:
                callscope = peers.find_callscope(REPO_DIR, a.callscope)
                peers.check_options(callscope, peers.RIG_CALL_OPTIONS +
                                    [x for v in self.peer_args.values() for x in v])
            except peers.SDKPeerError as e:
                raise RigError(str(e)) from None
        log("peers: " + (f"`callscope call` ({callscope})" if self.sdk else "Rig/web/call.js pages"))
        nets = netlab.network_plan(publishers)
        self.impair = netlab.Impairments(nets, publishers)
        if use_netns:
            self.netlab = netlab.NetLab(self.book, nets)
            self.netlab.setup()
            bind_ip = nets[publishers[0]].root_ip
            ice_list = ",".join(n.root_if for n in nets.values())
        else:
            bind_ip, ice_list = "127.0.0.1", "lo"
        janus_url = self.janus.start(bind_ip, ice_list, a.janus_debug)
        if self.sdk:
            warmup = self.start_sdk_peers(callscope, publishers, nets, use_netns, janus_url)
            browser = "Chromium (from the SDK recordings)"
        else:
            browser, warmup, sub, ipeer = self.start_page_peers(publishers, connections, nets, use_netns, janus_url)
        self.write_header(scenario, seconds, publishers, connections, use_netns, browser, warmup)
        self.sampling_loop(scenario, seconds, publishers, ipeer if not self.sdk else None)
        if self.sdk:
            self.finish_sdk_peers(publishers)
        self.check_sender_stats(publishers, connections)
        if a.frames:
            sub.write_frames(a.frames, a.frames_count, a.frames_substream)
        for name, peer in self.peers.items():
            with contextlib.suppress(Exception):
                st = peer.state()
                with open(os.path.join(self.tmp, f"state-{name}.json"), "w") as f:
                    json.dump(st, f, indent=1)
                if a.verbose:
                    log(f"{name} final page state: {json.dumps(st)}")
        if a.webrtc_internals and not os.path.exists(a.webrtc_internals) and not os.path.exists(a.webrtc_internals + ".gz"):
            ipeer.dump_internals(a.webrtc_internals)
        self.write_output(scenario, self.header["t0"])

    def use_sdk_path(self, connections: str, peer_args: bool = False) -> bool:
        """The SDK path (`callscope call` peers) unless a feature only the page path has is asked
        for: --webrtc-internals, --frames, a multistream subscriber, or --peers page. A scenario
        with `subscriber_args`/`publisher_args` (`peer_args`) needs the SDK path."""
        a = self.args
        page_only = [why for why, on in (("--webrtc-internals", a.webrtc_internals), ("--frames", a.frames),
                                         ("subscriber_connections multistream", connections == "multistream"))
                     if on]
        if peer_args and (page_only or a.peers == "page"):
            raise RigError("the scenario's subscriber_args/publisher_args are `callscope call` options: they need "
                           f"the SDK path, not {', '.join(page_only) or '--peers page'}")
        if a.peers == "sdk" and page_only:
            raise RigError(f"--peers sdk: the SDK path has no {', '.join(page_only)} yet")
        if a.peers == "auto" and page_only:
            log(f"page path ({', '.join(page_only)}: not on the SDK path yet)")
        return a.peers == "sdk" or (a.peers == "auto" and not page_only)

    def start_page_peers(self, publishers, connections, nets, use_netns, janus_url):
        """The page path: one chromedriver + Chromium per peer driving Rig/web/call.js."""
        a = self.args
        bind_ip = janus_url.split("//")[1].split(":")[0]
        self.page_server = pages.PageServer(bind_ip, procs.free_tcp_port(bind_ip))
        self.page_server.start()
        for name in publishers + ["subscriber"]:
            p = pages.PagePeer(name, nets[name].ns if use_netns else None, self.tmp, self.procs, fps=a.fps,
                               width=a.width, height=a.height, camera_file=a.camera_file,
                               page_origin=self.page_server.url)
            self.peers[name] = p
            p.start()
        pubs, sub = [self.peers[n] for n in publishers], self.peers["subscriber"]
        browser = "Chromium " + str(pubs[0].caps.get("browserVersion", "?"))

        ipeer = self.peers.get(publishers[0] if a.internals_peer == "publisher" else a.internals_peer)
        if ipeer is None:
            raise RigError(f"--internals-peer {a.internals_peer}: no such peer ({', '.join(self.peers)})")
        if a.webrtc_internals:
            ipeer.open_internals()

        w, h = a.width, a.height
        q = f"room={ROOM}&janus={urllib.parse.quote(janus_url, safe='')}&w={w}&h={h}&fps={a.fps}&bitrates={a.bitrates}"
        for pub in pubs:
            pub.open_call(f"{self.page_server.url}/call.html?role=publisher&peer={pub.name}&{q}")
            pub.wait_phase({"published"}, 45)
        sub.open_call(f"{self.page_server.url}/call.html?role=subscriber&publishers={','.join(publishers)}"
                      f"&subconn={connections}&{q}")
        warmup = self.warm_up(publishers, self.page_warm_up_poll(pubs, sub))
        return browser, warmup, sub, ipeer

    def write_header(self, scenario, seconds, publishers, connections, use_netns, browser, warmup) -> None:
        a = self.args
        w, h = a.width, a.height
        self.header = {
            "format": recording.FORMAT, "version": recording.VERSION,
            "scenario": scenario["name"], "browser": browser, "sfu": self.janus.version,
            "interval_ms": 1000, "seconds": seconds,
            "topology": ("publisher -> janus videoroom -> subscriber" if len(publishers) == 1 else
                         f"{', '.join(publishers)} -> janus videoroom -> subscriber ({connections})"),
            "publishers": publishers,
            "subscriber_connections": connections,
            "network": "netns-veth" if use_netns else "loopback",
            "video": {"codec": "VP8", "source": ("file " + os.path.basename(a.camera_file)) if a.camera_file else "chromium fake capture device", "top_layer": f"{w}x{h}",
                      "fps": a.fps, "simulcast": {"rids": ["q", "h", "f"], "scaleResolutionDownBy": [4, 2, 1],
                                                  "maxBitrate": [int(x) for x in a.bitrates.split(",")]},
                      "subscriber_substream": 2},
            "audio": {"codec": "opus", "source": "chromium fake audio"},
            "data_channel": "callscope (sender-stats v1, once per second)",
            "host": {"cpus": os.cpu_count(), "os": "Debian 12"},
            "rig": "CallScope Rig/record.py",
            "peers": "callscope call (SDK)" if self.sdk else "Rig/web/call.js pages",
            "warmup": warmup,
        }
        if self.sdk:
            # The SDK's subscriber leaves the layer to Janus (its default: the highest).
            self.header["video"]["subscriber_substream"] = "janus default"

    def sampling_loop(self, scenario, seconds, publishers, ipeer) -> None:
        """From t0: applies and removes the impairments on time; the page path samples every peer
        once per second, the SDK path checks that its `callscope call` processes are alive."""
        a = self.args
        steps = sorted(enumerate(scenario.get("steps", [])), key=lambda x: x[1]["start"])
        pending_starts = list(steps)
        pending_ends: list[tuple[int, dict]] = []
        pgids = {"janus": self.janus.proc.pid}
        for n, p in self.peers.items():
            pgids[f"{n} (chromedriver+chromium)"] = p.driver_proc.pid
        for n, p in self.sdk_peers.items():
            if not p.netns:         # else the namespace's total below
                pgids[f"{n} (callscope)"] = p.proc.pid
        ns_cpu0 = {n: netlab.netns_cpu_seconds(p.netns) for n, p in self.sdk_peers.items() if p.netns}
        gcpu0 = procs.group_cpu_seconds(pgids)
        cpu0 = procs.cpu_times()
        t0_mono = time.monotonic()
        t0 = int(time.time() * 1000)
        self.header["t0"] = t0
        log(f"recording {seconds}s ({scenario['name']})")
        tick = 0
        sub_ok_logged = False
        while True:
            target = t0_mono + tick
            now = time.monotonic()
            if now < target:
                time.sleep(target - now)
            elapsed = time.monotonic() - t0_mono
            if elapsed >= seconds:
                break
            # impairments due now
            while pending_starts and pending_starts[0][1]["start"] <= elapsed:
                idx, st = pending_starts.pop(0)
                self.impair.apply(idx, st)
                self.add_event("rig", "impairment-start", dict(st, index=idx))
                log(f"impairment on: {st}")
                pending_ends.append((idx, st))
            for idx, st in list(pending_ends):
                if st.get("end") is not None and st["end"] <= elapsed:
                    self.impair.remove(idx)
                    pending_ends.remove((idx, st))
                    self.add_event("rig", "impairment-end", dict(st, index=idx))
                    log(f"impairment off: {st}")
            for peer in self.sdk_peers.values():
                try:
                    peer.check_alive()
                except peers.SDKPeerError as e:
                    raise RigError(str(e)) from None
            for name, peer in self.peers.items():
                try:
                    c = peer.collect()
                except WebDriverError as e:
                    log(f"{name}: collect failed: {e}")
                    continue
                self.absorb(name, c)
                if name == "subscriber" and not sub_ok_logged and c.get("state", {}).get("phase") == "subscribed":
                    log("subscriber subscribed")
                    sub_ok_logged = True
                if c.get("state", {}).get("phase") == "error":
                    raise RigError(f"{name} page error: {c['state'].get('error')}")
            if a.webrtc_internals and tick == a.internals_at:
                ipeer.dump_internals(a.webrtc_internals)
            tick += 1
        for idx, st in pending_ends:             # steps lasting to the end of the recording
            self.impair.remove(idx)
            self.add_event("rig", "impairment-end", dict(st, index=idx))
        self.impair.clear()
        cpu1 = procs.cpu_times()
        gcpu1 = procs.group_cpu_seconds(pgids)
        wall = max(1e-9, time.monotonic() - t0_mono)
        busy = (cpu1[0] - cpu0[0]) / max(1e-9, (cpu1[1] - cpu0[1]))
        self.header["host"]["cpu_busy_fraction"] = round(busy, 3)
        self.header["host"]["cpu_cores_used"] = {k: round((gcpu1[k] - gcpu0[k]) / wall, 2) for k in pgids}
        for n, before in ns_cpu0.items():
            # Chromium and chromedriver run in process groups of their own under callscope:
            # counted as everything in the peer's namespace.
            used = netlab.netns_cpu_seconds(self.sdk_peers[n].netns) - before
            self.header["host"]["cpu_cores_used"][f"{n} (namespace: callscope+chromedriver+chromium)"] = round(used / wall, 2)
        log(f"CPU: machine {busy * 100:.0f}% busy of {os.cpu_count()} cores; cores used: "
            f"{self.header['host']['cpu_cores_used']}")

    # ---- the SDK path
    def start_sdk_peers(self, callscope: str, publishers: list[str], nets: dict, use_netns: bool, janus_url: str) -> dict:
        """Starts one `callscope call` per publisher (each in the room before the next starts),
        then the subscriber's, and waits for the warm-up (as `warm_up`, from their ndjson)."""
        a = self.args
        media = ["--width", str(a.width), "--height", str(a.height), "--fps", str(a.fps), "--bitrates", a.bitrates]
        if a.camera_file:
            media += ["--camera-file", os.path.abspath(a.camera_file)]
        try:
            for name in publishers + ["subscriber"]:
                peer = peers.SDKPeer(name, nets[name].ns if use_netns else None, self.tmp)
                argv = peer.argv(callscope, janus_url, ROOM, name != "subscriber", media, self.peer_args[name])
                peer.proc = self.procs.spawn(f"callscope-{name}", argv, peer.out_path)
                self.sdk_peers[name] = peer
                if name != "subscriber":
                    peers.wait_published(peer, 45)
                    log(f"{name}: published (callscope call pid {peer.proc.pid})")
            watch = peers.WarmUpWatch([self.sdk_peers[n] for n in publishers], self.sdk_peers["subscriber"])

            def poll():
                for peer in self.sdk_peers.values():
                    peer.check_alive()
                watch.poll()
                return (watch.done(a.warmup_aob), {n: watch.estimates.get(n, 0) for n in publishers},
                        f"publisher estimate {list(watch.estimates.values())}, decoding streams {len(watch.decoding)}")
            return self.warm_up(publishers, poll)
        except peers.SDKPeerError as e:
            raise RigError(str(e)) from None

    def finish_sdk_peers(self, publishers: list[str]) -> None:
        """Ends the `callscope call` processes (SIGTERM: they hang up and write their
        recordings) and merges the recordings into this one."""
        for peer in self.sdk_peers.values():
            peer.stop(timeout=30)
        for name, peer in self.sdk_peers.items():
            if peer.proc.poll() is None or peer.proc.returncode != 0:
                raise RigError(f"callscope call for {name} did not end cleanly "
                               f"(exit {peer.proc.poll()}); its last lines:\n{peer.tail()}")
            self.procs.reap(peer.proc)    # the group, if anything of it is left
        try:
            lines, facts = peers.merge([self.sdk_peers[n] for n in publishers], self.sdk_peers["subscriber"],
                                           self.header["t0"])
        except peers.SDKPeerError as e:
            raise RigError(str(e)) from None
        if facts["browser"]:
            self.header["browser"] = facts["browser"]
        self.header["sdk"] = {"interval_ms": facts["sdk_interval_ms"], "janus_ids": facts["janus_ids"],
                              "note": "reports, sender-stats, stream bindings and lifecycle events as each peer's "
                                      "`callscope call --record` wrote them; peers, connections and publisher ids "
                                      "relabelled (Rig/callscope_rig/peers.py); samples before t0 (warm-up) left out"}
        extra = {n: v for n, v in self.peer_args.items() if v}
        if extra:
            self.header["sdk"]["call_args"] = extra     # the scenario's subscriber_args/publisher_args
        self.lines = sorted(self.lines + lines, key=lambda x: x["t"])
        log(f"merged {len(lines)} lines of the SDK recordings ({', '.join(self.sdk_peers)})")

    def check_sender_stats(self, publishers: list[str], connections: str) -> None:
        """Every publisher's sender-stats must have reached the subscriber, on the connection that
        carries its feed (per-feed: its own; multistream: the one connection, where Janus relays
        the data channels of all feeds): a RigError names the ones missing."""
        got: dict[tuple[str, str], int] = {}
        carried: dict[str, str] = {}         # subscriber pc -> the one publisher it carries
        for ev in self.lines:
            if ev.get("event") == "subscriber-streams":
                names = {st.get("publisher") for st in ev["data"].get("streams", []) if st.get("publisher")}
                if ev["peer"] == "subscriber" and len(names) == 1:
                    carried[ev.get("pc")] = names.pop()
            if ev.get("event") == "sender-stats":
                if ev["peer"] == "subscriber":
                    # The SDK's messages do not name their publisher: the connection's feed does.
                    key = (ev.get("pc"), ev["data"].get("publisher") or carried.get(ev.get("pc")))
                    got[key] = got.get(key, 0) + 1
        missing = []
        for name in publishers:
            pc = "sub-1" if connections == "multistream" or len(publishers) == 1 else "sub-" + name.split("-")[-1]
            if got.get((pc, name), 0) == 0:
                missing.append(f"{name} on {pc}")
        log("sender-stats received: " + (", ".join(f"{p} on {c}: {n}" for (c, p), n in sorted(got.items())) or "none"))
        if missing and len(publishers) > 1:
            raise RigError("no sender-stats from " + ", ".join(missing))
        if missing:             # a few-second call may end before the data channel opens
            log("warning: no sender-stats from " + ", ".join(missing))

    def warm_up(self, publishers: list[str], poll) -> dict:
        """Unrecorded warm-up: wait until the subscriber decodes video of every publisher and each
        publisher's bandwidth estimate has ramped up (availableOutgoingBitrate >= --warmup-aob), at
        most --warmup-timeout s. `poll()` -> (done, each publisher's estimate, what to log).
        Chrome's start-up probing sometimes fails and the estimate then climbs ~8 %/s for 10-15 s;
        without this the first seconds of the "clean" baseline would show a bandwidth-limited
        publisher. Events queued meanwhile are kept (they appear before t0 in the recording)."""
        a = self.args
        t_start = time.monotonic()
        deadline = t_start + a.warmup_timeout
        while True:
            ok, aobs, detail = poll()
            if ok or time.monotonic() >= deadline:
                break
            time.sleep(0.5)
        took = round(time.monotonic() - t_start, 1)
        if ok:
            log(f"warm-up done in {took}s ({detail})")
        else:
            log(f"warm-up NOT complete after {took}s ({detail}); recording anyway")
        out = {"seconds": took, "publisher_available_outgoing_bitrate": min(v or 0 for v in aobs.values()),
               "target_bitrate": a.warmup_aob, "complete": ok}
        if len(publishers) > 1:       # the field above is then the least of them
            out["publishers_available_outgoing_bitrate"] = aobs
        return out

    def page_warm_up_poll(self, pubs: list[pages.PagePeer], sub: pages.PagePeer):
        """`warm_up`'s poll on the page path: the pages' `quick()`."""
        state = {"ps": {}, "ss": {}}

        def poll():
            with contextlib.suppress(WebDriverError):
                state["ps"] = {p.name: p.quick() for p in pubs}
                state["ss"] = sub.quick()
            ps, ss = state["ps"], state["ss"]
            if ss.get("phase") == "error" or any(x.get("phase") == "error" for x in ps.values()):
                raise RigError(f"page error during warm-up: publishers {ps} subscriber {ss}")
            aobs = {p.name: (ps.get(p.name) or {}).get("aob") for p in pubs}
            ok = ss.get("phase") == "subscribed" and (ss.get("framesDecoded") or 0) > 0 and \
                (ss.get("videoInbound") or 0) >= len(pubs) and min(v or 0 for v in aobs.values()) >= self.args.warmup_aob
            return ok, aobs, f"publishers {ps}, subscriber {ss}"
        return poll

    def add_event(self, peer: str, name: str, data: dict, t: int | None = None, pc: str | None = None) -> None:
        self.lines.append(recording.event(peer, name, data, t, pc))

    def absorb(self, peer: str, c: dict) -> None:
        for ev in c.get("events", []):
            self.add_event(peer, ev["event"], ev.get("data", {}), ev.get("t"), ev.get("pc"))
        for pcs in c.get("pcs", []):
            if pcs.get("report"):
                self.lines.append({"t": c["t"], "peer": peer, "pc": pcs["pc"], "report": pcs["report"]})

    def write_output(self, scenario: dict, t0: int) -> None:
        out = self.args.out
        recording.write(out, self.header, self.lines)
        log(f"wrote {out} ({os.path.getsize(out)} bytes, {len(self.lines)} lines after header)")
        if self.args.scenario:
            actual = labels.actual_times(self.lines, t0)
            log(f"wrote {labels.write_labels(out, scenario, self.header['seconds'], t0, actual)}")

    def cleanup(self) -> None:
        for peer in self.peers.values():
            with contextlib.suppress(Exception):
                peer.stop()
        with contextlib.suppress(Exception):
            self.impair.clear()
        if self.page_server:
            with contextlib.suppress(Exception):
                self.page_server.stop()
        self.procs.reap_all()
        if self.netlab:
            with contextlib.suppress(Exception):
                self.netlab.teardown()
        self.book.clear()
        if not self.args.keep_tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)
        else:
            log(f"kept {self.tmp}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=None, help="recording length (default 40, or the scenario's)")
    ap.add_argument("--out", help="output .ndjson.gz (required unless --cleanup-only)")
    ap.add_argument("--scenario", help="impairment scenario JSON (Rig/scenarios/*.json); implies --netns")
    ap.add_argument("--name", help="scenario name in the header when no --scenario")
    ap.add_argument("--network", choices=["netns", "loopback"], default="netns",
                    help="netns (default): each browser in its own network namespace with a veth pair to "
                         "the root namespace where Janus runs; loopback: everything in the root namespace "
                         "(no impairments; Janus never gathers loopback candidates, so media then uses the "
                         "host's own non-loopback address)")
    ap.add_argument("--width", type=int, default=None, help="camera width (default: the scenario's, else 960)")
    ap.add_argument("--height", type=int, default=None, help="camera height (default: the scenario's, else 540)")
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--bitrates", default=None,
                    help="maxBitrate of q,h,f layers (default: the scenario's, else 150000,500000,1500000)")
    ap.add_argument("--webrtc-internals", help="also save a chrome://webrtc-internals dump here (.gz: gzip -9 -n)")
    ap.add_argument("--internals-peer", default="publisher",
                    help="whose browser the webrtc-internals dump is taken from: publisher (the first one), "
                         "subscriber or a publisher's peer label (default publisher)")
    ap.add_argument("--internals-at", type=int, default=20, help="second at which to take the dump")
    ap.add_argument("--camera-file", help="publisher camera: a Y4M/MJPEG file (sized --width x --height), looped")
    ap.add_argument("--frames", help="also save decoded subscriber frames here as Y4M (.gz: gzip -9 -n)")
    ap.add_argument("--frames-count", type=int, default=8, help="how many consecutive frames --frames saves")
    ap.add_argument("--frames-substream", type=int, choices=[0, 1, 2], default=0,
                    help="simulcast layer the subscriber switches to for --frames (0 = lowest)")
    ap.add_argument("--cleanup-only", action="store_true",
                    help="only end the processes and delete the network objects a killed earlier run left, then exit")
    ap.add_argument("--warmup-aob", type=int, default=2_400_000,
                    help="unrecorded warm-up until the publisher's availableOutgoingBitrate reaches this "
                         "(bit/s; the room's REMB cap is 2.5 M; 0: only wait for decoded video)")
    ap.add_argument("--warmup-timeout", type=float, default=45, help="warm-up limit in s (then record anyway)")
    ap.add_argument("--keep-tmp", action="store_true", help="keep the run dir (logs, profiles)")
    ap.add_argument("--verbose", action="store_true", help="print the pages' final state")
    ap.add_argument("--janus-debug", type=int, default=4, help="janus debug level (0-7)")
    ap.add_argument("--peers", choices=["auto", "sdk", "page"], default="auto",
                    help="sdk: publishers and subscriber are `callscope call` processes; page: Rig/web/call.js "
                         "pages; auto (default): sdk unless --webrtc-internals, --frames or a multistream "
                         "subscriber asks for the page path")
    ap.add_argument("--callscope", help="the callscope binary of the SDK path (default: .build/release/callscope; "
                                        "build it with `swift build -c release --product callscope`)")
    args = ap.parse_args()
    if args.seconds is None and not args.scenario:
        args.seconds = 40

    interrupted = []

    def on_signal(signum, frame):
        # Raise once; a second signal (e.g. `timeout` forwarding the same SIGINT) must not
        # interrupt the clean-up that the first one started.
        if interrupted:
            log(f"signal {signum} ignored: clean-up in progress")
            return
        interrupted.append(signum)
        raise KeyboardInterrupt(f"signal {signum}")

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)

    if args.cleanup_only:
        try:
            cleanup_stale()
        except RigError as e:
            log(f"FAILED: {e}")
            return 1
        log("clean-up done")
        return 0
    if not args.out:
        ap.error("--out is required")
    try:
        cleanup_stale()
    except RigError as e:
        log(f"FAILED: {e}")
        return 1
    rig = Rig(args)
    rc = 1
    try:
        rig.record()
        rc = 0
    except KeyboardInterrupt as e:
        log(f"interrupted ({e})")
        rc = 130
    except RigError as e:
        log(f"FAILED: {e}")
        args.keep_tmp = True
    except Exception:
        import traceback
        traceback.print_exc()
        log("FAILED with an unexpected error")
        args.keep_tmp = True
    finally:
        # don't let a second signal abort the cleanup
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        rig.cleanup()
    return rc


if __name__ == "__main__":
    sys.exit(main())
