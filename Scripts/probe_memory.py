#!/usr/bin/env python3
"""Memory of a long live call, measured by hand (docs/live-calls.md, "Memory of a long probe").

Starts Janus on a free loopback port (no network namespace: it needs no rig lock), Alice
publishing and Bob subscribing with `callscope call`, and every `--every` seconds prints, for each
of them: the callscope process, the whole browser tree (chromedriver and every Chromium process)
and each page renderer (VmRSS from /proc), and, over chromedriver's own session, what the page
holds: V8's heap (CDP Runtime.getHeapUsage) and its DOM counters (Memory.getDOMCounters), after a forced garbage collection. A
renderer that grows while the page's heap and DOM stay flat grows in Chromium's native memory,
not in our page.

With `--prometheus`, both calls also serve `--metrics-port` and a real Prometheus (Debian's, on a
free loopback port, its data in the temporary directory) scrapes them every `--scrape-interval`
seconds for the whole call; at the end Scripts/series_continuity.py checks over its HTTP API that
a few key series of each peer were continuous over the measured window (no gap longer than two
scrape intervals, counters never decreasing, the same label sets throughout), prints the verdict
and the numbers, and the script exits 1 on a gap.

Usage: python3 Scripts/probe_memory.py [--callscope .build/debug/callscope] [--minutes 10] [--every 60] [--json OUT]
                                       [--prometheus [--scrape-interval 5]] [--keep DIR]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Rig"))
from callscope_rig.janus import Janus  # noqa: E402
from callscope_rig.procs import Processes, configure_log, free_tcp_port, log, process_table  # noqa: E402
from callscope_rig.webdriver import WebDriver  # noqa: E402
from series_continuity import Prometheus, check_metric, describe  # noqa: E402  (beside this script)

# The series checked for continuity, per peer (their names in CallMetricDescriptor+Catalog.swift):
# the scrape itself, the newest stats sample's time (also how old it was at each scrape), a packets
# counter, a frame-rate (and, for Bob, a bitrate) gauge, the condition.
KEY_SERIES = {
    "alice": ["up", "callscope_last_sample_timestamp_seconds", "callscope_publisher_video_sent_packets_total",
              "callscope_publisher_layer_frames_per_second", "callscope_network_condition"],
    "bob": ["up", "callscope_last_sample_timestamp_seconds", "callscope_subscriber_video_received_packets_total",
            "callscope_subscriber_video_frames_per_second", "callscope_subscriber_video_bits_per_second",
            "callscope_network_condition"],
}


def descendants(root: int, table: dict[int, tuple[int, str]]) -> list[int]:
    found, frontier = [], [root]
    while frontier:
        parent = frontier.pop()
        children = [pid for pid, (ppid, _) in table.items() if ppid == parent]
        found += children
        frontier += children
    return found


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def page_state(tree: list[int], table) -> dict | None:
    """The page's V8 heap and DOM counters, over the peer's own chromedriver session."""
    for pid in tree:
        cmdline = table[pid][1]
        if "chromedriver" not in cmdline.split(" ")[0]:
            continue
        port = re.search(r"--port=(\d+)", cmdline)
        log = re.search(r"--log-path=(\S+)", cmdline)
        if not port or not log:
            return None
        with open(log.group(1), errors="replace") as f:
            sessions = re.findall(r"\[([0-9a-f]{32})\]", f.read())
        if not sessions:
            return None
        driver = WebDriver(f"http://127.0.0.1:{port.group(1)}")
        driver.session = sessions[-1]
        try:
            driver.cdp("HeapProfiler.collectGarbage", {})       # what is left is what the page holds
            heap = driver.cdp("Runtime.getHeapUsage", {})
            dom = driver.cdp("Memory.getDOMCounters", {})
        except Exception as error:      # noqa: BLE001 (a measurement, best effort)
            return {"error": str(error)[:120]}
        return {"heapUsedMB": heap["usedSize"] / 2**20, "heapTotalMB": heap["totalSize"] / 2**20,
                "nodes": dom["nodes"], "documents": dom["documents"], "listeners": dom["jsEventListeners"]}
    return None


def sample(peer: str, pid: int) -> dict:
    table = process_table()
    tree = descendants(pid, table)
    renderers = sorted((rss_mb(p) for p in tree if "--type=renderer" in table[p][1]), reverse=True)
    return {"peer": peer, "callscopeMB": rss_mb(pid), "browserTreeMB": sum(rss_mb(p) for p in tree),
            "renderersMB": renderers, "page": page_state(tree, table)}


def start_prometheus(procs: Processes, tmp: str, targets: dict[str, int], interval: float) -> Prometheus:
    """A real Prometheus scraping each peer's /metrics as job PEER, ready to answer."""
    port = free_tcp_port()
    config = os.path.join(tmp, "prometheus.yml")
    with open(config, "w") as f:
        f.write(f"global:\n  scrape_interval: {interval:g}s\n  scrape_timeout: {max(1.0, interval - 1):g}s\nscrape_configs:\n")
        for job, metrics_port in targets.items():
            f.write(f"  - job_name: {job}\n    static_configs:\n      - targets: ['127.0.0.1:{metrics_port}']\n")
    procs.spawn("prometheus", ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={os.path.join(tmp, 'tsdb')}",
                               f"--web.listen-address=127.0.0.1:{port}"], os.path.join(tmp, "prometheus.log"))
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{url}/-/ready", timeout=2) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"Prometheus at {url} not ready after 60 s (see {tmp}/prometheus.log)")
        time.sleep(0.5)
    log(f"Prometheus at {url}, scraping {targets} every {interval:g} s")
    return Prometheus(url)


