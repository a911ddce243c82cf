#!/usr/bin/env python3
"""Real discoverability tests: `callscope discover` against a real coturn and hostile servers.

    python3 Rig/discover_real.py [--cli PATH] [--cycles N] [--json OUT] [--keep]

As root (network namespace, iptables). Python 3.11 standard library only. Starts:
- a network namespace `csstun-<pid>` joined to the root namespace by a veth pair
  (root side 10.202.N.1, namespace side 10.202.N.2, N from the pid), loopback up, no other route;
- coturn in the root namespace on 10.202.N.1 with Rig/coturn/turnserver.conf (free port picked now,
  lt-cred-mech, one static user), its files in a temp run directory;
and runs `callscope discover` inside the namespace:
1. open network                        -> udp (exit 0), the binding answered; with the first
   answer dropped (iptables statistic nth) -> still udp, answered after 2 transmissions;
2. UDP dropped (iptables INPUT DROP in the ns) -> tcp (exit 0), after the binding's 3 transmissions;
3. UDP dropped, wrong TURN password     -> offline (exit 1), 401 in the detail;
4. everything dropped                   -> offline (exit 1);
5. unblocked                            -> udp again;
   coturn's own log must show each granted allocation refreshed with lifetime 0 and deleted;
6. `--watch` (interval 1 s): block UDP, then everything, then nothing; the time from each
   iptables change to the line reporting the new level is measured and checked against the
   bound the probe timings give (see BOUNDS), N cycles;
7. network change: with a 60 s interval, UDP and TCP dropped and then an address added to the
   namespace's interface -> offline within two rounds (the watcher polls the interface
   addresses); unblocked and the address removed -> udp at once;
8. hostile UDP servers on 127.0.0.1 (root namespace): a liar that sends junk, a response for
   another transaction id, one with a broken FINGERPRINT and a request before the real answer
   (-> udp with 4 ignored and counted), and a silent one whose arrival times show the RTO
   backoff (3 sends at 0, 0.5, 1.5 s, then offline at 2.5 s); and a TURN server over TCP that
   checks our MESSAGE-INTEGRITY with Python's hmac/hashlib and answers each authenticated
   request first with a success signed under a wrong key (-> tcp, 2 ignored and counted).
Every path (success, failure, SIGINT/SIGTERM/SIGHUP) stops coturn and the watcher by pid,
deletes the namespace (and with it its veth peer and iptables rules) and the run directory.
Prints "PASS: ..." or "FAIL: ..." last; exit 0 only on PASS.
"""
import argparse
import hashlib
import hmac
import json
import os
import queue
import random
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

from callscope_rig import REPO_DIR, netlab
from callscope_rig.janus import Coturn
from callscope_rig.procs import Processes, RigError, configure_log, kill_group, log, pid_alive, run

PREFIX = "csstun-"
USER, PASSWORD, REALM = "callscope", "discover-me", "callscope.test"

# The probe's timings (Sources/ConnectivityProbe defaults) and the watch interval used here.
UDP_GIVE_UP = 2.5       # s: sends at 0, 0.5, 1.5 s, gives up at 2.5 s
TCP_TIMEOUT = 2.5       # s: the whole TCP allocation
INTERVAL = 1.0          # s: --interval of the watch
SLACK = 1.5             # s: process start-up, scheduling on a shared 2-core machine
# Worst case from an iptables change to the report, with 2 rounds to agree on a worse level
# (a full round, then a confirming round that re-checks only the current level's probe):
BOUNDS = {
    # the round in flight may still succeed; interval; full round (UDP times out, TCP answers);
    # confirming round (UDP times out)
    "udp->tcp": INTERVAL + 2 * UDP_GIVE_UP + SLACK,
    # the round in flight may still succeed; interval; full round (both time out); confirming
    # round (TCP times out)
    "tcp->offline": INTERVAL + UDP_GIVE_UP + 2 * TCP_TIMEOUT + SLACK,
    # the round in flight may be in its TCP part; then interval; a binding answered at once
    "offline->udp": TCP_TIMEOUT + INTERVAL + SLACK,
}


class Failure(RigError):
    """An expectation that did not hold."""


