#!/usr/bin/env python3
"""Real-component tests of the exports, the HTML report and analyze (called by Scripts/test.sh).

1. Prometheus + Pushgateway (Debian packages), started here on free loopback ports with
   Rig/prometheus/prometheus.yml: `callscope replay --push` of real recordings, then every
   pushed value is read back through Prometheus' HTTP API and compared with what this script
   computes itself from the same replay's `--format ndjson` output.
2. OTLP: `callscope replay --otlp` posts to a loopback receiver in this script; the body is
   parsed into the official protobuf (PyPI opentelemetry-proto, google.protobuf.json_format,
   unknown fields rejected) and its values checked against the ndjson the same way. A receiver
   answering 500 must make the replay fail.
3. `callscope report` on every shipped recording and every file of ../shared/data/public-stats
   (when present), each page opened in headless Chromium through chromedriver: no console error,
   the page's own render flag set, series paths drawn. A page with a broken script must be caught.
4. `callscope analyze` on the same set plus a damaged file: a table, the damaged file reported,
   the rest analysed; the JSON form's totals checked against the ndjson oracle.
5. A live call (`--only live`, ~25 s; needs janus, chromium, chromedriver; run it under
   `flock /tmp/callscope-rig.lock`): Alice publishes, Bob subscribes with `--metrics-port` and
   `--push`; a real Prometheus scrapes Bob's /metrics and the Pushgateway every second, and its
   HTTP API must show Bob's received bytes growing and his frame rate up *during* the call, from
   both paths, and an OTLP receiver here must get growing totals every interval; Alice pushes to a closed port: she completes her call, says so once, exits 1.

Usage: python3 Scripts/test_exports.py [--callscope .build/debug/callscope] [--keep DIR]
"""
from __future__ import annotations

import argparse
import contextlib
import gzip
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
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Rig"))
from callscope_rig.procs import Processes, configure_log, free_tcp_port  # noqa: E402  (the rig package, Rig/callscope_rig)
from callscope_rig.webdriver import HEADLESS_ARGS, start_chromedriver  # noqa: E402

RECORDINGS = os.path.join(ROOT, "Recordings")
PUBLIC = os.path.normpath(os.path.join(ROOT, "..", "shared", "data", "public-stats"))
PUSHED = ["both-sides.ndjson.gz", "baseline-simulcast.ndjson.gz"]

failures: list[str] = []
checks = 0


def check(condition: bool, message: str) -> None:
    global checks
    checks += 1
    if not condition:
        failures.append(message)
        print("FAIL:", message, file=sys.stderr)


def close(actual: float, expected: float) -> bool:
    return abs(actual - expected) <= max(1e-6, abs(expected) * 1e-9)