def wait_for_series(prometheus: Prometheus, timeout: float = 120) -> None:
    """Until every key series of both peers is in Prometheus: the checked window starts there."""
    deadline = time.monotonic() + timeout
    while True:
        missing = [f"{job}:{metric}" for job, metrics in KEY_SERIES.items() for metric in metrics
                   if not prometheus.query(f'{metric}{{job="{job}"}}', time.time())]
        if not missing:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"not in Prometheus after {timeout:g} s: {missing}")
        time.sleep(1)


def check_continuity(prometheus: Prometheus, start: float, end: float, interval: float) -> tuple[bool, list[dict]]:
    """Every key series' verdict, printed; False when one has a gap, a decrease or changed labels."""
    print(f"continuity over {end - start:.0f} s ({(end - start) / 60:.1f} min), scrape interval {interval:g} s:", flush=True)
    ok, verdicts = True, []
    for job, metrics in KEY_SERIES.items():
        for metric in metrics:
            report = check_metric(prometheus, metric, job, start, end, interval)
            print("\n".join(describe(report, interval)), flush=True)
            scrapes_failed = metric == "up" and any(v.values and v.values[0] < 1 for v in report.verdicts)
            if scrapes_failed:
                print(f"PROBLEM {job}: up was 0 at some scrape", flush=True)
            ok = ok and report.continuous and not scrapes_failed
            verdicts += [{"job": job, "labels": v.labels, "expected": v.expected, "seen": v.seen,
                          "longestGapSeconds": round(v.longest_gap, 3), "missedScrapes": v.missed_scrapes,
                          "counterDecreases": len(v.decreases) if v.counter else None, "values": v.values,
                          "problems": v.problems} for v in report.verdicts]
            verdicts += [{"job": job, "metric": metric, "problems": report.problems}] if report.problems else []
    print(f"continuity: {'CONTINUOUS' if ok else 'NOT CONTINUOUS'}", flush=True)
    return ok, verdicts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callscope", default=os.path.join(ROOT, ".build", "debug", "callscope"))
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--every", type=float, default=60)
    parser.add_argument("--json", help="write every sample to this file")
    parser.add_argument("--prometheus", action="store_true", help="scrape both calls with a real Prometheus and check the series' continuity")
    parser.add_argument("--scrape-interval", type=float, default=5)
    parser.add_argument("--keep", help="keep the logs (and Prometheus' data) in this new directory instead of a removed temporary one")
    args = parser.parse_args()
    configure_log("probe_memory")
    callscope = os.path.abspath(args.callscope)
    if args.keep:
        os.makedirs(args.keep)
    tmp = os.path.abspath(args.keep) if args.keep else tempfile.mkdtemp(prefix="callscope-memory-")
    procs = Processes()
    samples = []
    continuous, continuity = True, []
    try:
        janus = Janus(procs, tmp).start("127.0.0.1", "lo")
        seconds = int(args.minutes * 60)
        metrics = {"alice": [], "bob": []}
        prometheus = None
        if args.prometheus:
            ports = {"alice": free_tcp_port(), "bob": free_tcp_port()}
            metrics = {peer: ["--metrics-port", str(port)] for peer, port in ports.items()}
            prometheus = start_prometheus(procs, tmp, ports, args.scrape_interval)
        common = [callscope, "call", "--janus", janus, "--format", "ndjson"]
        alice = procs.spawn("alice", common + ["--display", "alice", "--publish", "--subscribe", "none", "--duration", str(seconds + 60)]
                            + metrics["alice"], os.path.join(tmp, "alice.out"))
        time.sleep(5)
        bob = procs.spawn("bob", common + ["--display", "bob", "--duration", str(seconds + 30)] + metrics["bob"],
                          os.path.join(tmp, "bob.out"))
        time.sleep(10)
        if prometheus:
            wait_for_series(prometheus)
        window_start = time.time()
        started = time.monotonic()
        while True:
            elapsed = time.monotonic() - started
            for peer, proc in (("alice", alice), ("bob", bob)):
                row = sample(peer, proc.pid)
                row["minute"] = round(elapsed / 60, 2)
                samples.append(row)
                page = row["page"] or {}
                print(f"{row['minute']:6.2f} min {peer:5}: callscope {row['callscopeMB']:6.1f} MB, browser tree {row['browserTreeMB']:7.1f} MB, "
                      f"renderers {[round(r, 1) for r in row['renderersMB']]} MB, page heap {page.get('heapUsedMB', 0):.2f} MB "
                      f"nodes {page.get('nodes')} listeners {page.get('listeners')} {page.get('error', '')}", flush=True)
            if elapsed >= seconds:
                break
            time.sleep(max(0.0, args.every - (time.monotonic() - started - elapsed)))
        window_end = time.time()
        if prometheus:
            for peer, proc in (("alice", alice), ("bob", bob)):
                if proc.poll() is not None:
                    print(f"{peer}'s call ended (exit {proc.returncode}) before the measured window did", flush=True)
                    continuous = False
            time.sleep(args.scrape_interval + 2)        # the window's last scrapes are stored
            ok, continuity = check_continuity(prometheus, window_start, window_end, args.scrape_interval)
            continuous = continuous and ok
    finally:
        procs.reap_all()
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"samples": samples, "continuity": continuity} if args.prometheus else samples, f, indent=1)
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0 if continuous else 1


if __name__ == "__main__":
    sys.exit(main())