def remove_stale_namespaces() -> None:
    """Namespaces of earlier runs whose process is gone (name csstun-<pid>)."""
    for name in netlab.namespaces():
        suffix = name[len(PREFIX):]
        if name.startswith(PREFIX) and suffix.isdigit() and not pid_alive(int(suffix)):
            log(f"removing stale namespace {name}")
            run(["ip", "netns", "del", name], check=False)


def remove_stale_runs() -> None:
    """Run directories of runners that were killed (SIGKILL leaves no chance to clean up): stop
    their coturn and delete them."""
    for name in os.listdir(tempfile.gettempdir()):
        run_dir = os.path.join(tempfile.gettempdir(), name)
        if not name.startswith("callscope-discover-") or not os.path.isdir(run_dir):
            continue
        try:
            with open(os.path.join(run_dir, "runner.pid")) as f:
                runner = int(f.read().strip())
        except (OSError, ValueError):
            continue
        if pid_alive(runner):
            continue
        Coturn.stop_stale(run_dir)
        shutil.rmtree(run_dir, ignore_errors=True)


class Run:
    def __init__(self, cli: str, keep: bool):
        self.cli, self.keep = cli, keep
        pid = os.getpid()
        octet = pid % 250 + 1
        # No route, no resolver: the client reaches only coturn on the root end of its veth.
        self.link = netlab.Link(f"{PREFIX}{pid}", f"csstun{pid}h"[:15], f"csstun{pid}n"[:15],
                                f"10.202.{octet}.1", f"10.202.{octet}.2")
        self.ns, self.host_ip, self.ns_ip = self.link.ns, self.link.root_ip, self.link.ns_ip
        self.run_dir = tempfile.mkdtemp(prefix="callscope-discover-")
        self.procs = Processes()
        self.coturn = Coturn(self.procs, self.run_dir)
        self.watch = None
        self.ns_made = False
        self.port = 0

    # ---- set-up and clean-up
    def setup(self) -> None:
        remove_stale_namespaces()
        remove_stale_runs()
        with open(os.path.join(self.run_dir, "runner.pid"), "w") as f:
            f.write(str(os.getpid()))
        self.ns_made = True
        self.link.create()
        self.port = self.coturn.start(self.host_ip, REALM, USER, PASSWORD)
        log(f"coturn on {self.host_ip}:{self.port} (pid {self.coturn.proc.pid}), client namespace {self.ns} ({self.ns_ip})")

    def cleanup(self) -> None:
        if self.watch is not None:
            kill_group(self.watch.pid)
            self.watch = None
        self.procs.reap_all()                           # coturn
        if self.ns_made:
            self.link.delete(kill_processes=False)      # the veth pair, the namespace's iptables rules
            self.ns_made = False
        if self.keep:
            log(f"kept {self.run_dir}")
        else:
            shutil.rmtree(self.run_dir, ignore_errors=True)

    # ---- network states (iptables in the client's namespace only)
    def block(self, udp: bool, tcp: bool, first_udp_lost: bool = False) -> None:
        """DROP what arrives in the client's namespace: requests leave, answers vanish, as
        behind a firewall that drops silently (an OUTPUT rule would fail send() at once).
        `first_udp_lost`: only every other UDP datagram, starting with the first."""
        netlab.iptables(self.ns, ["-F", "INPUT"])
        if first_udp_lost:
            netlab.iptables(self.ns, ["-A", "INPUT", "-p", "udp", "-m", "statistic", "--mode", "nth", "--every", "2",
                                      "--packet", "0", "-j", "DROP"])
        if udp:
            netlab.iptables(self.ns, ["-A", "INPUT", "-p", "udp", "-j", "DROP"])
        if tcp:
            netlab.iptables(self.ns, ["-A", "INPUT", "-p", "tcp", "-j", "DROP"])

    # ---- the CLI
    def discover_args(self, password: str = PASSWORD) -> list:
        server = f"{self.host_ip}:{self.port}"
        return [self.cli, "discover", "--stun", server, "--turn", server, "--user", USER, "--password", password,
                "--format", "ndjson"]

    def discover_once(self, password: str = PASSWORD) -> tuple:
        start = time.monotonic()
        r = run(netlab.nsx(self.ns) + self.discover_args(password), check=False, timeout=30)
        wall = time.monotonic() - start
        lines = [line for line in r.stdout.splitlines() if line.strip()]
        if len(lines) != 1:
            raise Failure(f"discover printed {len(lines)} lines (exit {r.returncode}): {r.stdout!r} {r.stderr!r}")
        return json.loads(lines[0]), r.returncode, wall


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise Failure(message)