# --------------------------------------------------------------------------- the oracle
def oracle(ndjson: str) -> dict[tuple, float]:
    """Expected metric values from the replay's own ndjson, computed here: the last cumulative
    totals, and the seconds per condition (each interval since the previous link callback of the
    same link, counted for the condition that callback reports)."""
    values: dict[tuple, float] = {}
    previous: dict[tuple, float] = {}

    def put(name, labels, value):
        values[(name, frozenset((k, v) for k, v in labels.items() if v != ""))] = float(value)

    def add(name, labels, value):
        key = (name, frozenset((k, v) for k, v in labels.items() if v != ""))
        values[key] = values.get(key, 0.0) + value

    def link(labels, condition, t):
        key = tuple(sorted(labels.items()))
        interval = max(0.0, t - previous[key]) / 1000 if key in previous else 0.0
        previous[key] = t
        for level in ("unknown", "critical", "warning", "fair", "good", "excellent"):
            add("callscope_network_condition_seconds_total", {**labels, "condition": level}, interval if level == condition else 0.0)
        return interval

    for line in ndjson.splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        name, t, data = record["callback"], record["t"], record["data"]
        peer, stream = record["peer"], record["stream"]
        if name == "publisher.videoNetworkStatsUpdated":
            for stats in data:
                labels = {"peer": peer, "connection": stats["connectionId"]}
                put("callscope_publisher_video_sent_bytes_total", labels, stats["videoBytesSent"])
                put("callscope_publisher_video_sent_packets_total", labels, stats["videoPacketsSent"])
                put("callscope_publisher_video_lost_packets_total", labels, stats["videoPacketsLost"])
        elif name == "publisher.audioNetworkStatsUpdated":
            for stats in data:
                put("callscope_publisher_audio_sent_bytes_total", {"peer": peer, "connection": stats["connectionId"]}, stats["audioBytesSent"])
        elif name == "publisher.mediaLinkStatsUpdated":
            for stats in data:
                labels = {"peer": peer, "connection": stats["connectionId"]}
                put("callscope_publisher_estimated_bandwidth_bits_per_second", labels, stats["transport"]["connectionEstimatedBandwidth"])
                link({**labels, "link": "uplink"}, stats["transport"]["networkCondition"], t)
        elif name == "subscriber.videoNetworkStatsUpdated":
            labels = {"peer": peer, "stream": stream}
            put("callscope_subscriber_video_received_bytes_total", labels, data["videoBytesReceived"])
            put("callscope_subscriber_video_received_packets_total", labels, data["videoPacketsReceived"])
            put("callscope_subscriber_video_lost_packets_total", labels, data["videoPacketsLost"])
            put("callscope_subscriber_video_freezes_total", labels, data["freezeCount"])
            put("callscope_subscriber_video_freeze_seconds_total", labels, data["totalFreezesDuration"] / 1000)
            put("callscope_subscriber_video_payload_bits_per_second", labels, data["bitrate"])
        elif name == "subscriber.mediaLinkStatsUpdated":
            labels = {"peer": peer, "stream": stream}
            interval = link({**labels, "link": "downlink"}, data["transport"]["networkCondition"], t)
            link({**labels, "link": "remote_uplink"}, data["remotePublisherTransport"]["networkCondition"], t)
            for source in ("none", "local", "remote", "bothOrUnclear", "unknown"):
                add("callscope_degradation_source_seconds_total", {**labels, "source": source},
                    interval if source == data["networkDegradationSource"] else 0.0)
        elif name == "subscriber.networkConditionChanged":
            add("callscope_network_condition_changes_total", {"peer": peer, "stream": stream, "link": "downlink"}, 1)
        elif name == "publisher.networkConditionChanged":
            add("callscope_network_condition_changes_total", {"peer": peer, "connection": data["mediaLinkStats"]["connectionId"], "link": "uplink"}, 1)
    return values


