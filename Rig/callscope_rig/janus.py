"""Janus and coturn for real runs, from the repository's templates (Rig/janus/*.jcfg with
`@@NAME@@` placeholders, Rig/coturn/turnserver.conf with `@NAME@`), filled in a run directory
with the ports and addresses of this run. The Swift real tests fill the same templates.
"""
from __future__ import annotations

import contextlib
import json
import os
import random
import re
import shutil
import signal
import socket
import time
import urllib.request

from . import RIG_DIR
from .procs import Processes, RigError, free_tcp_port, free_tcp_udp_port, free_udp_range, log, pid_alive, run

JANUS_BIN = shutil.which("janus") or "/usr/bin/janus"
TURNSERVER_BIN = shutil.which("turnserver") or "/usr/bin/turnserver"


def fill(text: str, values: dict, marker: str) -> str:
    """`text` with every `<marker>NAME<marker>` of `values` replaced; RigError naming any
    placeholder left."""
    for key, value in values.items():
        text = text.replace(f"{marker}{key}{marker}", str(value))
    left = re.findall(re.escape(marker) + r"[A-Z_]+" + re.escape(marker), text)
    if left:
        raise RigError(f"unfilled placeholders: {left}")
    return text


class Janus:
    """Janus with the VideoRoom plugin and the HTTP transport only, its HTTP API on `bind_ip`
    (free port), ICE only on the interfaces of `ice_list`, a free RTP range."""

    def __init__(self, procs: Processes, workdir: str):
        self.procs, self.workdir = procs, workdir
        self.proc = None
        self.url = ""
        self.version = "janus"

    def start(self, bind_ip: str, ice_list: str, debug: int = 4, timeout: float = 20.0) -> str:
        conf = os.path.join(self.workdir, "janus-conf")
        os.makedirs(conf)
        port = free_tcp_port(bind_ip)
        lo, hi = free_udp_range()
        values = {"CONFIGS_FOLDER": conf, "RTP_PORT_RANGE": f"{lo}-{hi}", "ICE_ENFORCE_LIST": ice_list,
                  "HTTP_PORT": port, "HTTP_IP": bind_ip}
        for fn in os.listdir(os.path.join(RIG_DIR, "janus")):
            if fn.endswith(".jcfg"):
                with open(os.path.join(RIG_DIR, "janus", fn)) as f:
                    text = fill(f.read(), values, "@@")
                with open(os.path.join(conf, fn), "w") as f:
                    f.write(text)
        for line in run([JANUS_BIN, "--version"], check=False).stdout.splitlines():
            if line.startswith("Janus version:") and "(" in line:
                self.version = "janus " + line.split("(")[1].rstrip(")")
                break
        self.proc = self.procs.spawn("janus", [JANUS_BIN, "-F", conf, "-C", os.path.join(conf, "janus.jcfg"),
                                               "-i", bind_ip, "-o", "-d", str(debug),
                                               "-L", os.path.join(self.workdir, "janus.log")],
                                     os.path.join(self.workdir, "janus.out"))
        url = f"http://{bind_ip}:{port}/janus"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(Exception):
                with urllib.request.urlopen(url + "/info", timeout=2) as resp:
                    info = json.loads(resp.read())
                if info.get("janus") == "server_info":
                    if "janus.plugin.videoroom" not in info.get("plugins", {}):
                        raise RigError("janus started without the VideoRoom plugin")
                    log(f"{self.version} up at {url}")
                    self.url = url
                    return url
            time.sleep(0.3)
        raise RigError(f"janus did not answer at {url} (see {self.workdir}/janus.out)")


class Coturn:
    """coturn on `ip` (a free port for UDP and TCP, relay ports from a random block of 100),
    lt-cred-mech with one static user; its config, pidfile and log in `run_dir`."""

    def __init__(self, procs: Processes, run_dir: str):
        self.procs, self.run_dir = procs, run_dir
        self.proc = None
        self.port = 0

    def start(self, ip: str, realm: str, user: str, password: str, timeout: float = 10.0) -> int:
        self.port = free_tcp_udp_port(ip)
        relay_base = random.randrange(40000, 59000, 100)
        with open(os.path.join(RIG_DIR, "coturn", "turnserver.conf")) as f:
            conf = fill(f.read(), {"LISTEN_IP": ip, "RELAY_IP": ip, "PORT": self.port, "MIN_PORT": relay_base,
                                   "MAX_PORT": relay_base + 99, "REALM": realm, "USER": user,
                                   "PASSWORD": password, "RUN_DIR": self.run_dir}, "@")
        conf_path = os.path.join(self.run_dir, "turnserver.conf")
        with open(conf_path, "w") as f:
            f.write(conf)
        self.proc = self.procs.spawn("coturn", [TURNSERVER_BIN, "-c", conf_path],
                                     os.path.join(self.run_dir, "turnserver.out"))
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RigError(f"turnserver exited with {self.proc.returncode}; see {self.log_tail()}")
            try:
                with socket.create_connection((ip, self.port), timeout=0.2):
                    return self.port
            except OSError:
                time.sleep(0.1)
        raise RigError(f"turnserver did not listen within {timeout:.0f} s")

    def log_text(self) -> str:
        with open(os.path.join(self.run_dir, "turnserver.log")) as f:
            return f.read()

    def log_tail(self) -> str:
        try:
            return " | ".join(self.log_text().splitlines()[-5:])
        except OSError:
            return "(no log)"

    @staticmethod
    def stop_stale(run_dir: str) -> None:
        """The coturn of a killed run whose files are in `run_dir` (its pidfile, checked against
        its command line, which names `run_dir`)."""
        try:
            with open(os.path.join(run_dir, "turnserver.pid")) as f:
                turn_pid = int(f.read().strip())
            with open(f"/proc/{turn_pid}/cmdline", "rb") as f:
                if run_dir.encode() in f.read() and pid_alive(turn_pid):
                    log(f"stopping stale coturn {turn_pid}")
                    os.kill(turn_pid, signal.SIGKILL)
        except (OSError, ValueError):
            pass