def one_shot_cases(rig: Run, results: dict) -> None:
    cases = [
        ("open", False, False, PASSWORD, "udp", 0),
        ("udp-blocked", True, False, PASSWORD, "tcp", 0),
        ("udp-blocked-wrong-password", True, False, "not-the-password", "offline", 1),
        ("all-blocked", True, True, PASSWORD, "offline", 1),
        ("unblocked", False, False, PASSWORD, "udp", 0),
    ]
    for name, udp, tcp, password, want, want_rc in cases:
        rig.block(udp, tcp)
        report, rc, wall = rig.discover_once(password)
        probes = {p["probe"]: p for p in report["probes"]}
        if name == "open":
            # One lost answer is not offline: the retransmission 0.5 s later is answered.
            rig.block(False, False, first_udp_lost=True)
            lossy, lossy_rc, _ = rig.discover_once()
            binding = lossy["probes"][0]
            log(f"first answer lost: {lossy['status']} (exit {lossy_rc}), {binding['ms']} ms: {binding['detail']}")
            expect(lossy["status"] == "udp" and "after 2 transmissions" in binding["detail"], "first answer lost: udp after 2 transmissions expected")
            expect(0.5 <= binding["ms"] / 1000 <= 0.5 + SLACK, f"first answer lost: answered after {binding['ms']} ms, expected just after 500")
            results["one_shot"]["first-answer-lost"] = {"status": lossy["status"], "ms": binding["ms"]}
        log(f"{name}: {report['status']} (exit {rc}) in {wall * 1000:.0f} ms wall; "
            + "; ".join(f"{p['probe']} {'ok' if p['ok'] else 'failed'} {p['ms']} ms: {p['detail']}" for p in report["probes"]))
        expect(report["status"] == want and rc == want_rc, f"{name}: expected {want} / exit {want_rc}, got {report['status']} / exit {rc}")
        if want == "udp":
            expect(probes["udpBinding"]["ok"] and "tcpAllocation" not in probes, f"{name}: the binding must answer, no TCP probe")
        if udp:
            expect("after 3 transmissions" in probes["udpBinding"]["detail"], f"{name}: the binding must time out after 3 sends")
            expect(2.4 <= probes["udpBinding"]["ms"] / 1000 <= 2.5 + SLACK, f"{name}: the binding gives up at 2.5 s, took {probes['udpBinding']['ms']} ms")
        if want == "tcp":
            expect(probes["tcpAllocation"]["ok"] and "freed with Refresh lifetime 0" in probes["tcpAllocation"]["detail"], f"{name}: allocation granted and freed")
        if password != PASSWORD:
            expect("401" in probes["tcpAllocation"]["detail"], f"{name}: a refused password must say 401")
        results["one_shot"][name] = {"status": report["status"], "exit": rc, "wall_ms": round(wall * 1000, 1),
                                     "probes": {p["probe"]: p["ms"] for p in report["probes"]}}


def check_coturn_freed(rig: Run, granted: int) -> None:
    """coturn's own log: every granted allocation was refreshed with lifetime 0 and deleted."""
    time.sleep(0.3)
    text = rig.coturn.log_text()
    refreshed = text.count("refreshed, realm=<callscope.test>, username=<callscope>, lifetime=0")
    deleted = text.count("delete: realm=<callscope.test>")
    log(f"coturn log: {refreshed} allocations refreshed with lifetime 0, {deleted} sessions deleted")
    expect(refreshed >= granted, f"coturn saw {refreshed} Refresh(0) for {granted} granted allocations")
    expect(deleted >= granted, f"coturn deleted {deleted} sessions for {granted} granted allocations")