def replay_ndjson(callscope: str, path: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([callscope, "replay", path, "--format", "ndjson", *extra], capture_output=True, text=True, timeout=120)


# --------------------------------------------------------------------------- servers
def wait_http(url: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        time.sleep(0.2)
    raise RuntimeError(f"{url} not ready after {timeout}s")


# --------------------------------------------------------------------------- 1. Prometheus
def test_prometheus(callscope: str, tmp: str, processes: Processes) -> None:
    gateway_port, prometheus_port = free_tcp_port(), free_tcp_port()
    gateway = f"127.0.0.1:{gateway_port}"
    # Debian's binary persists to /var/lib/prometheus/pushgateway.data by default: groups of
    # earlier runs (and of other runs at the same time) would come back. A file of our own.
    processes.spawn("pushgateway", ["prometheus-pushgateway", f"--web.listen-address={gateway}",
                                    f"--persistence.file={os.path.join(tmp, 'pushgateway.data')}"],
                    os.path.join(tmp, "pushgateway.log"))
    config = os.path.join(tmp, "prometheus.yml")
    with open(os.path.join(ROOT, "Rig", "prometheus", "prometheus.yml")) as f:
        text = f.read().replace("__PUSHGATEWAY__", gateway)
    with open(config, "w") as f:
        f.write(text)
    processes.spawn("prometheus", ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={os.path.join(tmp, 'tsdb')}",
                                   f"--web.listen-address=127.0.0.1:{prometheus_port}"], os.path.join(tmp, "prometheus.log"))
    wait_http(f"http://{gateway}/-/ready")
    wait_http(f"http://127.0.0.1:{prometheus_port}/-/ready")

    expected_by_call = {}
    for name in PUSHED:
        run = replay_ndjson(callscope, os.path.join(RECORDINGS, name), "--push", f"http://{gateway}")
        check(run.returncode == 0, f"replay --push {name}: exit {run.returncode}: {run.stderr[-400:]}")
        expected_by_call[name] = oracle(run.stdout)

    def query(expression: str):
        url = f"http://127.0.0.1:{prometheus_port}/api/v1/query?" + urllib.parse.urlencode({"query": expression})
        with urllib.request.urlopen(url, timeout=10) as r:
            return json.loads(r.read())["data"]["result"]

    for call, expected in expected_by_call.items():
        selector = '{__name__=~"callscope_.+",call="%s"}' % call
        deadline, results = time.monotonic() + 30, []
        while time.monotonic() < deadline:     # until Prometheus has scraped the push
            results = query(selector)
            if results:
                break
            time.sleep(0.5)
        actual = {}
        for series in results:
            labels = {k: v for k, v in series["metric"].items() if k not in ("__name__", "job", "call", "instance")}
            actual[(series["metric"]["__name__"], frozenset(labels.items()))] = float(series["value"][1])
        check(len(actual) > 50, f"{call}: only {len(actual)} series in Prometheus")
        compared = 0
        for key, value in expected.items():
            check(key in actual, f"{call}: {key[0]}{dict(key[1])} missing in Prometheus")
            if key in actual:
                check(close(actual[key], value), f"{call}: {key[0]}{dict(key[1])} = {actual[key]}, ndjson says {value}")
                compared += 1
        check(compared >= 30, f"{call}: compared only {compared} values")
        print(f"prometheus: {call}: {compared} values match the ndjson ({len(actual)} series scraped)")
    # The push replaced nothing of the other call: both groups coexist.
    check(len(query('count by (call) (callscope_last_sample_timestamp_seconds)')) == len(PUSHED), "one group per pushed call")


# --------------------------------------------------------------------------- 5. a live call
LIVE_CALL_SECONDS = 16          # Bob's call; Alice publishes a little longer so Bob sees media throughout


def test_live_call(callscope: str, tmp: str, processes: Processes) -> None:
    from callscope_rig.janus import Janus
    started = time.monotonic()
    janus_dir = os.path.join(tmp, "live-janus")
    os.makedirs(janus_dir, exist_ok=True)
    janus = Janus(processes, janus_dir).start("127.0.0.1", "lo")
    gateway_port, prometheus_port, metrics_port, closed_port = free_tcp_port(), free_tcp_port(), free_tcp_port(), free_tcp_port()
    gateway = f"127.0.0.1:{gateway_port}"
    processes.spawn("pushgateway", ["prometheus-pushgateway", f"--web.listen-address={gateway}",
                                    f"--persistence.file={os.path.join(tmp, 'live-pushgateway.data')}"],
                    os.path.join(tmp, "live-pushgateway.log"))
    config = os.path.join(tmp, "live-prometheus.yml")
    with open(os.path.join(ROOT, "Rig", "prometheus", "prometheus.yml")) as f:
        text = f.read().replace("__PUSHGATEWAY__", gateway)
    # The probe's own /metrics, scraped as any exporter is (job and instance from the scrape).
    text += f"  - job_name: probe\n    static_configs:\n      - targets: ['127.0.0.1:{metrics_port}']\n"
    with open(config, "w") as f:
        f.write(text)
    processes.spawn("prometheus", ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={os.path.join(tmp, 'live-tsdb')}",
                                   f"--web.listen-address=127.0.0.1:{prometheus_port}"], os.path.join(tmp, "live-prometheus.log"))
    wait_http(f"http://{gateway}/-/ready")
    wait_http(f"http://127.0.0.1:{prometheus_port}/-/ready")

    def query(expression: str) -> float | None:
        url = f"http://127.0.0.1:{prometheus_port}/api/v1/query?" + urllib.parse.urlencode({"query": expression})
        with urllib.request.urlopen(url, timeout=10) as r:
            result = json.loads(r.read())["data"]["result"]
        return float(result[0]["value"][1]) if result else None

    # An OTLP/HTTP receiver of our own: the time each of Bob's posts arrived and its received bytes.
    posts: list[tuple[float, float | None]] = []

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            value = None
            for resource in body.get("resourceMetrics", []):
                for scope in resource.get("scopeMetrics", []):
                    for metric in scope.get("metrics", []):
                        if metric["name"] == "callscope.subscriber.video.received":
                            point = metric["sum"]["dataPoints"][0]
                            value = float(point.get("asDouble", point.get("asInt", 0)))
            posts.append((time.monotonic(), value))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()

    common = ["call", "--janus", janus, "--format", "ndjson"]
    alice = processes.spawn("alice", [callscope, *common, "--display", "alice", "--publish", "--subscribe", "none",
                                      "--duration", str(LIVE_CALL_SECONDS + 8), "--push", f"http://127.0.0.1:{closed_port}"],
                            os.path.join(tmp, "live-alice.log"))
    time.sleep(3)               # Alice's stream exists before Bob joins
    bob_log = os.path.join(tmp, "live-bob.log")
    bob = processes.spawn("bob", [callscope, *common, "--display", "bob", "--duration", str(LIVE_CALL_SECONDS),
                                  "--metrics-port", str(metrics_port), "--push", f"http://{gateway}",
                                  "--otlp", f"http://127.0.0.1:{receiver.server_address[1]}"], bob_log)
    scraped = 'callscope_subscriber_video_received_bytes_total{job="probe",peer="subscriber"}'
    pushed = 'callscope_subscriber_video_received_bytes_total{job="callscope",call="bob",peer="subscriber"}'
    frame_rate = 'callscope_subscriber_video_frames_per_second{job="probe",peer="subscriber"}'
    seen: dict[str, list[float]] = {scraped: [], pushed: [], frame_rate: []}
    while bob.poll() is None:
        for expression, values in seen.items():
            value = query(expression)
            if value is not None and (not values or value != values[-1]):
                values.append(value)
        time.sleep(1)
    bob_ended = time.monotonic()
    bob_code = bob.wait()
    receiver.shutdown()
    alice_code = alice.wait(timeout=60)
    with open(bob_log) as f:
        bob_output = f.read()
    with open(os.path.join(tmp, "live-alice.log")) as f:
        alice_output = f.read()
    check(bob_code == 0, f"live: bob exits {bob_code}: {bob_output[-600:]}")
    for expression in (scraped, pushed):
        values = seen[expression]
        check(len(values) >= 4, f"live: {expression} took only {len(values)} values during the call: {values}")
        check(all(b > a for a, b in zip(values, values[1:])), f"live: {expression} must only grow: {values}")
    during = [value for arrived, value in posts if arrived < bob_ended - 2 and value is not None]
    check(len(during) >= 4 and all(b >= a for a, b in zip(during, during[1:])) and during[-1] > during[0],
          f"live: the OTLP posts during the call must carry growing received bytes: {during}")
    check(any(v > 0 for v in seen[frame_rate]), f"live: bob's frame rate never rose above 0: {seen[frame_rate]}")
    lost = [line for line in alice_output.splitlines() if "the call goes on" in line]
    check(len(lost) == 1, f"live: alice's lost exporter said {len(lost)} times: {lost}")
    check(alice_code == 1 and "the final export did not get through" in alice_output,
          f"live: alice (pushing to a closed port) exits {alice_code}: {alice_output[-400:]}")
    check('"publisher.videoNetworkStatsUpdated"' in alice_output, "live: alice kept calling (her stats callbacks printed)")
    print(f"live: /metrics took {len(seen[scraped])} growing values ({seen[scraped][:1]} .. {seen[scraped][-1:]} bytes), "
          f"the pushes {len(seen[pushed])}, OTLP posts {len(posts)} ({len(during)} with video before the end), frame rates seen {sorted(set(seen[frame_rate]))[-3:]}; alice lost her exporter once "
          f"and exited {alice_code}; {time.monotonic() - started:.1f} s")


