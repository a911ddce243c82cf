#!/usr/bin/env python3
"""Real-component tests of unattended probes (docs/live-calls.md), called by Scripts/test.sh under
the rig lock (they start Janus, chromedriver and Chromium, a network namespace, Prometheus).

1. `--only webdriver`: a chromedriver started here, inside a network namespace of its own
   (`csprobe-wd`, joined to ours by a veth pair: its loopback is not ours), serves the browsers of
   two `callscope call --webdriver` processes: Alice publishes through
   http://<namespace address>:<port>, Bob subscribes through a Grid-like proxy here (the API under
   /wd/hub, no DevTools passthrough: the engine must fall back to WebDriver execute/async).
   Janus' HTTP API is on our 127.0.0.1 (out of the browsers' reach), its ICE on the veth. The
   call must connect and media must flow (Bob's received video bytes grow, frames are decoded),
   every Chromium must run in the namespace and no callscope may start a chromedriver of its
   own. An unreachable endpoint must end the call with one line and exit 1, a bad URL exit 2.
2. `--only alerts`: `promtool check rules` on the shipped rules (Rig/prometheus/callscope-alerts.yml)
   and on the test's copy (the same rules, `for:` shortened); then a real Prometheus with that
   copy scrapes a `callscope probe --metrics-port` whose first call succeeds and whose next
   calls fail because Janus is stopped: CallScopeProbeCallsFailing must become pending, then
   firing, over Prometheus' HTTP API, while the probe's counters keep their series across the
   calls; the probe exits 1 after --max-failures failed calls in a row, one summary line per call.

Usage: python3 Scripts/test_probes.py [--callscope .build/debug/callscope] [--only webdriver|alerts] [--keep DIR]
"""
from __future__ import annotations

import argparse
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Rig"))
from callscope_rig.janus import Janus  # noqa: E402
from callscope_rig.netlab import Link, nsx  # noqa: E402
from callscope_rig.procs import Processes, configure_log, free_tcp_port, process_table, run  # noqa: E402
from callscope_rig.webdriver import CHROMEDRIVER_BIN, WebDriver  # noqa: E402

failures: list[str] = []
checks = 0


def check(condition: bool, message: str) -> None:
    global checks
    checks += 1
    if not condition:
        failures.append(message)
        print("FAIL:", message, file=sys.stderr)


def ndjson(path: str) -> list[dict]:
    out = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if line.startswith("{"):
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
    return out


# --------------------------------------------------------------------------- 1. --webdriver
WD_LINK = Link("csprobe-wd", "csprobe-wd0", "csprobe-wd1", "10.203.7.1", "10.203.7.2")


