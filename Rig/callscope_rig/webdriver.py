"""A minimal W3C WebDriver client (urllib only) and chromedriver start-up, for the rig's page path
and the export tests' report pages."""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import time
import urllib.error
import urllib.request

from .procs import Processes, RigError, free_tcp_port

CHROMIUM_BIN = "/usr/lib/chromium/chromium"
CHROMEDRIVER_BIN = shutil.which("chromedriver") or "/usr/bin/chromedriver"
# Every headless Chromium the rig or a test starts.
HEADLESS_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"]


class WebDriverError(RigError):
    pass


class WebDriver:
    """One chromedriver at `base` and (after `new_session`) one session of it."""

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

    def window(self) -> str:
        return self.call("GET", self.s("/window"))

    def switch_to(self, handle: str, timeout: float = 30.0) -> None:
        self.call("POST", self.s("/window"), {"handle": handle}, timeout=timeout)

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


def start_chromedriver(procs: Processes, name: str, log_dir: str, binary: str = CHROMEDRIVER_BIN):
    """A chromedriver on a free port of 127.0.0.1 (its log and output in `log_dir`), ready:
    (its process, a WebDriver for it)."""
    port = free_tcp_port()
    proc = procs.spawn(name, [binary, f"--port={port}", "--allowed-ips=127.0.0.1",
                              f"--log-path={os.path.join(log_dir, name + '.log')}"],
                       os.path.join(log_dir, name + ".out"))
    wd = WebDriver(f"http://127.0.0.1:{port}")
    wd.wait_ready(20)
    return proc, wd


def chrome_capabilities(binary: str, args: list[str], **options) -> dict:
    """W3C capabilities for Chromium `binary` with `args` (`options`: more goog:chromeOptions)."""
    return {"browserName": "chrome", "goog:chromeOptions": dict(binary=binary, args=list(args), **options)}