# --------------------------------------------------------------------------- 2. OTLP
def test_otlp(callscope: str) -> None:
    from google.protobuf import json_format
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
    from opentelemetry.proto.metrics.v1.metrics_pb2 import AggregationTemporality

    received: list[tuple[str, str, bytes]] = []
    answer = {"status": 200}

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            received.append((self.path, self.headers.get("Content-Type", ""), body))
            self.send_response(answer["status"])
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        name = "both-sides.ndjson.gz"
        run = replay_ndjson(callscope, os.path.join(RECORDINGS, name), "--otlp", url)
        check(run.returncode == 0, f"replay --otlp: exit {run.returncode}: {run.stderr[-400:]}")
        check(len(received) == 1, f"{len(received)} OTLP requests, expected 1")
        if not received:
            return
        path, content_type, body = received[0]
        check(path == "/v1/metrics", f"OTLP path {path}")
        check(content_type.startswith("application/json"), f"OTLP content type {content_type}")
        request = json_format.Parse(body.decode("utf-8"), ExportMetricsServiceRequest())   # unknown fields raise
        resource = {a.key: a.value.string_value for a in request.resource_metrics[0].resource.attributes}
        check(resource.get("service.name") == "callscope", f"service.name {resource.get('service.name')}")
        check(resource.get("session.id") == name, f"session.id {resource.get('session.id')}")
        check(resource.get("telemetry.sdk.language") == "swift", "telemetry.sdk.language")
        lines = [json.loads(l) for l in run.stdout.splitlines() if l.strip()]
        first_ns, last_ns = int(round(lines[0]["t"])) * 1_000_000, int(round(lines[-1]["t"])) * 1_000_000
        metrics = {m.name: m for m in request.resource_metrics[0].scope_metrics[0].metrics}
        check(len(metrics) >= 25, f"only {len(metrics)} OTLP metrics")
        for metric in metrics.values():
            check(metric.unit != "" and metric.description != "", f"{metric.name}: unit and description")
            kind = metric.WhichOneof("data")
            check(kind in ("gauge", "sum"), f"{metric.name}: {kind}")
            points = metric.sum.data_points if kind == "sum" else metric.gauge.data_points
            for point in points:
                check(point.WhichOneof("value") == "as_double" and point.time_unix_nano == last_ns, f"{metric.name}: point time/value")
            if kind == "sum":
                check(metric.sum.is_monotonic and metric.sum.aggregation_temporality == AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE,
                      f"{metric.name}: cumulative monotonic sum")
                check(all(p.start_time_unix_nano == first_ns for p in points), f"{metric.name}: start time")
        # Values against the ndjson oracle, translated to the OTel names.
        otel_names = {"callscope_subscriber_video_received_bytes_total": "callscope.subscriber.video.received",
                      "callscope_publisher_video_sent_bytes_total": "callscope.publisher.video.sent",
                      "callscope_subscriber_video_freezes_total": "callscope.subscriber.video.freezes",
                      "callscope_network_condition_seconds_total": "callscope.network.condition.duration",
                      "callscope_degradation_source_seconds_total": "callscope.degradation.source.duration"}
        compared = 0
        for (prom_name, labels), value in oracle(run.stdout).items():
            if prom_name not in otel_names:
                continue
            metric = metrics.get(otel_names[prom_name])
            check(metric is not None, f"OTLP metric {otel_names[prom_name]} missing")
            if metric is None:
                continue
            want = {f"callscope.{k}": v for k, v in labels}
            found = [p.as_double for p in metric.sum.data_points if {a.key: a.value.string_value for a in p.attributes} == want]
            check(len(found) == 1 and close(found[0], value), f"OTLP {metric.name}{want} = {found}, ndjson says {value}")
            compared += 1
        check(compared >= 20, f"OTLP: compared only {compared} values")
        print(f"otlp: {len(metrics)} metrics parse as ExportMetricsServiceRequest; {compared} values match the ndjson")

        answer["status"] = 500
        run = replay_ndjson(callscope, os.path.join(RECORDINGS, name), "--otlp", url)
        check(run.returncode != 0 and "HTTP 500" in run.stderr, f"a refused export must fail the replay: exit {run.returncode}, {run.stderr[-200:]}")
    finally:
        server.shutdown()


