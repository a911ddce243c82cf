#!/usr/bin/env python3
"""CallScope real-call recording rig.

One command records a real routed call (headless Chromium -> Janus VideoRoom -> headless
Chromium) as a `webrtc-stats-recording` (see shared spec recording-format.md):

    python3 Rig/record.py --seconds 40 --out Recordings/baseline-simulcast.ndjson.gz
    python3 Rig/record.py --scenario Rig/scenarios/publisher-uplink-400k.json \
        --out Recordings/publisher-uplink-400k.ndjson.gz

It starts Janus (config from Rig/janus, copied to a temp dir with free ports filled in) and the
peers. On the SDK path (default) each peer is a `callscope call --record` process (Rig/sdk_peers.py)
and their recordings are merged into the rig's at the end; on the page path (--webrtc-internals,
--frames, multistream, --peers page) a small HTTP server for Rig/web and one chromedriver +
headless Chromium per peer, whose getStats() the rig samples once per second. It writes the gzip
NDJSON recording.
With a scenario (or --netns), publisher and subscriber Chromium each run in their own network
namespace joined to the root namespace by a veth pair; Janus stays in the root namespace and the
scenario's impairments are applied with `tc qdisc tbf` (rate) and iptables `statistic` (loss,
blackout) on the right side of the right veth.

Python 3.11, stdlib only. Must run as root for --netns/--scenario. Every process it starts is
ended by pid (process group) on success, failure, SIGINT/SIGTERM/SIGHUP; every namespace, veth
and iptables rule it made is deleted; stale ones from an interrupted run are removed first
(pidfile under /tmp/callscope-rig).
"""
from __future__ import annotations

import argparse
import base64
import contextlib
import gzip
import http.server
import json
import os
import random
import shutil
import signal
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

import labels  # Rig/labels.py (this script's directory is on sys.path)
import sdk_peers  # Rig/sdk_peers.py: the peers as `callscope call` processes

RIG_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(RIG_DIR)
STATE_DIR = "/tmp/callscope-rig"
PIDFILE = os.path.join(STATE_DIR, "pids.json")
CHROMIUM_BIN = "/usr/lib/chromium/chromium"
CHROMEDRIVER_BIN = shutil.which("chromedriver") or "/usr/bin/chromedriver"
JANUS_BIN = shutil.which("janus") or "/usr/bin/janus"
ROOM = 1234
NS_PREFIX = "csrig"                    # namespaces, veths and iptables comments all start with it
IPT_COMMENT = "csrig"
SUBSCRIBER_CONNECTIONS = ("per-feed", "multistream")


def network_plan(publishers: list[str]) -> dict[str, dict]:
    """Network-namespace addressing per peer label (only on interfaces this rig creates): the
    first publisher in `csrig-pub` (10.201.1.0/24), the subscriber in `csrig-sub` (10.201.2.0/24),
    publisher N >= 2 in `csrig-pubN` (10.201.N+1.0/24). The root end of each veth is the
    namespace name + "0", the namespace end + "1"."""
    plan = {}
    for i, label in enumerate(publishers):
        ns, net = ("csrig-pub", 1) if i == 0 else (f"csrig-pub{i + 1}", i + 2)
        plan[label] = {"ns": ns, "root_if": ns + "0", "ns_if": ns + "1",
                       "root_ip": f"10.201.{net}.1", "ns_ip": f"10.201.{net}.2"}
    plan["subscriber"] = {"ns": "csrig-sub", "root_if": "csrig-sub0", "ns_if": "csrig-sub1",
                          "root_ip": "10.201.2.1", "ns_ip": "10.201.2.2"}
    return plan