class Watch:
    """`callscope discover --watch` in the client's namespace; its ndjson lines with arrival times."""

    def __init__(self, rig: Run, seconds: float, interval: float):
        args = netlab.nsx(rig.ns) + rig.discover_args() + ["--watch", str(seconds), "--interval", str(interval)]
        self.rig = rig
        rig.watch = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, args=(rig.watch.stdout,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.put((time.monotonic(), line))
        self.lines.put((time.monotonic(), None))

    def wait_for(self, status: str, since: float, limit: float) -> float:
        """Seconds from `since` to the line reporting `status` (other levels on the way are logged)."""
        while True:
            remaining = since + limit + 5 - time.monotonic()
            try:
                arrived, line = self.lines.get(timeout=max(0.01, remaining))
            except queue.Empty:
                raise Failure(f"watch: no '{status}' within {limit + 5:.1f} s")
            if line is None:
                raise Failure(f"watch ended before reporting '{status}'")
            report = json.loads(line)
            log(f"  watch: {report['status']} at +{arrived - since:.2f} s")
            if report["status"] == status:
                return arrived - since

    def stop(self) -> None:
        kill_group(self.rig.watch.pid)
        self.rig.watch.wait(timeout=5)
        self.rig.watch = None


def watch_cycles(rig: Run, cycles: int, results: dict) -> None:
    rig.block(False, False)
    watch = Watch(rig, 20 + cycles * 35, INTERVAL)
    wait_for = watch.wait_for
    wait_for("udp", time.monotonic(), 10)
    measured = {key: [] for key in BOUNDS}
    for cycle in range(cycles):
        for key, (udp, tcp), pause in (("udp->tcp", (True, False), 2.0), ("tcp->offline", (True, True), 2.0),
                                        ("offline->udp", (False, False), 1.0)):
            time.sleep(pause + random.random())          # a different phase against the rounds each time
            changed = time.monotonic()
            rig.block(udp, tcp)
            delay = wait_for(key.split("->")[1], changed, BOUNDS[key])
            log(f"cycle {cycle + 1}: {key} reported {delay:.2f} s after the iptables change (bound {BOUNDS[key]:.1f} s)")
            expect(delay <= BOUNDS[key], f"{key} took {delay:.2f} s, bound {BOUNDS[key]:.1f} s")
            measured[key].append(round(delay, 2))
    results["watch"] = {key: {"seconds": values, "max": max(values), "bound": BOUNDS[key]} for key, values in measured.items()}
    watch.stop()


def network_change(rig: Run, results: dict) -> None:
    """With a 60 s interval, only a network change can explain a prompt re-evaluation: block
    everything, then add an address to the namespace's interface (the watcher sees its interface
    addresses change) -> offline within two offline rounds; unblock and remove it -> udp at once."""
    rig.block(False, False)
    watch = Watch(rig, 90, 60)
    watch.wait_for("udp", time.monotonic(), 10)
    nsx = netlab.nsx(rig.ns)
    extra = rig.ns_ip.rsplit(".", 1)[0] + ".3/24"
    time.sleep(1)
    rig.block(True, True)
    time.sleep(1)
    changed = time.monotonic()
    run(nsx + ["ip", "addr", "add", extra, "dev", rig.link.ns_if])
    bound = 0.25 + 2 * UDP_GIVE_UP + TCP_TIMEOUT + SLACK      # full round, then UDP re-checked
    offline = watch.wait_for("offline", changed, bound)
    log(f"network change (address added) -> offline in {offline:.2f} s (bound {bound:.1f} s; the 60 s timer alone would take up to 60 s)")
    expect(offline <= bound, f"network change: offline after {offline:.2f} s, bound {bound:.1f} s")
    rig.block(False, False)
    changed = time.monotonic()
    run(nsx + ["ip", "addr", "del", extra, "dev", rig.link.ns_if])
    bound_up = 0.25 + SLACK
    back = watch.wait_for("udp", changed, bound_up)
    log(f"network change (address removed, unblocked) -> udp in {back:.2f} s (bound {bound_up:.1f} s)")
    expect(back <= bound_up, f"network change: udp after {back:.2f} s, bound {bound_up:.1f} s")
    results["network_change"] = {"offline_s": round(offline, 2), "udp_s": round(back, 2)}
    watch.stop()


# ---- hostile servers (root namespace, loopback)
def stun_message(msg_type: int, tid: bytes, attrs: bytes = b"", fingerprint: bool = True) -> bytes:
    """A STUN message built here, independently of the Swift encoder (CRC from zlib)."""
    header = struct.pack("!HHI", msg_type, len(attrs) + (8 if fingerprint else 0), 0x2112A442) + tid
    body = header + attrs
    if fingerprint:
        body += struct.pack("!HHI", 0x8028, 4, (zlib.crc32(body) ^ 0x5354554E) & 0xFFFFFFFF)
    return body


def xor_mapped(addr: tuple, tid: bytes) -> bytes:
    ip = bytes(int(x) for x in addr[0].split("."))
    cookie = struct.pack("!I", 0x2112A442)
    value = struct.pack("!BBH", 0, 1, addr[1] ^ 0x2112) + bytes(a ^ b for a, b in zip(ip, cookie))
    return struct.pack("!HH", 0x0020, len(value)) + value


def hostile_server(mode: str, arrivals: list, ready: threading.Event, stop: threading.Event, port_box: list) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        s.settimeout(0.1)
        port_box.append(s.getsockname()[1])
        ready.set()
        while not stop.is_set():
            try:
                data, peer = s.recvfrom(2048)
            except socket.timeout:
                continue
            arrivals.append(time.monotonic())
            if mode == "silent" or len(data) < 20:
                continue
            tid = data[8:20]
            other = bytes(b ^ 0xFF for b in tid)
            broken = bytearray(stun_message(0x0101, tid, xor_mapped(peer, tid)))
            broken[-1] ^= 0x01
            for junk in (b"\x17\xfe\xfd not stun", stun_message(0x0101, other, xor_mapped(peer, other)), bytes(broken),
                         stun_message(0x0001, tid)):
                s.sendto(junk, peer)
            s.sendto(stun_message(0x0101, tid, xor_mapped(peer, tid)), peer)


def stun_attr(attr_type: int, value: bytes) -> bytes:
    return struct.pack("!HH", attr_type, len(value)) + value + b"\0" * (-len(value) % 4)


def stun_signed(msg_type: int, tid: bytes, attrs: bytes, key: bytes) -> bytes:
    """With MESSAGE-INTEGRITY (HMAC-SHA1 from Python's hmac, length covering it) and FINGERPRINT."""
    header = struct.pack("!HHI", msg_type, len(attrs) + 24, 0x2112A442) + tid
    mac = hmac.new(key, header + attrs, hashlib.sha1).digest()
    body = header[:2] + struct.pack("!H", len(attrs) + 24 + 8) + header[4:] + attrs + stun_attr(0x0008, mac)
    return body + struct.pack("!HHI", 0x8028, 4, (zlib.crc32(body) ^ 0x5354554E) & 0xFFFFFFFF)


def stun_parse(data: bytes) -> tuple:
    """(type, tid, {attr type: value}, offset of MESSAGE-INTEGRITY or None)."""
    msg_type, length = struct.unpack("!HH", data[:4])
    attrs, offset, integrity = {}, 20, None
    while offset + 4 <= 20 + length:
        attr_type, size = struct.unpack("!HH", data[offset:offset + 4])
        if attr_type == 0x0008:
            integrity = offset
        attrs.setdefault(attr_type, data[offset + 4:offset + 4 + size])
        offset += 4 + size + (-size % 4)
    return msg_type, data[8:20], attrs, integrity


def client_integrity_ok(data: bytes, integrity: int, key: bytes) -> bool:
    covered = data[:2] + struct.pack("!H", integrity + 24 - 20) + data[4:integrity]
    return hmac.compare_digest(hmac.new(key, covered, hashlib.sha1).digest(), data[integrity + 4:integrity + 24])


def hostile_turn_server(sock: socket.socket, seen: dict) -> None:
    """One TCP connection: 401 + REALM + NONCE; then checks the client's MESSAGE-INTEGRITY under
    MD5(user:realm:password) itself, answers a success signed with a wrong key first (must be
    ignored) and then the real one; Refresh the same way (LIFETIME 0 checked)."""
    key = hashlib.md5(f"{USER}:{REALM}:{PASSWORD}".encode()).digest()
    wrong = hashlib.md5(f"{USER}:{REALM}:not-it".encode()).digest()
    conn, _ = sock.accept()
    conn.settimeout(5)
    buffer = b""
    with conn:
        while True:
            while len(buffer) < 20 or len(buffer) < 20 + struct.unpack("!H", buffer[2:4])[0]:
                chunk = conn.recv(4096)
                if not chunk:
                    return
                buffer += chunk
            size = 20 + struct.unpack("!H", buffer[2:4])[0]
            data, buffer = buffer[:size], buffer[size:]
            msg_type, tid, attrs, integrity = stun_parse(data)
            method = msg_type & 0x3EEF
            if integrity is None:
                seen["unauthenticated"] = seen.get("unauthenticated", 0) + 1
                reply = stun_attr(0x0009, b"\0\0\x04\x01Unauthorized") + stun_attr(0x0014, REALM.encode()) + stun_attr(0x0015, b"n0nce")
                conn.sendall(stun_message(0x0110 | method, tid, reply))
                continue
            ok = client_integrity_ok(data, integrity, key) and attrs.get(0x0006) == USER.encode() \
                and attrs.get(0x0014) == REALM.encode() and attrs.get(0x0015) == b"n0nce"
            seen.setdefault("client_integrity_ok", []).append(ok)
            if method == 0x0004:
                seen["refresh_lifetime"] = struct.unpack("!I", attrs.get(0x000D, b"\xff\xff\xff\xff"))[0]
            success = 0x0100 | method
            relayed = xor_mapped(("127.0.0.1", 50000), tid).replace(b"\x00\x20", b"\x00\x16", 1) if method == 0x0003 else b""
            conn.sendall(stun_signed(success, tid, relayed, wrong) + stun_signed(success, tid, relayed, key))


def hostile_turn_case(results: dict, cli: str) -> None:
    seen: dict = {}
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as closed:
        sock.bind(("127.0.0.1", 0))
        sock.listen(1)
        closed.bind(("127.0.0.1", 0))
        udp_port = closed.getsockname()[1]
        closed.close()                                   # nothing listens: ICMP port unreachable at once
        thread = threading.Thread(target=hostile_turn_server, args=(sock, seen), daemon=True)
        thread.start()
        r = run([cli, "discover", "--stun", f"127.0.0.1:{udp_port}", "--turn", f"127.0.0.1:{sock.getsockname()[1]}",
                 "--user", USER, "--password", PASSWORD, "--format", "ndjson"], check=False, timeout=30)
        thread.join(5)
    report = json.loads(r.stdout.strip().splitlines()[-1])
    probe = {p["probe"]: p for p in report["probes"]}.get("tcpAllocation", {})
    log(f"hostile TURN: {report['status']} (exit {r.returncode}), ignored {probe.get('ignored')}: {probe.get('detail')}; server saw {seen}")
    expect(report["status"] == "tcp" and r.returncode == 0, "hostile TURN: the correctly signed success must count")
    expect(probe.get("ignored") == 2 and "bad message integrity" in probe.get("detail", ""),
           "hostile TURN: the two successes signed with a wrong key (Allocate, Refresh) must be ignored and counted")
    expect(seen.get("client_integrity_ok") == [True, True], f"hostile TURN: our MESSAGE-INTEGRITY must check in Python: {seen}")
    expect(seen.get("refresh_lifetime") == 0, "hostile TURN: Refresh must carry LIFETIME 0")
    results["hostile"]["turn"] = {"ignored": probe.get("ignored"), "client_integrity_ok": seen.get("client_integrity_ok")}


def hostile_cases(rig: Run, results: dict) -> None:
    hostile_turn_case(results, rig.cli)
    for mode in ("liar", "silent"):
        arrivals, ready, stop, port_box = [], threading.Event(), threading.Event(), []
        thread = threading.Thread(target=hostile_server, args=(mode, arrivals, ready, stop, port_box), daemon=True)
        thread.start()
        ready.wait(5)
        try:
            r = run([rig.cli, "discover", "--stun", f"127.0.0.1:{port_box[0]}", "--format", "ndjson"], check=False, timeout=30)
        finally:
            stop.set()
            thread.join(5)
        report = json.loads(r.stdout.strip().splitlines()[-1])
        probe = report["probes"][0]
        log(f"hostile '{mode}': {report['status']} (exit {r.returncode}), {probe['ms']} ms, ignored {probe['ignored']}: {probe['detail']}")
        if mode == "liar":
            expect(report["status"] == "udp" and r.returncode == 0, "liar: the real answer after the junk must count")
            expect(probe["ignored"] == 4, f"liar: 4 untrusted datagrams must be ignored and counted, got {probe['ignored']}")
            results["hostile"]["liar"] = {"ignored": probe["ignored"], "ms": probe["ms"]}
        else:
            expect(report["status"] == "offline" and r.returncode == 1, "silent: no answer is offline")
            expect(len(arrivals) == 3, f"silent: 3 transmissions expected, the server got {len(arrivals)}")
            gaps = [round(b - a, 3) for a, b in zip(arrivals, arrivals[1:])]
            log(f"hostile 'silent': retransmission gaps {gaps} s (RTO 0.5 s, doubled)")
            expect(0.4 <= gaps[0] <= 0.5 + 0.3 and 0.9 <= gaps[1] <= 1.0 + 0.3, f"silent: gaps {gaps}, expected ~0.5 and ~1.0 s")
            expect(2.4 <= probe["ms"] / 1000 <= 2.5 + SLACK, f"silent: gives up at 2.5 s, took {probe['ms']} ms")
            results["hostile"]["silent"] = {"gaps_s": gaps, "gave_up_ms": probe["ms"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cli", help="path to a built callscope (default: swift build --show-bin-path)")
    parser.add_argument("--cycles", type=int, default=1, help="watch cycles (block UDP, block all, unblock)")
    parser.add_argument("--json", help="write the measurements here")
    parser.add_argument("--keep", action="store_true", help="keep the run directory (coturn config and log)")
    a = parser.parse_args()
    configure_log("discover-real", sys.stdout)
    if os.geteuid() != 0:
        print("FAIL: discover-real: must run as root (network namespace, iptables)")
        return 1
    for tool in ("ip", "iptables", "turnserver"):
        if shutil.which(tool) is None:
            print(f"FAIL: discover-real: missing {tool} (Debian packages iproute2 iptables coturn)")
            return 1
    cli = a.cli
    if cli is None:
        bin_path = run(["swift", "build", "--show-bin-path"], timeout=300, cwd=REPO_DIR).stdout.strip()
        cli = os.path.join(bin_path, "callscope")
    if not os.access(cli, os.X_OK):
        print(f"FAIL: discover-real: {cli} is not built (swift build)")
        return 1

    def on_signal(signum, _frame):
        raise SystemExit(f"interrupted by {signal.Signals(signum).name}")

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
    started = time.monotonic()
    rig = Run(cli, a.keep)
    results = {"one_shot": {}, "hostile": {}, "bounds_s": BOUNDS}
    try:
        rig.setup()
        one_shot_cases(rig, results)
        check_coturn_freed(rig, granted=1)
        watch_cycles(rig, a.cycles, results)
        network_change(rig, results)
        hostile_cases(rig, results)
        results["took_s"] = round(time.monotonic() - started, 1)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(results, f, indent=1)
        verdict = ("PASS: discover-real: udp/tcp/offline/udp from real coturn; watch "
                   + ", ".join(f"{k} ≤ {v['max']:.2f} s" for k, v in results["watch"].items())
                   + f"; hostile answers ignored; {results['took_s']} s")
    except RigError as failure:                    # a Failure or a step of the set-up
        verdict = f"FAIL: discover-real: {failure}"
    except SystemExit as stop:
        verdict = f"FAIL: discover-real: {stop}"
    except Exception as error:                      # a bug here must still clean up and say FAIL
        verdict = f"FAIL: discover-real: {type(error).__name__}: {error}"
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN)
        rig.cleanup()
    print(verdict, flush=True)
    return 0 if verdict.startswith("PASS") else 1


if __name__ == "__main__":
    sys.exit(main())