# --------------------------------------------------------------------------- 3. report
def capture_set() -> list[str]:
    files = sorted(os.path.join(RECORDINGS, f) for f in os.listdir(RECORDINGS)
                   if f.endswith(".ndjson.gz") or f.startswith("webrtc-internals"))
    if os.path.isdir(PUBLIC):
        for sub in ("jitsi-rtcstats", "snapshots"):
            directory = os.path.join(PUBLIC, sub)
            if os.path.isdir(directory):
                files += sorted(os.path.join(directory, f) for f in os.listdir(directory))
    return files


PAGE_STATE_JS = """
const paths = Array.from(document.querySelectorAll('path.series')).filter(p => (p.getAttribute('d') || '').length > 8).length;
const data = JSON.parse(document.getElementById('callscope-data').textContent);
return {render: document.body.getAttribute('data-render'), paths: paths,
        bands: document.querySelectorAll('#bands rect').length, samples: data.samples,
        rows: document.querySelectorAll('#summary tbody tr').length};
"""


def long_recording(tmp: str, repeats: int = 45) -> str:
    """The shipped 40 s call played back to back `repeats` times (~30 min, ~3600 samples), every
    time shifted (line and entry timestamps): each repetition restarts the counters, which the
    engine treats as new counters."""
    with gzip.open(os.path.join(RECORDINGS, "baseline-simulcast.ndjson.gz"), "rt", encoding="utf-8") as f:
        header, *lines = f.read().splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    span = records[-1]["t"] - records[0]["t"] + 1000
    path = os.path.join(tmp, "long-call.ndjson.gz")
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write(header + "\n")
        for k in range(repeats):
            for record in records:
                f.write(json.dumps(shifted(record, k * span), separators=(",", ":")) + "\n")
    return path