def log(msg: str) -> None:
    print(f"[rig {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


class RigError(Exception):
    pass


# --------------------------------------------------------------------------- process bookkeeping
def _proc_starttime(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            data = f.read()
        return data[data.rindex(")") + 2:].split()[19]   # field 22: starttime
    except (OSError, ValueError, IndexError):
        return None


class PidBook:
    """Pidfile of every process (group) and network object this rig made, for stale cleanup."""

    def __init__(self, path: str = PIDFILE):
        self.path = path
        self.entries: list[dict] = []
        self.lock = threading.Lock()

    def _write(self) -> None:
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"owner_pid": os.getpid(), "entries": self.entries}, f)
        os.replace(tmp, self.path)

    def add(self, entry: dict) -> None:
        with self.lock:
            self.entries.append(entry)
            self._write()

    def remove(self, pred) -> None:
        with self.lock:
            self.entries = [e for e in self.entries if not pred(e)]
            self._write()

    def clear(self) -> None:
        with self.lock:
            self.entries = []
            with contextlib.suppress(OSError):
                os.remove(self.path)

    @staticmethod
    def cleanup_stale(path: str = PIDFILE) -> None:
        """End processes left by an earlier run (verified by pid + start time) and its netns."""
        try:
            with open(path) as f:
                old = json.load(f)
        except (OSError, ValueError):
            old = {"entries": []}
        owner = old.get("owner_pid")
        if owner and owner != os.getpid() and _proc_starttime(owner) and _owner_is_rig(owner):
            raise RigError(f"another record.py (pid {owner}) is still running; stop it first")
        for e in old.get("entries", []):
            if e.get("kind") == "proc":
                pid = e["pid"]
                if _proc_starttime(pid) == e.get("starttime"):
                    log(f"killing stale {e.get('name')} (pid {pid})")
                    kill_group(pid, grace=3.0)
        # Network objects are recognised by name prefix; only this rig uses it.
        cleanup_network_objects()
        # Keep the run dirs (logs of failed runs) of the last 3 runs only.
        with contextlib.suppress(OSError):
            runs = sorted((os.path.join(STATE_DIR, d) for d in os.listdir(STATE_DIR) if d.startswith("run-")),
                          key=os.path.getmtime)
            for d in runs[:-3]:
                shutil.rmtree(d, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.remove(path)


def _owner_is_rig(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return b"record.py" in f.read()
    except OSError:
        return False


def kill_group(pid: int, grace: float = 5.0) -> None:
    """SIGTERM the process group led by pid (we start every child with its own session), then
    SIGKILL after `grace` seconds. Only ever called with pids this rig started."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        except PermissionError:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
                if done == pid:
                    pass
            except ChildProcessError:
                pass
            # the group is gone when killpg(0) fails
            try:
                os.killpg(pid, 0)
            except ProcessLookupError:
                return
            except PermissionError:
                return
            time.sleep(0.1)


def free_tcp_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def free_udp_range(count: int = 200) -> tuple[int, int]:
    """A UDP port range nobody is bound in right now (best effort)."""
    for _ in range(50):
        base = random.randrange(30000, 59000 - count, 2)
        ok = True
        for p in range(base, base + count, 37):
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                try:
                    s.bind(("0.0.0.0", p))
                except OSError:
                    ok = False
                    break
        if ok:
            return base, base + count - 1
    return 40000, 40000 + count - 1


def write_file(path: str, data: bytes) -> None:
    """Writes `data` to `path` through `path.part` and a rename (never a partial file), compressed
    like `gzip -9 -n` when the name ends in .gz: no file name, mtime 0, so the same data gives
    the same bytes."""
    with open(path + ".part", "wb") as raw:
        if path.endswith(".gz"):
            with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as f:
                f.write(data)
        else:
            raw.write(data)
    os.replace(path + ".part", path)


def run(cmd: list[str], check: bool = True, timeout: float = 15.0) -> subprocess.CompletedProcess:
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except (FileNotFoundError, subprocess.TimeoutExpired) as e:
        if check:
            raise RigError(f"{' '.join(cmd)}: {e}") from None
        return subprocess.CompletedProcess(cmd, 127, "", str(e))
    if check and r.returncode != 0:
        raise RigError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
    return r


# --------------------------------------------------------------------------- network namespaces
def kill_netns_processes(ns: str) -> None:
    """SIGKILL whatever still runs in one of this rig's namespaces (`ip netns pids`): on the SDK
    path chromedriver and Chromium run in process groups of their own under `callscope call`, so a
    hard-killed callscope would leave them there."""
    for pid in run(["ip", "netns", "pids", ns], check=False).stdout.split():
        if pid.isdigit() and int(pid) != os.getpid():
            log(f"killing pid {pid} left in netns {ns}")
            with contextlib.suppress(OSError):
                os.kill(int(pid), signal.SIGKILL)


def cleanup_network_objects() -> None:
    """Delete every namespace, veth and iptables rule with this rig's prefix/comment (and end
    the processes still in those namespaces)."""
    if os.geteuid() != 0:
        return
    with contextlib.suppress(Exception):
        r = run(["ip", "netns", "list"], check=False)
        for line in r.stdout.splitlines():
            name = line.split()[0] if line.split() else ""
            if name.startswith(NS_PREFIX + "-"):
                kill_netns_processes(name)
                log(f"deleting netns {name}")
                run(["ip", "netns", "del", name], check=False)
    with contextlib.suppress(Exception):
        r = run(["ip", "-o", "link", "show"], check=False)
        for line in r.stdout.splitlines():
            parts = line.split(":")
            if len(parts) > 1:
                ifname = parts[1].strip().split("@")[0]
                if ifname.startswith(NS_PREFIX + "-"):
                    log(f"deleting link {ifname}")
                    run(["ip", "link", "del", ifname], check=False)
    delete_iptables_rules(None)
    with contextlib.suppress(OSError):
        for name in os.listdir("/etc/netns"):
            if name.startswith(NS_PREFIX + "-"):
                shutil.rmtree(os.path.join("/etc/netns", name), ignore_errors=True)


def iptables(ns: str | None, args: list[str], check: bool = True) -> subprocess.CompletedProcess:
    cmd = (["ip", "netns", "exec", ns] if ns else []) + ["iptables", "-w", "5"] + args
    return run(cmd, check=check)


def delete_iptables_rules(ns: str | None) -> None:
    """Remove every filter rule in `ns` (root when None) that carries the rig's comment."""
    with contextlib.suppress(Exception):
        r = iptables(ns, ["-S"], check=False)
        for line in r.stdout.splitlines():
            if f'--comment {IPT_COMMENT}' in line or f'--comment "{IPT_COMMENT}' in line:
                spec = line.split()
                if spec and spec[0] == "-A":
                    iptables(ns, ["-D"] + spec[1:], check=False)


class NetLab:
    """Publisher and subscriber each in a netns with a veth pair to the root namespace."""

    def __init__(self, book: PidBook, nets: dict[str, dict]):
        self.book = book
        self.nets = nets
        self.made: list[str] = []

    def setup(self) -> None:
        if os.geteuid() != 0:
            raise RigError("network namespaces need root")
        for peer, n in self.nets.items():
            run(["ip", "netns", "add", n["ns"]])
            self.made.append(n["ns"])
            self.book.add({"kind": "netns", "name": n["ns"]})
            run(["ip", "link", "add", n["root_if"], "type", "veth", "peer", "name", n["ns_if"]])
            self.book.add({"kind": "link", "name": n["root_if"]})
            run(["ip", "link", "set", n["ns_if"], "netns", n["ns"]])
            run(["ip", "addr", "add", n["root_ip"] + "/24", "dev", n["root_if"]])
            run(["ip", "link", "set", n["root_if"], "up"])
            nsx = ["ip", "netns", "exec", n["ns"]]
            run(nsx + ["ip", "addr", "add", n["ns_ip"] + "/24", "dev", n["ns_if"]])
            run(nsx + ["ip", "link", "set", n["ns_if"], "up"])
            run(nsx + ["ip", "link", "set", "lo", "up"])
            # No default route: the namespace reaches only the rig's own 10.201.0.0/16 addresses
            # (Janus, the page server) and nothing else; stray lookups fail at once.
            run(nsx + ["ip", "route", "add", "10.201.0.0/16", "via", n["root_ip"]])
            # `ip netns exec` bind-mounts /etc/netns/<ns>/resolv.conf: a resolver that answers
            # "connection refused" at once instead of timing out on an unreachable server.
            os.makedirs(f"/etc/netns/{n['ns']}", exist_ok=True)
            with open(f"/etc/netns/{n['ns']}/resolv.conf", "w") as f:
                f.write("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
            self.book.add({"kind": "etc-netns", "name": n["ns"]})
            # Offloads would make tbf see 64 KB TCP super-packets (media is UDP and unaffected);
            # switch them off when ethtool exists so caps are accurate for signaling too.
            for dev, pre in ((n["root_if"], []), (n["ns_if"], nsx)):
                run(pre + ["ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off"], check=False)
        log("network namespaces ready: " + ", ".join(f"{p} {n['ns']} {n['ns_ip']} <-> {n['root_if']} {n['root_ip']}"
                                                    for p, n in self.nets.items()))

    def teardown(self) -> None:
        for n in self.nets.values():
            delete_iptables_rules(n["ns"])
        delete_iptables_rules(None)
        for n in self.nets.values():
            kill_netns_processes(n["ns"])
            run(["ip", "link", "del", n["root_if"]], check=False)
            run(["ip", "netns", "del", n["ns"]], check=False)
            shutil.rmtree(f"/etc/netns/{n['ns']}", ignore_errors=True)
        self.book.remove(lambda e: e.get("kind") in ("netns", "link", "etc-netns"))
        log("network namespaces removed")


class Impairments:
    """Applies scenario steps. Rate = tbf on the sending end's veth (`sending_end`: egress of that
    device is the impaired direction). Loss/blackout = iptables INPUT DROP rules (with `-m
    statistic` for loss) at the RECEIVING end (`receiving_end`: packets arriving on that device): a
    DROP in the sender's own OUTPUT chain makes its sendto() fail with EPERM, and Chromium then
    simply sends the packet again, so 8 % "loss" on the publisher's OUTPUT became ~0.6 % (0.08
    squared) on the wire. A `publisher-*` step impairs the veth of its `publisher` (peer label;
    default the first publisher)."""

    SIDES = ("publisher-uplink", "publisher-downlink", "subscriber-uplink", "subscriber-downlink")

    def __init__(self, nets: dict[str, dict] | None = None, publishers: list[str] | None = None):
        self.active: dict[int, dict] = {}
        self.publishers = publishers or ["publisher"]
        self.nets = nets or network_plan(self.publishers)

    def _net(self, step: dict) -> dict:
        if step["side"].startswith("subscriber-"):
            return self.nets["subscriber"]
        return self.nets[step.get("publisher") or self.publishers[0]]

    def sending_end(self, step: dict) -> tuple[str | None, str]:
        """(namespace or None for root, device) whose egress carries the impaired direction."""
        n = self._net(step)
        return (n["ns"], n["ns_if"]) if step["side"].endswith("-uplink") else (None, n["root_if"])

    def receiving_end(self, step: dict) -> tuple[str | None, str]:
        """(namespace or None for root, device) where the impaired direction arrives."""
        n = self._net(step)
        return (None, n["root_if"]) if step["side"].endswith("-uplink") else (n["ns"], n["ns_if"])

    @staticmethod
    def _nsx(ns):
        return ["ip", "netns", "exec", ns] if ns else []

    def _drop_rule(self, idx: int, step: dict) -> list[str]:
        ns, dev = self.receiving_end(step)
        rule = ["INPUT", "-i", dev]
        if step["kind"] == "loss":
            rule += ["-m", "statistic", "--mode", "random", "--probability", f"{float(step['value']):.4f}"]
        rule += ["-m", "comment", "--comment", f"{IPT_COMMENT}-{idx}", "-j", "DROP"]
        return rule

    def apply(self, idx: int, step: dict) -> None:
        ns, dev = self.sending_end(step)
        kind = step["kind"]
        if kind == "rate":
            rate = int(step["value"])
            burst = max(6000, rate // 8 // 25)          # >= 4 MTU, ~40 ms at rate
            run(self._nsx(ns) + ["tc", "qdisc", "replace", "dev", dev, "root", "tbf",
                                 "rate", f"{rate}bit", "burst", str(burst), "latency",
                                 f"{int(step.get('queue_ms', 300))}ms"])
        elif kind in ("loss", "blackout"):
            iptables(self.receiving_end(step)[0], ["-I"] + self._drop_rule(idx, step))
        else:
            raise RigError(f"unknown impairment kind {kind}")
        self.active[idx] = step

    def remove(self, idx: int) -> None:
        step = self.active.pop(idx, None)
        if not step:
            return
        ns, dev = self.sending_end(step)
        if step["kind"] == "rate":
            # another active rate step on the same device takes over
            others = [(i, s) for i, s in self.active.items()
                      if s["kind"] == "rate" and self.sending_end(s) == (ns, dev)]
            if others:
                self.apply(*others[-1])
            else:
                run(self._nsx(ns) + ["tc", "qdisc", "del", "dev", dev, "root"], check=False)
        else:
            iptables(self.receiving_end(step)[0], ["-D"] + self._drop_rule(idx, step), check=False)

    def clear(self) -> None:
        for idx in list(self.active):
            with contextlib.suppress(Exception):
                self.remove(idx)


# --------------------------------------------------------------------------- HTTP page server
class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


class PageServer:
    def __init__(self, host: str, port: int):
        handler = lambda *a, **kw: QuietHandler(*a, directory=os.path.join(RIG_DIR, "web"), **kw)
        socketserver.ThreadingTCPServer.allow_reuse_address = True
        self.httpd = http.server.ThreadingHTTPServer((host, port), handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True)
        self.url = f"http://{host}:{port}"

    def start(self):
        self.thread.start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


# --------------------------------------------------------------------------- WebDriver client
class WebDriverError(RigError):
    pass


class WebDriver:
    """Minimal W3C WebDriver HTTP client (urllib only)."""

    def __init__(self, base: str):
        self.base = base.rstrip("/")
        self.session: str | None = None

    def call(self, method: str, path: str, body=None, timeout: float = 30.0):
        data = json.dumps(body if body is not None else {}).encode() if method == "POST" else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json; charset=utf-8"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                payload = json.loads(r.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            try:
                payload = json.loads(e.read().decode("utf-8"))
            except Exception:
                raise WebDriverError(f"{method} {path}: HTTP {e.code}") from None
            v = payload.get("value", {})
            raise WebDriverError(f"{method} {path}: {v.get('error')}: {str(v.get('message'))[:400]}") from None
        except (urllib.error.URLError, socket.timeout, ConnectionError) as e:
            raise WebDriverError(f"{method} {path}: {e}") from None
        return payload.get("value")

    def wait_ready(self, timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                v = self.call("GET", "/status", timeout=2)
                if v and v.get("ready"):
                    return
            time.sleep(0.2)
        raise WebDriverError(f"chromedriver at {self.base} not ready after {timeout}s")

    def new_session(self, caps: dict, timeout: float = 60.0) -> dict:
        v = self.call("POST", "/session", {"capabilities": {"alwaysMatch": caps}}, timeout=timeout)
        self.session = v["sessionId"]
        return v["capabilities"]

    def s(self, path: str) -> str:
        return f"/session/{self.session}{path}"

    def navigate(self, url: str, timeout: float = 30.0) -> None:
        self.call("POST", self.s("/url"), {"url": url}, timeout=timeout)

    def set_timeouts(self, script_ms: int, page_ms: int = 30000) -> None:
        self.call("POST", self.s("/timeouts"), {"script": script_ms, "pageLoad": page_ms})

    def execute(self, script: str, args=None, timeout: float = 15.0):
        return self.call("POST", self.s("/execute/sync"), {"script": script, "args": args or []}, timeout=timeout)

    def execute_async(self, script: str, args=None, timeout: float = 15.0):
        return self.call("POST", self.s("/execute/async"), {"script": script, "args": args or []}, timeout=timeout)

    def cdp(self, cmd: str, params: dict, timeout: float = 15.0):
        return self.call("POST", self.s("/goog/cdp/execute"), {"cmd": cmd, "params": params}, timeout=timeout)

    def quit(self) -> None:
        if self.session:
            with contextlib.suppress(Exception):
                self.call("DELETE", self.s(""), timeout=10)
            self.session = None


# --------------------------------------------------------------------------- the rig
COLLECT_JS = """
const done = arguments[arguments.length - 1];
if (!window.callscope) { done({t: Date.now(), pcs: [], events: [], state: {phase: 'no-page'}}); return; }
window.callscope.collect().then(done, e => done({t: Date.now(), pcs: [], events: [], state: {phase: 'collect-error', error: String(e)}}));
"""


class Peer:
    def __init__(self, rig: "Rig", name: str, netns: str | None):
        self.rig, self.name, self.netns = rig, name, netns
        self.driver_proc: subprocess.Popen | None = None
        self.wd: WebDriver | None = None
        self.user_data = os.path.join(rig.tmp, f"profile-{name}")
        self.download_dir = os.path.join(rig.tmp, f"downloads-{name}")
        self.caps: dict = {}
        self.main_window: str | None = None

    def chrome_args(self) -> list[str]:
        args = [
            "--headless=new", "--no-sandbox",
            f"--use-fake-device-for-media-stream=fps={self.rig.args.fps}", "--use-fake-ui-for-media-stream",
            f"--user-data-dir={self.user_data}",
            "--autoplay-policy=no-user-gesture-required",
            "--disable-gpu", "--disable-dev-shm-usage", "--mute-audio",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows",
            "--disable-features=WebRtcHideLocalIpsWithMdns,MediaRouter,OptimizationHints,Translate",
            "--window-size=1280,900",
        ]
        if self.rig.args.width * self.rig.args.height < 960 * 540:
            # libwebrtc allows fewer simulcast layers below 960x540 (2 at 640x360); lift that
            # limit so that a smaller camera still sends the three layers q/h/f, scaled.
            args.append("--force-fieldtrials=WebRTC-LegacySimulcastLayerLimit/Disabled/")
        if self.rig.args.camera_file and self.name.startswith("publisher"):
            # A Y4M (or MJPEG) file as the camera, looped, instead of Chromium's test pattern.
            args.append(f"--use-file-for-fake-video-capture={os.path.abspath(self.rig.args.camera_file)}")
        if self.netns is None:
            args.append("--allow-loopback-in-peer-connection")
        else:
            # chromedriver stays in the root namespace; it drives Chromium over a pipe, so the
            # DevTools connection never crosses the impaired veth.
            args.append("--remote-debugging-pipe")
        if self.rig.page_server and not self.rig.page_server.url.startswith("http://127.0.0.1"):
            # getUserMedia needs a secure context; the page is plain http on a veth address.
            args.append(f"--unsafely-treat-insecure-origin-as-secure={self.rig.page_server.url}")
        return args

    def start(self) -> None:
        port = free_tcp_port()
        os.makedirs(self.download_dir, exist_ok=True)
        logf = os.path.join(self.rig.tmp, f"chromedriver-{self.name}.log")
        self.driver_proc = self.rig.spawn(f"chromedriver-{self.name}",
                                          [CHROMEDRIVER_BIN, f"--port={port}", "--allowed-ips=127.0.0.1",
                                           f"--log-path={logf}"], os.path.join(self.rig.tmp, f"chromedriver-{self.name}.out"))
        self.wd = WebDriver(f"http://127.0.0.1:{port}")
        self.wd.wait_ready(20)
        binary = CHROMIUM_BIN
        if self.netns:
            binary = os.path.join(self.rig.tmp, f"chromium-{self.name}.sh")
            with open(binary, "w") as f:
                f.write(f"#!/bin/sh\nexec ip netns exec {self.netns} {CHROMIUM_BIN} \"$@\"\n")
            os.chmod(binary, 0o755)
        caps = {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": binary,
                "args": self.chrome_args(),
                "prefs": {"download.default_directory": self.download_dir,
                          "download.prompt_for_download": False},
            },
        }
        self.caps = self.wd.new_session(caps, timeout=60)
        self.wd.set_timeouts(script_ms=20000)
        self.main_window = self.wd.call("GET", self.wd.s("/window"))
        log(f"{self.name}: {self.caps.get('browserName')} {self.caps.get('browserVersion')} ready")

    def open_call(self, page_url: str) -> None:
        t = time.monotonic()
        self.wd.navigate(page_url)
        log(f"{self.name}: page loaded in {time.monotonic() - t:.1f}s")

    def collect(self) -> dict:
        return self.wd.execute_async(COLLECT_JS, timeout=25)

    def quick(self) -> dict:
        return self.wd.execute_async(
            "const d=arguments[arguments.length-1];"
            "if(!window.callscope){d({phase:'no-page'});return;}"
            "window.callscope.quick().then(d,e=>d({phase:'quick-error',error:String(e)}));", timeout=10) or {}

    def capture_frames(self, count: int, substream: int, width: int, height: int) -> dict:
        return self.wd.execute_async(
            "const [n,s,w,h,d]=arguments;"
            "window.callscope.captureFrames(n,s,w,h).then(d,e=>d({error:String(e)}));",
            [count, substream, width, height], timeout=60) or {}

    def state(self) -> dict:
        return self.wd.execute("return window.callscope ? window.callscope.state : {phase: 'no-page'};") or {}

    def stop(self) -> None:
        if self.wd and self.wd.session:
            with contextlib.suppress(Exception):
                if self.main_window:
                    self.wd.call("POST", self.wd.s("/window"), {"handle": self.main_window}, timeout=5)
                self.wd.execute_async("const d=arguments[arguments.length-1];"
                                      "(window.callscope?window.callscope.hangup():Promise.resolve()).then(()=>d(1),()=>d(0));",
                                      timeout=6)
            self.wd.quit()
        if self.driver_proc:
            self.rig.reap(self.driver_proc)
            self.driver_proc = None


class Rig:
    def __init__(self, args):
        self.args = args
        self.book = PidBook()
        os.makedirs(STATE_DIR, exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix="run-", dir=STATE_DIR)
        self.procs: list[subprocess.Popen] = []
        self.netlab: NetLab | None = None
        self.impair = Impairments()
        self.page_server: PageServer | None = None
        self.peers: dict[str, Peer] = {}
        self.sdk_peers: dict[str, sdk_peers.SDKPeer] = {}
        self.sdk = False
        self.peer_args: dict[str, list[str]] = {}   # the scenario's extra `callscope call` options per peer
        self.janus_version = "janus"
        self.samples: list[str] = []
        self.events_out: list[dict] = []
        self.header: dict = {}

    # ---- processes
    def spawn(self, name: str, argv: list[str], out_path: str) -> subprocess.Popen:
        out = open(out_path, "wb")
        p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True, close_fds=True)
        out.close()
        self.procs.append(p)
        self.book.add({"kind": "proc", "name": name, "pid": p.pid, "starttime": _proc_starttime(p.pid)})
        log(f"started {name} pid {p.pid}")
        return p

    def reap(self, p: subprocess.Popen) -> None:
        if p.poll() is None:
            kill_group(p.pid, grace=5.0)
        else:
            # leader gone; its group (e.g. chromium children) may still exist
            kill_group(p.pid, grace=2.0)
        with contextlib.suppress(Exception):
            p.wait(timeout=5)
        self.book.remove(lambda e: e.get("pid") == p.pid)
        if p in self.procs:
            self.procs.remove(p)

    # ---- janus
    def start_janus(self, bind_ip: str, ice_list: str) -> str:
        conf = os.path.join(self.tmp, "janus-conf")
        os.makedirs(conf)
        port = free_tcp_port(bind_ip)
        lo, hi = free_udp_range()
        subst = {"@@CONFIGS_FOLDER@@": conf, "@@RTP_PORT_RANGE@@": f"{lo}-{hi}",
                 "@@ICE_ENFORCE_LIST@@": ice_list, "@@HTTP_PORT@@": str(port), "@@HTTP_IP@@": bind_ip}
        for fn in os.listdir(os.path.join(RIG_DIR, "janus")):
            if fn.endswith(".jcfg"):
                with open(os.path.join(RIG_DIR, "janus", fn)) as f:
                    text = f.read()
                for k, v in subst.items():
                    text = text.replace(k, v)
                with open(os.path.join(conf, fn), "w") as f:
                    f.write(text)
        r = run([JANUS_BIN, "--version"], check=False)
        for line in r.stdout.splitlines():
            if line.startswith("Janus version:") and "(" in line:
                self.janus_version = "janus " + line.split("(")[1].rstrip(")")
                break
        self.janus_proc = self.spawn("janus", [JANUS_BIN, "-F", conf, "-C", os.path.join(conf, "janus.jcfg"),
                             "-i", bind_ip, "-o", "-d", str(self.args.janus_debug),
                             "-L", os.path.join(self.tmp, "janus.log")],
                   os.path.join(self.tmp, "janus.out"))
        url = f"http://{bind_ip}:{port}/janus"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                with urllib.request.urlopen(url + "/info", timeout=2) as resp:
                    info = json.loads(resp.read())
                    if info.get("janus") == "server_info":
                        if "janus.plugin.videoroom" not in info.get("plugins", {}):
                            raise RigError("janus started without the VideoRoom plugin")
                        log(f"{self.janus_version} up at {url}")
                        return url
            time.sleep(0.3)
        raise RigError(f"janus did not answer at {url} (see {self.tmp}/janus.out)")

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
        why = sdk_peers.scenario_args_error(sc, names)
        if why:
            raise RigError(f"bad scenario: {why}")
        for s in sc.get("steps", []):
            if s["side"] not in Impairments.SIDES:
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
        self.peer_args = {n: sdk_peers.peer_args(scenario, n) for n in publishers + ["subscriber"]}
        self.sdk = self.use_sdk_path(connections, any(self.peer_args.values()))
        callscope = None
        if self.sdk:
            try:
                callscope = sdk_peers.find_callscope(REPO_DIR, a.callscope)
                sdk_peers.check_options(callscope, sdk_peers.RIG_CALL_OPTIONS +
                                        [x for v in self.peer_args.values() for x in v])
            except sdk_peers.SDKPeerError as e:
                raise RigError(str(e)) from None
        log("peers: " + (f"`callscope call` ({callscope})" if self.sdk else "Rig/web/call.js pages"))
        nets = network_plan(publishers)
        self.impair = Impairments(nets, publishers)
        if use_netns:
            self.netlab = NetLab(self.book, nets)
            self.netlab.setup()
            bind_ip = nets[publishers[0]]["root_ip"]
            ice_list = ",".join(n["root_if"] for n in nets.values())
        else:
            bind_ip, ice_list = "127.0.0.1", "lo"
        janus_url = self.start_janus(bind_ip, ice_list)
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
            self.write_frames(sub)
        for name, peer in self.peers.items():
            with contextlib.suppress(Exception):
                st = peer.state()
                with open(os.path.join(self.tmp, f"state-{name}.json"), "w") as f:
                    json.dump(st, f, indent=1)
                if a.verbose:
                    log(f"{name} final page state: {json.dumps(st)}")
        if a.webrtc_internals and not os.path.exists(a.webrtc_internals) and not os.path.exists(a.webrtc_internals + ".gz"):
            self.dump_internals(ipeer)
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
        self.page_server = PageServer(bind_ip, free_tcp_port(bind_ip))
        self.page_server.start()
        for name in publishers + ["subscriber"]:
            p = Peer(self, name, nets[name]["ns"] if use_netns else None)
            self.peers[name] = p
            p.start()
        pubs, sub = [self.peers[n] for n in publishers], self.peers["subscriber"]
        browser = "Chromium " + str(pubs[0].caps.get("browserVersion", "?"))

        ipeer = self.peers.get(publishers[0] if a.internals_peer == "publisher" else a.internals_peer)
        if ipeer is None:
            raise RigError(f"--internals-peer {a.internals_peer}: no such peer ({', '.join(self.peers)})")
        if a.webrtc_internals:
            self.open_internals(ipeer)

        w, h = a.width, a.height
        q = f"room={ROOM}&janus={urllib.request.quote(janus_url, safe='')}&w={w}&h={h}&fps={a.fps}&bitrates={a.bitrates}"
        for pub in pubs:
            pub.open_call(f"{self.page_server.url}/call.html?role=publisher&peer={pub.name}&{q}")
            self.wait_phase(pub, {"published"}, 45)
        sub.open_call(f"{self.page_server.url}/call.html?role=subscriber&publishers={','.join(publishers)}"
                      f"&subconn={connections}&{q}")
        warmup = self.warm_up(pubs, sub)
        return browser, warmup, sub, ipeer

    def write_header(self, scenario, seconds, publishers, connections, use_netns, browser, warmup) -> None:
        a = self.args
        w, h = a.width, a.height
        self.header = {
            "format": "webrtc-stats-recording", "version": 1,
            "scenario": scenario["name"], "browser": browser, "sfu": self.janus_version,
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
        pgids = {"janus": self.janus_proc.pid}
        for n, p in self.peers.items():
            pgids[f"{n} (chromedriver+chromium)"] = p.driver_proc.pid
        for n, p in self.sdk_peers.items():
            if not p.netns:         # else the namespace's total below
                pgids[f"{n} (callscope)"] = p.proc.pid
        ns_cpu0 = {n: netns_cpu_seconds(p.netns) for n, p in self.sdk_peers.items() if p.netns}
        gcpu0 = group_cpu_seconds(pgids)
        cpu0 = cpu_times()
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
                except sdk_peers.SDKPeerError as e:
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
                self.dump_internals(ipeer)
            tick += 1
        for idx, st in pending_ends:             # steps lasting to the end of the recording
            self.impair.remove(idx)
            self.add_event("rig", "impairment-end", dict(st, index=idx))
        self.impair.clear()
        cpu1 = cpu_times()
        gcpu1 = group_cpu_seconds(pgids)
        wall = max(1e-9, time.monotonic() - t0_mono)
        busy = (cpu1[0] - cpu0[0]) / max(1e-9, (cpu1[1] - cpu0[1]))
        self.header["host"]["cpu_busy_fraction"] = round(busy, 3)
        self.header["host"]["cpu_cores_used"] = {k: round((gcpu1[k] - gcpu0[k]) / wall, 2) for k in pgids}
        for n, before in ns_cpu0.items():
            # Chromium and chromedriver run in process groups of their own under callscope:
            # counted as everything in the peer's namespace.
            used = netns_cpu_seconds(self.sdk_peers[n].netns) - before
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
                peer = sdk_peers.SDKPeer(name, nets[name]["ns"] if use_netns else None, self.tmp)
                peer.proc = self.spawn(f"callscope-{name}", peer.argv(callscope, janus_url, ROOM, name != "subscriber", media,
                                                                                    self.peer_args[name]),
                                       peer.out_path)
                self.sdk_peers[name] = peer
                if name != "subscriber":
                    sdk_peers.wait_published(peer, 45)
                    log(f"{name}: published (callscope call pid {peer.proc.pid})")
            watch = sdk_peers.WarmUpWatch([self.sdk_peers[n] for n in publishers], self.sdk_peers["subscriber"])
            t_start = time.monotonic()
            deadline = t_start + a.warmup_timeout
            while True:
                for peer in self.sdk_peers.values():
                    peer.check_alive()
                watch.poll()
                ok = watch.done(a.warmup_aob)
                if ok or time.monotonic() >= deadline:
                    break
                time.sleep(0.5)
        except sdk_peers.SDKPeerError as e:
            raise RigError(str(e)) from None
        took = round(time.monotonic() - t_start, 1)
        aobs = [watch.estimates.get(n, 0) for n in publishers]
        if ok:
            log(f"warm-up done in {took}s (publisher estimate {aobs}, decoding streams {len(watch.decoding)})")
        else:
            log(f"warm-up NOT complete after {took}s (publisher estimate {aobs}, decoding streams "
                f"{len(watch.decoding)}); recording anyway")
        out = {"seconds": took, "publisher_available_outgoing_bitrate": min(aobs), "target_bitrate": a.warmup_aob,
               "complete": ok}
        if len(publishers) > 1:
            out["publishers_available_outgoing_bitrate"] = dict(zip(publishers, aobs))
        return out

    def finish_sdk_peers(self, publishers: list[str]) -> None:
        """Ends the `callscope call` processes (SIGTERM: they hang up and write their
        recordings) and merges the recordings into this one."""
        for peer in self.sdk_peers.values():
            peer.stop(timeout=30)
        for name, peer in self.sdk_peers.items():
            if peer.proc.poll() is None or peer.proc.returncode != 0:
                raise RigError(f"callscope call for {name} did not end cleanly "
                               f"(exit {peer.proc.poll()}); its last lines:\n{peer.tail()}")
            self.reap(peer.proc)          # the group, if anything of it is left
        try:
            lines, facts = sdk_peers.merge([self.sdk_peers[n] for n in publishers], self.sdk_peers["subscriber"],
                                           self.header["t0"])
        except sdk_peers.SDKPeerError as e:
            raise RigError(str(e)) from None
        if facts["browser"]:
            self.header["browser"] = facts["browser"]
        self.header["sdk"] = {"interval_ms": facts["sdk_interval_ms"], "janus_ids": facts["janus_ids"],
                              "note": "reports, sender-stats, stream bindings and lifecycle events as each peer's "
                                      "`callscope call --record` wrote them; peers, connections and publisher ids "
                                      "relabelled (Rig/sdk_peers.py); samples before t0 (warm-up) left out"}
        extra = {n: v for n, v in self.peer_args.items() if v}
        if extra:
            self.header["sdk"]["call_args"] = extra     # the scenario's subscriber_args/publisher_args
        rig_lines = [json.loads(x) for x in self.samples]
        merged = sorted(rig_lines + lines, key=lambda x: x["t"])
        self.samples = [json.dumps(x, separators=(",", ":")) for x in merged]
        log(f"merged {len(lines)} lines of the SDK recordings ({', '.join(self.sdk_peers)})")

    def check_sender_stats(self, publishers: list[str], connections: str) -> None:
        """Every publisher's sender-stats must have reached the subscriber, on the connection that
        carries its feed (per-feed: its own; multistream: the one connection, where Janus relays
        the data channels of all feeds): a RigError names the ones missing."""
        got: dict[tuple[str, str], int] = {}
        carried: dict[str, str] = {}         # subscriber pc -> the one publisher it carries
        for line in self.samples:
            if '"event":"subscriber-streams"' in line:
                ev = json.loads(line)
                names = {st.get("publisher") for st in ev["data"].get("streams", []) if st.get("publisher")}
                if ev["peer"] == "subscriber" and len(names) == 1:
                    carried[ev.get("pc")] = names.pop()
            if '"event":"sender-stats"' in line:
                ev = json.loads(line)
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

    def warm_up(self, pubs: list[Peer], sub: Peer) -> dict:
        """Unrecorded warm-up: wait until the subscriber decodes video of every publisher and each
        publisher's bandwidth estimate has ramped up (availableOutgoingBitrate >= --warmup-aob), at
        most --warmup-timeout s.
        Chrome's start-up probing sometimes fails and the estimate then climbs ~8 %/s for 10-15 s;
        without this the first seconds of the "clean" baseline would show a bandwidth-limited
        publisher. Events queued meanwhile are kept (they appear before t0 in the recording)."""
        a = self.args
        t_start = time.monotonic()
        deadline = t_start + a.warmup_timeout
        ps, ss = {}, {}
        while True:
            with contextlib.suppress(WebDriverError):
                ps = {p.name: p.quick() for p in pubs}
                ss = sub.quick()
            if ss.get("phase") == "error" or any(x.get("phase") == "error" for x in ps.values()):
                raise RigError(f"page error during warm-up: publishers {ps} subscriber {ss}")
            aobs = [x.get("aob") or 0 for x in ps.values()] or [0]
            aob = min(aobs)
            ok = ss.get("phase") == "subscribed" and (ss.get("framesDecoded") or 0) > 0 and \
                (ss.get("videoInbound") or 0) >= len(pubs) and aob >= a.warmup_aob
            if ok or time.monotonic() >= deadline:
                break
            time.sleep(0.5)
        took = round(time.monotonic() - t_start, 1)
        if ok:
            log(f"warm-up done in {took}s (publisher availableOutgoingBitrate {aobs})")
        else:
            log(f"warm-up NOT complete after {took}s (publishers {ps}, subscriber {ss}); recording anyway")
        out = {"seconds": took, "publisher_available_outgoing_bitrate": aob, "target_bitrate": a.warmup_aob,
               "complete": ok}
        if len(pubs) > 1:       # the field above is then the least of them
            out["publishers_available_outgoing_bitrate"] = {p.name: (ps.get(p.name) or {}).get("aob") for p in pubs}
        return out

    def wait_phase(self, peer: Peer, phases: set[str], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        st = {}
        while time.monotonic() < deadline:
            st = peer.state()
            if st.get("phase") in phases:
                return
            if st.get("phase") == "error":
                raise RigError(f"{peer.name} page error: {st.get('error')}")
            time.sleep(0.3)
        raise RigError(f"{peer.name} did not reach {phases} in {timeout}s (state {st})")

    def add_event(self, peer: str, name: str, data: dict, t: int | None = None, pc: str | None = None) -> None:
        line = {"t": t or int(time.time() * 1000), "peer": peer}
        if pc:
            line["pc"] = pc          # the peer connection the event is about
        line.update(event=name, data=data)
        self.samples.append(json.dumps(line, separators=(",", ":")))

    def absorb(self, peer: str, c: dict) -> None:
        for ev in c.get("events", []):
            self.add_event(peer, ev["event"], ev.get("data", {}), ev.get("t"), ev.get("pc"))
        for pcs in c.get("pcs", []):
            if pcs.get("report"):
                self.samples.append(json.dumps({"t": c["t"], "peer": peer, "pc": pcs["pc"], "report": pcs["report"]},
                                               separators=(",", ":")))

    def write_output(self, scenario: dict, t0: int) -> None:
        out = self.args.out
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        tmp = out + ".part"
        opener = gzip.open if out.endswith(".gz") else open
        with opener(tmp, "wt", encoding="utf-8") as f:
            f.write(json.dumps(self.header, separators=(",", ":")) + "\n")
            for line in self.samples:
                f.write(line + "\n")
        os.replace(tmp, out)
        log(f"wrote {out} ({os.path.getsize(out)} bytes, {len(self.samples)} lines after header)")
        if self.args.scenario:
            actual = {}
            for line in self.samples:
                if '"peer":"rig"' in line:
                    ev = json.loads(line)
                    idx = ev["data"].get("index")
                    st, en = actual.get(idx, (None, None))
                    if ev["event"] == "impairment-start":
                        st = ev["t"] - t0
                    elif ev["event"] == "impairment-end":
                        en = ev["t"] - t0
                    actual[idx] = (st, en)
            actual = {i: v for i, v in actual.items() if v[0] is not None and v[1] is not None}
            path = labels.write_labels(out, scenario, self.header["seconds"], t0, actual)
            log(f"wrote {path}")

    # ---- webrtc-internals
    def open_internals(self, peer: Peer) -> None:
        wd = peer.wd
        nw = wd.call("POST", wd.s("/window/new"), {"type": "window"})
        wd.call("POST", wd.s("/window"), {"handle": nw["handle"]})
        wd.navigate("chrome://webrtc-internals")
        self.internals_window = nw["handle"]
        wd.call("POST", wd.s("/window"), {"handle": peer.main_window})
        log(f"webrtc-internals open in a second window of the {peer.name} browser")

    def write_frames(self, sub: Peer) -> None:
        """Writes --frames-count frames the subscriber decoded, of simulcast layer
        --frames-substream, as YUV4MPEG2 (gzip when the name ends in .gz, like `gzip -9 -n`).
        The frames are WebCodecs copies of what libwebrtc's decoder output: I420 planes, packed."""
        a = self.args
        scale = 4 >> a.frames_substream             # layers q, h, f = top size / 4, / 2, / 1
        width, height = a.width // scale, a.height // scale
        sub.wd.set_timeouts(script_ms=60000)
        got = sub.capture_frames(a.frames_count, a.frames_substream, width, height)
        sub.wd.set_timeouts(script_ms=20000)
        if got.get("error") or got.get("format") != "I420":
            raise RigError(f"frame capture failed: {got.get('error') or 'format ' + str(got.get('format'))}")
        space = got.get("colorSpace") or {}
        full = space.get("fullRange") is True
        # Y4M has no matrix field: keep WebCodecs' matrix as an X parameter (readers ignore it).
        # The header stays short: ffmpeg refuses Y4M headers over 128 bytes.
        extras = [f"XCOLORRANGE={'FULL' if full else 'LIMITED'}"]
        if space.get("matrix"):
            extras.append(f"XWEBCODECS_MATRIX={space['matrix']}")
        header = f"YUV4MPEG2 W{got['width']} H{got['height']} F{a.fps}:1 Ip A1:1 C420jpeg {' '.join(extras)}\n"
        frame_bytes = got["width"] * got["height"] + 2 * ((got["width"] + 1) // 2) * ((got["height"] + 1) // 2)
        body = bytearray(header.encode("ascii"))
        rtp = got.get("rtpTimestamps") or [None] * len(got["frames"])
        for text, timestamp in zip(got["frames"], rtp):
            data = base64.b64decode(text)
            if len(data) != frame_bytes:
                raise RigError(f"captured frame has {len(data)} bytes, I420 {got['width']}x{got['height']} needs {frame_bytes}")
            # The frame's 90 kHz RTP timestamp, as a frame parameter (ffmpeg and others skip it).
            body += (f"FRAME XRTP={timestamp}\n" if timestamp is not None else "FRAME\n").encode("ascii") + data
        out = a.frames
        write_file(out, bytes(body))
        log(f"frames -> {out}: {len(got['frames'])} decoded frames {got['width']}x{got['height']} I420, "
            f"colour space {space}, RTP timestamps {got.get('rtpTimestamps')}")

    def dump_internals(self, peer: Peer) -> None:
        wd = peer.wd
        out = self.args.webrtc_internals
        try:
            wd.call("POST", wd.s("/window"), {"handle": self.internals_window})
            data = get_internals_dump(peer)
            if data is None:
                log("webrtc-internals dump: not obtained")
                return
            text = json.dumps(data)
            if len(text) > 300_000 and not out.endswith(".gz"):
                out = out + ".gz"
            write_file(out, text.encode("utf-8"))
            log(f"webrtc-internals dump -> {out} ({len(text)} chars json)")
        except Exception as e:
            log(f"webrtc-internals dump failed: {e}")
        finally:
            with contextlib.suppress(Exception):
                wd.call("POST", wd.s("/window"), {"handle": peer.main_window})

    # ---- cleanup
    def cleanup(self) -> None:
        for peer in self.peers.values():
            with contextlib.suppress(Exception):
                peer.stop()
        with contextlib.suppress(Exception):
            self.impair.clear()
        if self.page_server:
            with contextlib.suppress(Exception):
                self.page_server.stop()
        for p in list(self.procs):
            with contextlib.suppress(Exception):
                self.reap(p)
        if self.netlab:
            with contextlib.suppress(Exception):
                self.netlab.teardown()
        self.book.clear()
        if not self.args.keep_tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)
        else:
            log(f"kept {self.tmp}")


def get_internals_dump(peer: Peer):
    """Click the page's own "Download the webrtc-internals dump" button with downloads allowed into
    the peer's download dir, then read the file it wrote."""
    wd = peer.wd
    with contextlib.suppress(Exception):
        wd.cdp("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": peer.download_dir,
                                               "eventsEnabled": False})
    before = set(os.listdir(peer.download_dir))
    clicked = wd.execute(INTERNALS_CLICK_JS)
    log(f"webrtc-internals: {clicked}")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        new = [f for f in set(os.listdir(peer.download_dir)) - before
               if not f.endswith(".crdownload") and not f.endswith(".tmp")]
        if new:
            path = os.path.join(peer.download_dir, sorted(new)[0])
            time.sleep(0.5)
            with open(path, "rb") as f:
                raw = f.read()
            if raw[:2] == b"\x1f\x8b":           # the page gzips the dump when "compress" is ticked
                raw = gzip.decompress(raw)
            log(f"webrtc-internals: downloaded {os.path.basename(path)} ({len(raw)} bytes of JSON)")
            return json.loads(raw.decode("utf-8"))
        time.sleep(0.3)
    return None


INTERNALS_CLICK_JS = r"""
// Find the "Create Dump" section's download button (inside <details>), open it and click.
const all = [...document.querySelectorAll('button, input[type=button]')];
const det = [...document.querySelectorAll('details')];
det.forEach(d => d.open = true);
const btn = all.find(b => /download/i.test(b.textContent || b.value || ''));
if (!btn) return 'no download button; buttons: ' + all.map(b => (b.textContent || b.value)).join('|');
btn.click();
return 'clicked: ' + (btn.textContent || btn.value);
"""


def group_cpu_seconds(pgids: dict[str, int]) -> dict[str, float]:
    """utime+stime (s) of all live processes per process group, for the header's CPU figures."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {name: 0.0 for name in pgids}
    by_pgid = {v: k for k, v in pgids.items()}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                data = f.read()
            fields = data[data.rindex(")") + 2:].split()
            pgid = int(fields[2])
            if pgid in by_pgid:
                out[by_pgid[pgid]] += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, ValueError, IndexError):
            continue
    return out


def netns_cpu_seconds(ns: str) -> float:
    """utime+stime (s) of all live processes in network namespace `ns` (`ip netns pids`)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in run(["ip", "netns", "pids", ns], check=False).stdout.split():
        with contextlib.suppress(OSError, ValueError, IndexError):
            with open(f"/proc/{pid}/stat") as f:
                data = f.read()
            fields = data[data.rindex(")") + 2:].split()
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def cpu_times() -> tuple[float, float]:
    with open("/proc/stat") as f:
        parts = [float(x) for x in f.readline().split()[1:]]
    idle = parts[3] + parts[4]
    total = sum(parts[:8])
    return total - idle, total


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
            PidBook.cleanup_stale()
        except RigError as e:
            log(f"FAILED: {e}")
            return 1
        log("clean-up done")
        return 0
    if not args.out:
        ap.error("--out is required")
    try:
        PidBook.cleanup_stale()
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