def grid_like_proxy(upstream: str, seen: dict[str, int]) -> http.server.ThreadingHTTPServer:
    """An endpoint shaped like an older Selenium Grid: its WebDriver API under /wd/hub, forwarded
    to `upstream`, and no DevTools passthrough (`goog/cdp/execute` answers 404 unknown command),
    so the engine must fall back to WebDriver execute/async. `seen` counts the commands by kind."""

    class Proxy(http.server.BaseHTTPRequestHandler):
        def forward(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0)) if self.command == "POST" else None
            path = self.path[len("/wd/hub"):] if self.path.startswith("/wd/hub") else None
            kind = "cdp" if path and path.endswith("/goog/cdp/execute") else "execute/async" if path and path.endswith("/execute/async") else "other"
            seen[kind] = seen.get(kind, 0) + 1
            if path is None or kind == "cdp":
                status, payload = 404, json.dumps({"value": {"error": "unknown command", "message": "not on this grid", "stacktrace": ""}}).encode()
            else:
                request = urllib.request.Request(upstream + path, data=body, method=self.command, headers={"Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(request, timeout=60) as r:
                        status, payload = r.status, r.read()
                except urllib.error.HTTPError as error:
                    status, payload = error.code, error.read()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_DELETE = forward

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def y4m_frames(directory: str) -> dict[str, int]:
    """Frames in each Y4M file of `directory`, counted from its header's size and the file's
    length (FRAME marker + W*H*3/2 bytes of I420 each), independently of the writer."""
    counts: dict[str, int] = {}
    for name in sorted(os.listdir(directory)) if os.path.isdir(directory) else []:
        if not name.endswith(".y4m"):
            continue
        path = os.path.join(directory, name)
        with open(path, "rb") as f:
            header = f.readline()
        fields = {t[:1]: t[1:] for t in header.decode("ascii", "replace").split()[1:]}
        width, height = int(fields["W"]), int(fields["H"])
        frame = len(b"FRAME\n") + width * height + 2 * ((width + 1) // 2) * ((height + 1) // 2)
        counts[name] = (os.path.getsize(path) - len(header)) // frame
    return counts


def test_webdriver(callscope: str, tmp: str, procs: Processes) -> None:
    started = time.monotonic()
    WD_LINK.delete()                           # a killed run's namespace
    WD_LINK.create()
    try:
        janus_dir = os.path.join(tmp, "wd-janus")
        os.makedirs(janus_dir)
        janus = Janus(procs, janus_dir).start("127.0.0.1", WD_LINK.root_if)
        port = 9515 + os.getpid() % 1000       # the namespace's own ports: nobody else binds there
        procs.spawn("chromedriver-ns", nsx(WD_LINK.ns) + [CHROMEDRIVER_BIN, f"--port={port}", "--allowed-ips=", "--allowed-origins=*",
                                                         f"--log-path={os.path.join(tmp, 'chromedriver-ns.log')}"],
                    os.path.join(tmp, "chromedriver-ns.out"))
        endpoint = f"http://{WD_LINK.ns_ip}:{port}"
        WebDriver(endpoint).wait_ready(20)
        # Alice straight to the chromedriver (DevTools passthrough); Bob through a Grid-like path
        # without it (WebDriver execute/async).
        seen: dict[str, int] = {}
        proxy = grid_like_proxy(endpoint, seen)
        grid = f"http://127.0.0.1:{proxy.server_address[1]}/wd/hub"
        common = [callscope, "call", "--janus", janus, "--format", "ndjson"]
        alice_log, bob_log = os.path.join(tmp, "wd-alice.log"), os.path.join(tmp, "wd-bob.log")
        alice = procs.spawn("alice", common + ["--webdriver", endpoint, "--display", "alice", "--publish", "--subscribe", "none", "--duration", "16"], alice_log)
        time.sleep(3)
        # Bob also saves the video he receives: the remote browser sends its frames back to our
        # frame channel on the veth address it can reach (--frame-address).
        video_dir = os.path.join(tmp, "wd-bob-video")
        bob = procs.spawn("bob", common + ["--webdriver", grid, "--display", "bob", "--duration", "10",
                                           "--save-video", video_dir, "--frame-address", WD_LINK.root_ip], bob_log)
        time.sleep(6)
        # Mid-call: where the browsers run, and who started chromedrivers.
        inside = set(int(p) for p in run(["ip", "netns", "pids", WD_LINK.ns], check=False).stdout.split() if p.isdigit())
        table = process_table()
        chromiums = [pid for pid, (_, cmd) in table.items() if "chromium" in cmd.split(" ")[0] and "--type=" not in cmd]
        ours = {alice.pid, bob.pid}
        own_drivers = [pid for pid, (ppid, cmd) in table.items() if ppid in ours and "chromedriver" in cmd]
        check(len([pid for pid in chromiums if pid in inside]) >= 2, f"webdriver: two browsers run in the namespace: {len(chromiums)} browsers, in it {[p for p in chromiums if p in inside]}")
        check(not own_drivers, f"webdriver: a callscope started its own chromedriver: {own_drivers}")
        bob_code, alice_code = bob.wait(timeout=60), alice.wait(timeout=60)
        bob_lines, alice_lines = ndjson(bob_log), ndjson(alice_log)
        check(bob_code == 0 and alice_code == 0, f"webdriver: alice exits {alice_code}, bob {bob_code}: {open(bob_log).read()[-400:]}")
        received = [l["data"]["videoBytesReceived"] for l in bob_lines if l.get("callback") == "subscriber.videoNetworkStatsUpdated"]
        rates = [l["data"].get("decodedFrameRate", 0) for l in bob_lines if l.get("callback") == "subscriber.videoNetworkStatsUpdated"]
        sent = [l["data"][0]["videoBytesSent"] for l in alice_lines if l.get("callback") == "publisher.videoNetworkStatsUpdated" and l["data"]]
        check(any(l.get("callback") == "subscriber.didConnect" for l in bob_lines), "webdriver: bob's subscriber connected")
        check(len(received) >= 4 and received[-1] > 100_000 and all(b >= a for a, b in zip(received, received[1:])),
              f"webdriver: bob's received video bytes must grow past 100 kB: {received}")
        check(max(rates, default=0) > 5, f"webdriver: bob decodes frames: {rates}")
        check(len(sent) >= 4 and sent[-1] > 100_000, f"webdriver: alice sends video: {sent[-3:]}")
        saved = y4m_frames(video_dir)
        check(sum(saved.values()) > 60, f"webdriver: bob's frames reach us from the remote browser (--frame-address): {saved}")
        proxy.shutdown()
        check(seen.get("cdp") == 1 and seen.get("execute/async", 0) > 20,
              f"webdriver: through the Grid-like path one DevTools attempt, then execute/async: {seen}")

        # An endpoint nobody listens on, and a bad URL.
        closed = free_tcp_port()
        t0 = time.monotonic()
        run_ = subprocess.run([callscope, "call", "--janus", janus, "--webdriver", f"http://127.0.0.1:{closed}", "--duration", "2"],
                              capture_output=True, text=True, timeout=60)
        lines = run_.stderr.strip().splitlines()
        check(run_.returncode == 1 and len(lines) == 1 and f"127.0.0.1:{closed}" in lines[0],
              f"webdriver: an unreachable endpoint gives one line and exit 1: {run_.returncode} {lines}")
        unreachable_seconds = time.monotonic() - t0
        no_address = subprocess.run([callscope, "call", "--janus", janus, "--webdriver", endpoint, "--save-video", video_dir],
                                    capture_output=True, text=True, timeout=30)
        check(no_address.returncode == 2 and "--frame-address" in no_address.stderr,
              f"webdriver: --save-video without --frame-address exits 2: {no_address.returncode} {no_address.stderr}")
        bad = subprocess.run([callscope, "call", "--janus", janus, "--webdriver", "ftp://x"], capture_output=True, text=True, timeout=30)
        check(bad.returncode == 2 and "--webdriver" in bad.stderr, f"webdriver: a bad URL exits 2: {bad.returncode} {bad.stderr}")
        both = subprocess.run([callscope, "call", "--janus", janus, "--webdriver", endpoint, "--chromium", "/x"], capture_output=True, text=True, timeout=30)
        check(both.returncode == 2, f"webdriver: --chromium with --webdriver exits 2: {both.returncode} {both.stderr}")
        print(f"webdriver: alice through the chromedriver at {endpoint} (namespace {WD_LINK.ns}), bob through {grid} ({seen}): bob received "
              f"{received[-1] if received else 0} B of video at up to {max(rates, default=0):.0f} fps and saved {sum(saved.values())} frames "
              f"{sorted(saved)}, alice sent {sent[-1] if sent else 0} B; "
              f"an unreachable endpoint: exit {run_.returncode} in {unreachable_seconds:.1f} s: {lines[:1]}; {time.monotonic() - started:.1f} s")
    finally:
        for p in list(procs.procs):
            procs.reap(p)
        WD_LINK.delete()


# --------------------------------------------------------------------------- 2. alerts
ALERT_RULES = os.path.join(ROOT, "Rig", "prometheus", "callscope-alerts.yml")


def test_rules(tmp: str) -> str:
    """promtool on the shipped rules and on the test's copy (each `for:` shortened to 2 s, the
    expressions untouched); the copy's path."""
    with open(ALERT_RULES) as f:
        shipped = f.read()
    copy = re.sub(r"(\n\s+for: )\d+[smh]", r"\g<1>2s", shipped)
    check(copy.count("for: 2s") == shipped.count("for: ") >= 4, "alerts: every for: of the copy is shortened")
    strip = lambda text: [line for line in text.splitlines() if "for:" not in line]
    check(strip(copy) == strip(shipped), "alerts: the copy differs from the shipped rules only in for:")
    path = os.path.join(tmp, "callscope-alerts-test.yml")
    with open(path, "w") as f:
        f.write(copy)
    for rules in (ALERT_RULES, path):
        result = subprocess.run(["promtool", "check", "rules", rules], capture_output=True, text=True, timeout=60)
        check(result.returncode == 0 and "SUCCESS: 4 rules found" in result.stdout, f"promtool check rules {rules}: {result.stdout} {result.stderr}")
    return path


def test_alerts(callscope: str, tmp: str, procs: Processes) -> None:
    started = time.monotonic()
    rules = test_rules(tmp)
    janus_dir = os.path.join(tmp, "alerts-janus")
    os.makedirs(janus_dir)
    janus = Janus(procs, janus_dir)
    url = janus.start("127.0.0.1", "lo")
    metrics_port, prometheus_port = free_tcp_port(), free_tcp_port()
    config = os.path.join(tmp, "alerts-prometheus.yml")
    with open(config, "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                f"rule_files: ['{rules}']\n"
                "scrape_configs:\n  - job_name: callscope-probe\n"
                f"    static_configs:\n      - targets: ['127.0.0.1:{metrics_port}']\n")
    procs.spawn("prometheus", ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={os.path.join(tmp, 'alerts-tsdb')}",
                               f"--web.listen-address=127.0.0.1:{prometheus_port}"], os.path.join(tmp, "alerts-prometheus.log"))
    api = f"http://127.0.0.1:{prometheus_port}/api/v1"

    def get(path: str, **params):
        with urllib.request.urlopen(f"{api}/{path}?" + urllib.parse.urlencode(params), timeout=10) as r:
            return json.loads(r.read())["data"]

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            get("query", query="1")
            break
        except Exception:       # noqa: BLE001 (not up yet)
            time.sleep(0.3)
    probe_log = os.path.join(tmp, "probe.log")
    probe_err = os.path.join(tmp, "probe.err")
    probe_started = time.time()
    with open(probe_log, "w") as out, open(probe_err, "w") as err:
        probe = subprocess.Popen([callscope, "probe", "--janus", url, "--display", "probe", "--publish", "--subscribe", "none",
                                  "--duration", "3", "--every", "5", "--max-failures", "4", "--format", "ndjson",
                                  "--metrics-port", str(metrics_port)], stdout=out, stderr=err, start_new_session=True)
    procs.procs.append(probe)
    try:
        # The first call succeeds; then Janus stops and every call fails.
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and not ndjson(probe_log) and probe.poll() is None:
            time.sleep(0.3)
        procs.reap(janus.proc)
        states: dict[str, float] = {}
        deadline = time.monotonic() + 60
        while probe.poll() is None and time.monotonic() < deadline:
            for alert in get("alerts")["alerts"]:
                if alert["labels"].get("alertname") == "CallScopeProbeCallsFailing":
                    states.setdefault(alert["state"], time.monotonic() - started)
            time.sleep(0.5)
        code = probe.wait(timeout=30)
    finally:
        if probe.poll() is None:
            procs.reap(probe)
    lines = ndjson(probe_log)
    with open(probe_err) as f:
        errors = f.read()
    check(code == 1, f"alerts: the probe exits 1 after 4 failed calls in a row: exit {code}: {errors[-400:]}")
    check(len(lines) == 5 and lines[0].get("ok") is True and lines[0].get("videoBytesSent", 0) > 0,
          f"alerts: one summary line per call, the first call ok: {lines[:1]}")
    check(all(l.get("ok") is False and l.get("problems") for l in lines[1:]), f"alerts: the calls after Janus stopped failed, saying why: {lines[1:]}")
    check("4 failed calls in a row" in errors, f"alerts: the probe says why it stops: {errors[-300:]}")
    check("pending" in states and "firing" in states and states["pending"] <= states["firing"],
          f"alerts: CallScopeProbeCallsFailing went pending, then firing: {states}")
    # The probe's series across its calls: /metrics up for the whole probe, the counters only grow.
    end = time.time()
    up = get("query_range", query='up{job="callscope-probe"}', start=probe_started + 3, end=end - 3, step=1)
    ups = [float(v) for series in up["result"] for _, v in series["values"]]
    check(len(ups) >= 10 and all(v == 1 for v in ups), f"alerts: /metrics stayed up between the calls: {ups}")
    for result, least in (("succeeded", 1), ("failed", 3)):
        series = get("query_range", query=f'callscope_probe_calls_total{{result="{result}"}}', start=probe_started, end=end, step=1)["result"]
        values = [float(v) for s in series for _, v in s["values"]]
        check(len(series) == 1 and values and all(b >= a for a, b in zip(values, values[1:])) and values[-1] >= least,
              f"alerts: callscope_probe_calls_total{{result={result}}} is one growing series reaching {least}: {values}")
    print(f"alerts: promtool accepts the shipped rules and the test copy; the probe's first call ok, then {len(lines) - 1} failed "
          f"(Janus stopped: {lines[-1].get('problems') if lines else None}); CallScopeProbeCallsFailing pending at {states.get('pending', 0):.1f} s, "
          f"firing at {states.get('firing', 0):.1f} s; probe exit {code}; {time.monotonic() - started:.1f} s")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callscope", default=os.path.join(ROOT, ".build", "debug", "callscope"))
    parser.add_argument("--keep", help="keep the temporary files (logs) in this directory")
    parser.add_argument("--only", choices=["webdriver", "alerts"])
    args = parser.parse_args()
    callscope = os.path.abspath(args.callscope)
    tmp = args.keep or tempfile.mkdtemp(prefix="callscope-probes-")
    os.makedirs(tmp, exist_ok=True)
    configure_log("test_probes")
    procs = Processes()
    started = time.monotonic()
    try:
        if args.only in (None, "webdriver"):
            test_webdriver(callscope, tmp, procs)
        if args.only in (None, "alerts"):
            test_alerts(callscope, tmp, procs)
    finally:
        procs.reap_all()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"test_probes: {checks} checks, {len(failures)} failed, {time.monotonic() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
