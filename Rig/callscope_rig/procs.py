"""Child processes, ports and CPU figures for the rig's scripts.

Every child is started in a session of its own (`start_new_session`), so that it and whatever it
starts (chromedriver's Chromium) can be ended together by process group, and only ever by the pid
this process got back when it started it.
"""
from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time


class RigError(Exception):
    """A rig step failed; the message says which and why."""


_log_tag, _log_stream = "rig", sys.stderr


def configure_log(tag: str, stream=None) -> None:
    """The tag of `log` lines (`[TAG HH:MM:SS] ...`) and their stream (default stderr)."""
    global _log_tag, _log_stream
    _log_tag, _log_stream = tag, stream or sys.stderr


def log(msg: str) -> None:
    print(f"[{_log_tag} {time.strftime('%H:%M:%S')}] {msg}", file=_log_stream, flush=True)


def run(cmd: list[str], check: bool = True, timeout: float = 15.0, **kw) -> subprocess.CompletedProcess:
    """A short command, its output captured as text; RigError when it cannot run, times out or
    (with `check`) exits non-zero. Without `check` those cases give a result with its code."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except (FileNotFoundError, subprocess.TimeoutExpired) as e:
        if check:
            raise RigError(f"{' '.join(cmd)}: {e}") from None
        return subprocess.CompletedProcess(cmd, 127, "", str(e))
    if check and r.returncode != 0:
        raise RigError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stderr.strip()}")
    return r


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def proc_starttime(pid: int) -> str | None:
    """The kernel start time of `pid` (field 22 of /proc/PID/stat): with the pid it names one
    process, not a later one that reuses the number."""
    fields = _stat_fields(pid)
    return fields[19] if fields else None


def _stat_fields(pid) -> list[str] | None:
    """/proc/PID/stat after the command name (field 3 onwards)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            data = f.read()
        return data[data.rindex(")") + 2:].split()
    except (OSError, ValueError):
        return None


def process_table() -> dict[int, tuple[int, str]]:
    """pid -> (parent pid, command line) of every process now running."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat_fields(entry)
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if fields:
            table[int(entry)] = (int(fields[1]), cmdline)
    return table


def kill_group(pid: int, grace: float = 5.0) -> None:
    """SIGTERM the process group led by pid (every child is started with its own session), then
    SIGKILL after `grace` seconds. Only ever called with pids the caller started."""
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
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            try:
                os.killpg(pid, 0)          # the group is gone when this fails
            except (ProcessLookupError, PermissionError):
                return
            time.sleep(0.1)


class PidBook:
    """The pidfile of a run: every process (pid + start time) and network object it made, so that
    the next run can end and delete what a hard-killed one left."""

    def __init__(self, path: str):
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
    def read(path: str) -> dict:
        try:
            with open(path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {"entries": []}

    @staticmethod
    def end_stale_processes(old: dict) -> None:
        """End the processes of an earlier run's pidfile whose pid *and* start time still match."""
        for e in old.get("entries", []):
            if e.get("kind") == "proc" and proc_starttime(e["pid"]) == e.get("starttime"):
                log(f"killing stale {e.get('name')} (pid {e['pid']})")
                kill_group(e["pid"], grace=3.0)


class Processes:
    """The children of one run: started with their output in a file, listed in the pidfile (when
    there is one), ended by process group."""

    def __init__(self, book: PidBook | None = None):
        self.book = book
        self.procs: list[subprocess.Popen] = []

    def spawn(self, name: str, argv: list[str], out_path: str) -> subprocess.Popen:
        with open(out_path, "wb") as out:
            p = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 start_new_session=True, close_fds=True)
        self.procs.append(p)
        if self.book:
            self.book.add({"kind": "proc", "name": name, "pid": p.pid, "starttime": proc_starttime(p.pid)})
        log(f"started {name} pid {p.pid}")
        return p

    def reap(self, p: subprocess.Popen, grace: float = 5.0) -> None:
        """Ends p's process group (also when p itself is gone: its children may not be)."""
        kill_group(p.pid, grace=grace if p.poll() is None else 2.0)
        with contextlib.suppress(Exception):
            p.wait(timeout=5)
        if self.book:
            self.book.remove(lambda e: e.get("pid") == p.pid)
        if p in self.procs:
            self.procs.remove(p)

    def reap_all(self) -> None:
        for p in reversed(list(self.procs)):
            with contextlib.suppress(Exception):
                self.reap(p)


# --------------------------------------------------------------------------- ports
def free_tcp_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def free_tcp_udp_port(host: str) -> int:
    """A port free for both TCP and UDP on `host` (a STUN/TURN server listens on both)."""
    for _ in range(50):
        port = free_tcp_port(host)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as u:
            try:
                u.bind((host, port))
                return port
            except OSError:
                continue
    raise RigError(f"no free UDP+TCP port on {host}")


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


# --------------------------------------------------------------------------- CPU
def cpu_times() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine."""
    with open("/proc/stat") as f:
        parts = [float(x) for x in f.readline().split()[1:]]
    idle = parts[3] + parts[4]
    total = sum(parts[:8])
    return total - idle, total


def cpu_seconds(pids) -> float:
    """utime+stime (s) of the live processes among `pids`."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in pids:
        fields = _stat_fields(pid)
        with contextlib.suppress(ValueError, IndexError, TypeError):
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def group_cpu_seconds(pgids: dict[str, int]) -> dict[str, float]:
    """utime+stime (s) of all live processes per process group, for the header's CPU figures."""
    members: dict[int, list[str]] = {pgid: [] for pgid in pgids.values()}
    for d in os.listdir("/proc"):
        fields = _stat_fields(d) if d.isdigit() else None
        with contextlib.suppress(ValueError, IndexError, TypeError):
            if int(fields[2]) in members:
                members[int(fields[2])].append(d)
    return {name: cpu_seconds(members[pgid]) for name, pgid in pgids.items()}
