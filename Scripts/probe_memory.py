#!/usr/bin/env python3
"""Memory of a long live call, measured by hand (docs/live-calls.md, "Memory of a long probe").

Starts Janus on a free loopback port (no network namespace: it needs no rig lock), Alice
publishing and Bob subscribing with `callscope call`, and every `--every` seconds prints, for each
of them: the callscope process, the whole browser tree (chromedriver and every Chromium process)
and each page renderer (VmRSS from /proc), and, over chromedriver's own session, what the page
holds: V8's heap (CDP Runtime.getHeapUsage) and its DOM counters (Memory.getDOMCounters), after a forced garbage collection. A
renderer that grows while the page's heap and DOM stay flat grows in Chromium's native memory,
not in our page.

Usage: python3 Scripts/probe_memory.py [--callscope .build/debug/callscope] [--minutes 10] [--every 60] [--json OUT]
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

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Rig"))
from callscope_rig.janus import Janus  # noqa: E402
from callscope_rig.procs import Processes, configure_log, process_table  # noqa: E402
from callscope_rig.webdriver import WebDriver  # noqa: E402


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callscope", default=os.path.join(ROOT, ".build", "debug", "callscope"))
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--every", type=float, default=60)
    parser.add_argument("--json", help="write every sample to this file")
    args = parser.parse_args()
    configure_log("probe_memory")
    callscope = os.path.abspath(args.callscope)
    tmp = tempfile.mkdtemp(prefix="callscope-memory-")
    procs = Processes()
    samples = []
    try:
        janus = Janus(procs, tmp).start("127.0.0.1", "lo")
        seconds = int(args.minutes * 60)
        common = [callscope, "call", "--janus", janus, "--format", "ndjson"]
        alice = procs.spawn("alice", common + ["--display", "alice", "--publish", "--subscribe", "none", "--duration", str(seconds + 60)],
                            os.path.join(tmp, "alice.out"))
        time.sleep(5)
        bob = procs.spawn("bob", common + ["--display", "bob", "--duration", str(seconds + 30)], os.path.join(tmp, "bob.out"))
        time.sleep(10)
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
    finally:
        procs.reap_all()
        if args.json:
            with open(args.json, "w") as f:
                json.dump(samples, f, indent=1)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