def shifted(value, offset):
    if isinstance(value, dict):
        return {key: (item + offset if key in ("t", "timestamp") and isinstance(item, (int, float)) else shifted(item, offset))
                for key, item in value.items()}
    if isinstance(value, list):
        return [shifted(item, offset) for item in value]
    return value


LONG_JS = """
const data = JSON.parse(document.getElementById('callscope-data').textContent);
let drawn = 0, full = 0;
data.charts.forEach(c => c.series.forEach(s => { drawn = Math.max(drawn, s.points.length); full = Math.max(full, s.count); }));
return {drawn: drawn, full: full, duration: data.duration, streams: data.streams};
"""


def test_report(callscope: str, tmp: str, processes: Processes) -> None:
    out = os.path.join(tmp, "reports")
    os.makedirs(out)
    pages = []
    long_call = long_recording(tmp)
    for path in capture_set() + [long_call]:
        html = os.path.join(out, os.path.basename(path) + ".html")
        run = subprocess.run([callscope, "report", path, "-o", html], capture_output=True, text=True, timeout=120)
        check(run.returncode == 0 and os.path.getsize(html) > 5000, f"report {path}: exit {run.returncode}: {run.stderr[-300:]}")
        if run.returncode == 0:
            with open(html, encoding="utf-8") as f:
                text = f.read()
            check("http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text,
                  f"{html}: the page must not load anything from the network")
            pages.append((path, html))
    # The page's numbers, against the replay's ndjson: the received bitrate and the per-second
    # loss (100·Δlost / (Δlost + Δreceived), computed here) of the both-sides call.
    both = next(html for path, html in pages if path.endswith("both-sides.ndjson.gz"))
    with open(both, encoding="utf-8") as f:
        page = f.read()
    start = page.index('<script id="callscope-data" type="application/json">') + len('<script id="callscope-data" type="application/json">')
    data = json.loads(page[start:page.index("</script>", start)].replace("<\\/", "</"))
    series = {(c["id"], s["name"]): [p[1] for p in s["points"]] for c in data["charts"] for s in c["series"]}
    lines = [json.loads(l) for l in replay_ndjson(callscope, os.path.join(RECORDINGS, "both-sides.ndjson.gz")).stdout.splitlines() if l.strip()]
    received = [l["data"] for l in lines if l["callback"] == "subscriber.videoNetworkStatsUpdated"]
    check(series.get(("bitrate", "subscriber ↓")) == [round(d["bitrate"], 2) for d in received], "report: received bitrate differs from the ndjson")
    loss = []
    for before, after in zip(received, received[1:]):
        lost = after["videoPacketsLost"] - before["videoPacketsLost"]
        total = lost + after["videoPacketsReceived"] - before["videoPacketsReceived"]
        if lost >= 0 and total > 0:
            loss.append(min(100.0, 100.0 * lost / total))
    drawn = series.get(("loss", "subscriber ↓ video")) or []
    check(len(drawn) == len(loss) and all(abs(a - b) <= 0.005 + 1e-9 for a, b in zip(drawn, loss)) and max(loss) > 5,
          "report: received loss differs from the ndjson")      # the page rounds to 0.01

    # A control that must be caught: the same page with a script error.
    broken = os.path.join(out, "broken-control.html")
    with open(pages[0][1], encoding="utf-8") as f:
        text = f.read()
    with open(broken, "w", encoding="utf-8") as f:
        f.write(text.replace("  bands();\n", "  bands();\n  undefinedFunctionOfTheControl();\n", 1))

    _, driver = start_chromedriver(processes, "chromedriver", tmp)
    driver.new_session({"browserName": "chrome", "goog:loggingPrefs": {"browser": "ALL"},
                        "goog:chromeOptions": {"binary": shutil.which("chromium") or "/usr/bin/chromium",
                                               "args": HEADLESS_ARGS + [f"--user-data-dir={os.path.join(tmp, 'profile')}"]}})
    try:
        def visit(html):
            driver.navigate("file://" + html)
            state = driver.execute(PAGE_STATE_JS)
            logs = driver.call("POST", driver.s("/se/log"), {"type": "browser"}) or []
            return state, [entry for entry in logs if entry.get("level") == "SEVERE"]

        drawn = 0
        for path, html in pages:
            state, errors = visit(html)
            name = os.path.basename(path)
            check(not errors, f"{name}: console errors {[e.get('message') for e in errors][:3]}")
            check(state["render"] == "ok", f"{name}: render flag {state['render']}")
            if state["samples"] >= 2:
                check(state["paths"] > 0, f"{name}: {state['samples']} samples but no series drawn")
            if path.startswith(RECORDINGS) and path.endswith(".ndjson.gz"):
                check(state["bands"] > 0 and state["rows"] >= 2, f"{name}: bands {state['bands']}, summary rows {state['rows']}")
            drawn += state["paths"]
        # The hour-long call: drawn from at most 2 points per bucket, summarised from every value.
        started = time.monotonic()
        long_html = os.path.join(out, "long-call.ndjson.gz.html")
        driver.navigate("file://" + long_html)
        shape = driver.execute(LONG_JS)
        load_seconds = time.monotonic() - started
        size = os.path.getsize(long_html)
        check(shape["full"] > 1500 and shape["drawn"] <= 1400, f"long call: {shape['full']} values per series, {shape['drawn']} drawn")
        check(size < 4_000_000, f"long call: the page is {size} bytes")
        analyzed = json.loads(subprocess.run([callscope, "analyze", "--json", long_call], capture_output=True, text=True, timeout=300).stdout)
        for row in analyzed["rows"]:
            page_row = next((r for r in shape["streams"] if r["peer"] == row["peer"] and r["direction"] == row["direction"]), None)
            check(page_row is not None and abs(page_row["meanBitrate"] - row["meanBitrate"]) < 0.5 and abs(page_row["duration"] - row["duration"]) < 0.1,
                  f"long call: the page's summary {page_row} is not analyze's {row['meanBitrate']}, {row['duration']}")
        print(f"report: a {shape['duration'] / 60:.0f} min call: {shape['full']} values per series, {shape['drawn']} drawn, "
              f"{size / 1e6:.1f} MB page, loaded in {load_seconds:.1f} s")
        state, errors = visit(broken)
        check(state["render"] != "ok" and errors, f"the broken control page was not caught: {state}, {errors}")
        print(f"report: {len(pages)} pages render in Chromium without console errors ({drawn} series paths); the broken control is caught")
    finally:
        driver.quit()


# --------------------------------------------------------------------------- 4. analyze
def test_analyze(callscope: str, tmp: str) -> None:
    damaged = os.path.join(tmp, "damaged.ndjson.gz")
    with open(os.path.join(RECORDINGS, "baseline.ndjson.gz"), "rb") as f:
        data = f.read()
    with open(damaged, "wb") as f:
        f.write(data[:20] + bytes(b ^ 0x5A for b in data[20:400]) + data[400:])   # garbage after the gzip header
    # And a file with one garbage line in the middle: reported, the rest of it analysed.
    damaged_line = os.path.join(tmp, "damaged-line.ndjson")
    with gzip.open(os.path.join(RECORDINGS, "both-sides.ndjson.gz"), "rt", encoding="utf-8") as f:
        lines = f.read().splitlines()
    with open(damaged_line, "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:60] + ['{"t":1,"peer":"publisher","report":[{"id":'] + lines[60:]) + "\n")
    files = capture_set() + [damaged, damaged_line]
    run = subprocess.run([callscope, "analyze", *files], capture_output=True, text=True, timeout=300)
    check(run.returncode == 0, f"analyze: exit {run.returncode}: {run.stderr[-400:]}")
    check("damaged.ndjson.gz" in run.stderr and "skipped" in run.stderr, f"analyze must report the damaged file: {run.stderr[-300:]}")
    check("damaged-line.ndjson: 1 damaged part(s) skipped" in run.stderr and "damaged-line.ndjson" in run.stdout,
          f"analyze must report the damaged line and analyse the rest: {run.stderr[-300:]}")
    check(f"analysed {len(files) - 1} of {len(files)} files" in run.stderr, f"every other file is analysed: {run.stderr[-200:]}")
    check("\u2588" not in run.stderr, "no progress bar when stderr is not a terminal")
    lines = run.stdout.splitlines()
    check(len(lines) > 10 and lines[0].startswith("call") and lines[-1].startswith("total"), "analyze prints a table with a total")
    print("analyze:", run.stderr.strip().splitlines()[-1])

    # On a terminal, a progress bar on stderr (the table still goes to stdout).
    import pty
    master, slave = pty.openpty()
    tty_run = subprocess.run([callscope, "analyze", RECORDINGS], stdout=subprocess.PIPE, stderr=slave, timeout=300)
    os.close(slave)
    seen = b""
    with contextlib.suppress(OSError):
        while chunk := os.read(master, 65536):
            seen += chunk
    os.close(master)
    text = seen.decode("utf-8", "replace")
    check(tty_run.returncode == 0 and "\u2588" in text and re.search(r"\d+/\d+ files", text) and tty_run.stdout.decode().startswith("call"),
          f"analyze on a terminal shows a progress bar: {text[-200:]!r}")

    run = subprocess.run([callscope, "analyze", "--json", RECORDINGS], capture_output=True, text=True, timeout=300)
    check(run.returncode == 0, f"analyze --json: exit {run.returncode}")
    document = json.loads(run.stdout)
    check(not document["skipped"], f"nothing in Recordings/ is skipped: {document['skipped']}")
    rows = {(os.path.basename(r["call"]), r["peer"], r["direction"], r["stream"]): r for r in document["rows"]}
    compared = 0
    for name in PUSHED:
        expected = oracle(replay_ndjson(callscope, os.path.join(RECORDINGS, name)).stdout)
        for (metric, labels), value in expected.items():
            labels = dict(labels)
            if metric == "callscope_subscriber_video_lost_packets_total":
                row = rows.get((name, labels["peer"], "receiving", labels.get("stream", "")))
                check(row is not None and row["packetsLost"] == value, f"analyze {name}: packets lost {row and row['packetsLost']} vs {value}")
                compared += 1
            if metric == "callscope_network_condition_seconds_total" and labels["link"] == "downlink":
                row = rows.get((name, labels["peer"], "receiving", labels.get("stream", "")))
                check(row is not None and close(row["conditionSeconds"][labels["condition"]], value),
                      f"analyze {name}: {labels['condition']} seconds {row and row['conditionSeconds']} vs {value}")
                compared += 1
    check(compared >= 10, f"analyze: compared only {compared} values")
    total = document["total"]
    check(close(total["duration"], sum(r["duration"] for r in document["rows"])), "analyze: the total duration is the sum of the rows")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--callscope", default=os.path.join(ROOT, ".build", "debug", "callscope"))
    parser.add_argument("--keep", help="keep the temporary files (reports, logs) in this directory")
    parser.add_argument("--only", choices=["prometheus", "otlp", "report", "analyze", "live"])
    args = parser.parse_args()
    callscope = os.path.abspath(args.callscope)
    tmp = args.keep or tempfile.mkdtemp(prefix="callscope-exports-")
    os.makedirs(tmp, exist_ok=True)
    configure_log("test_exports")             # the tag of the package's "started NAME pid N" lines
    processes = Processes()
    started = time.monotonic()
    try:
        if args.only in (None, "prometheus"):
            test_prometheus(callscope, tmp, processes)
        if args.only in (None, "otlp"):
            test_otlp(callscope)
        if args.only in (None, "report"):
            test_report(callscope, tmp, processes)
        if args.only in (None, "analyze"):
            test_analyze(callscope, tmp)
        if args.only in (None, "live"):
            test_live_call(callscope, tmp, processes)
    finally:
        processes.reap_all()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"test_exports: {checks} checks, {len(failures)} failed, {time.monotonic() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
