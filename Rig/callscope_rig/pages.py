"""The rig's page path: Rig/web/call.html + call.js in one headless Chromium per peer, driven over
WebDriver (Rig/README.md, "What it starts"). It serves what the SDK path (`peers`) cannot do yet:
`--webrtc-internals`, `--frames` and a multistream subscriber.
"""
from __future__ import annotations

import base64
import contextlib
import gzip
import http.server
import json
import os
import socketserver
import threading
import time

from . import RIG_DIR
from .procs import Processes, RigError, log
from .recording import write_file
from .webdriver import CHROMIUM_BIN, HEADLESS_ARGS, chrome_capabilities, start_chromedriver


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


class PageServer:
    """Rig/web over HTTP from a thread of this process."""

    def __init__(self, host: str, port: int):
        handler = lambda *a, **kw: _QuietHandler(*a, directory=os.path.join(RIG_DIR, "web"), **kw)
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


COLLECT_JS = """
const done = arguments[arguments.length - 1];
if (!window.callscope) { done({t: Date.now(), pcs: [], events: [], state: {phase: 'no-page'}}); return; }
window.callscope.collect().then(done, e => done({t: Date.now(), pcs: [], events: [], state: {phase: 'collect-error', error: String(e)}}));
"""

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


class PagePeer:
    """One peer of the page path: a chromedriver (root namespace, 127.0.0.1) and its headless
    Chromium, in network namespace `netns` when given (launched through `ip netns exec` with
    `--remote-debugging-pipe`, so WebDriver never crosses the impaired veth)."""

    def __init__(self, name: str, netns: str | None, workdir: str, procs: Processes, *, fps: int, width: int,
                 height: int, camera_file: str | None, page_origin: str):
        self.name, self.netns, self.workdir, self.procs = name, netns, workdir, procs
        self.fps, self.width, self.height, self.camera_file, self.page_origin = fps, width, height, camera_file, page_origin
        self.driver_proc = None
        self.wd = None
        self.user_data = os.path.join(workdir, f"profile-{name}")
        self.download_dir = os.path.join(workdir, f"downloads-{name}")
        self.caps: dict = {}
        self.main_window: str | None = None
        self.internals_window: str | None = None

    def chrome_args(self) -> list[str]:
        args = HEADLESS_ARGS + [
            f"--use-fake-device-for-media-stream=fps={self.fps}", "--use-fake-ui-for-media-stream",
            f"--user-data-dir={self.user_data}",
            "--autoplay-policy=no-user-gesture-required", "--mute-audio",
            "--no-first-run", "--no-default-browser-check", "--disable-extensions",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--disable-backgrounding-occluded-windows",
            "--disable-features=WebRtcHideLocalIpsWithMdns,MediaRouter,OptimizationHints,Translate",
        ]
        if self.width * self.height < 960 * 540:
            # libwebrtc allows fewer simulcast layers below 960x540 (2 at 640x360); lift that
            # limit so that a smaller camera still sends the three layers q/h/f, scaled.
            args.append("--force-fieldtrials=WebRTC-LegacySimulcastLayerLimit/Disabled/")
        if self.camera_file and self.name.startswith("publisher"):
            # A Y4M (or MJPEG) file as the camera, looped, instead of Chromium's test pattern.
            args.append(f"--use-file-for-fake-video-capture={os.path.abspath(self.camera_file)}")
        if self.netns is None:
            args.append("--allow-loopback-in-peer-connection")
        else:
            # chromedriver stays in the root namespace; it drives Chromium over a pipe, so the
            # DevTools connection never crosses the impaired veth.
            args.append("--remote-debugging-pipe")
        if not self.page_origin.startswith("http://127.0.0.1"):
            # getUserMedia needs a secure context; the page is plain http on a veth address.
            args.append(f"--unsafely-treat-insecure-origin-as-secure={self.page_origin}")
        return args

    def start(self) -> None:
        os.makedirs(self.download_dir, exist_ok=True)
        self.driver_proc, self.wd = start_chromedriver(self.procs, f"chromedriver-{self.name}", self.workdir)
        binary = CHROMIUM_BIN
        if self.netns:
            binary = os.path.join(self.workdir, f"chromium-{self.name}.sh")
            with open(binary, "w") as f:
                f.write(f"#!/bin/sh\nexec ip netns exec {self.netns} {CHROMIUM_BIN} \"$@\"\n")
            os.chmod(binary, 0o755)
        caps = chrome_capabilities(binary, self.chrome_args(),
                                   prefs={"download.default_directory": self.download_dir,
                                          "download.prompt_for_download": False})
        self.caps = self.wd.new_session(caps, timeout=60)
        self.wd.set_timeouts(script_ms=20000)
        self.main_window = self.wd.window()
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

    def state(self) -> dict:
        return self.wd.execute("return window.callscope ? window.callscope.state : {phase: 'no-page'};") or {}

    def wait_phase(self, phases: set[str], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        st = {}
        while time.monotonic() < deadline:
            st = self.state()
            if st.get("phase") in phases:
                return
            if st.get("phase") == "error":
                raise RigError(f"{self.name} page error: {st.get('error')}")
            time.sleep(0.3)
        raise RigError(f"{self.name} did not reach {phases} in {timeout}s (state {st})")

    def stop(self) -> None:
        if self.wd and self.wd.session:
            with contextlib.suppress(Exception):
                if self.main_window:
                    self.wd.switch_to(self.main_window, timeout=5)
                self.wd.execute_async("const d=arguments[arguments.length-1];"
                                      "(window.callscope?window.callscope.hangup():Promise.resolve()).then(()=>d(1),()=>d(0));",
                                      timeout=6)
            self.wd.quit()
        if self.driver_proc:
            self.procs.reap(self.driver_proc)
            self.driver_proc = None

    # ---- chrome://webrtc-internals
    def open_internals(self) -> None:
        handle = self.wd.call("POST", self.wd.s("/window/new"), {"type": "window"})["handle"]
        self.wd.switch_to(handle)
        self.wd.navigate("chrome://webrtc-internals")
        self.internals_window = handle
        self.wd.switch_to(self.main_window)
        log(f"webrtc-internals open in a second window of the {self.name} browser")

    def dump_internals(self, out: str) -> None:
        """Saves a "Create Dump" of the internals window to `out` (.gz: gzip -9 -n; a dump over
        300 000 characters gets .gz added). Failures are logged, not raised."""
        try:
            self.wd.switch_to(self.internals_window)
            data = self._download_internals()
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
                self.wd.switch_to(self.main_window)

    def _download_internals(self):
        """Clicks the page's own "Download the webrtc-internals dump" button with downloads
        allowed into the peer's download dir, then reads the file it wrote."""
        with contextlib.suppress(Exception):
            self.wd.cdp("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": self.download_dir,
                                                        "eventsEnabled": False})
        before = set(os.listdir(self.download_dir))
        log(f"webrtc-internals: {self.wd.execute(INTERNALS_CLICK_JS)}")
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            new = [f for f in set(os.listdir(self.download_dir)) - before
                   if not f.endswith(".crdownload") and not f.endswith(".tmp")]
            if new:
                path = os.path.join(self.download_dir, sorted(new)[0])
                time.sleep(0.5)
                with open(path, "rb") as f:
                    raw = f.read()
                if raw[:2] == b"\x1f\x8b":           # the page gzips the dump when "compress" is ticked
                    raw = gzip.decompress(raw)
                log(f"webrtc-internals: downloaded {os.path.basename(path)} ({len(raw)} bytes of JSON)")
                return json.loads(raw.decode("utf-8"))
            time.sleep(0.3)
        return None

    # ---- decoded frames
    def write_frames(self, out: str, count: int, substream: int) -> None:
        """Writes `count` frames this (subscriber) page decoded, of simulcast layer `substream`, as
        YUV4MPEG2 to `out` (gzip when the name ends in .gz, like `gzip -9 -n`). The frames are
        WebCodecs copies of what libwebrtc's decoder output: I420 planes, packed."""
        scale = 4 >> substream             # layers q, h, f = top size / 4, / 2, / 1
        self.wd.set_timeouts(script_ms=60000)
        got = self.wd.execute_async(
            "const [n,s,w,h,d]=arguments;"
            "window.callscope.captureFrames(n,s,w,h).then(d,e=>d({error:String(e)}));",
            [count, substream, self.width // scale, self.height // scale], timeout=60) or {}
        self.wd.set_timeouts(script_ms=20000)
        if got.get("error") or got.get("format") != "I420":
            raise RigError(f"frame capture failed: {got.get('error') or 'format ' + str(got.get('format'))}")
        space = got.get("colorSpace") or {}
        write_file(out, y4m(got, self.fps))
        log(f"frames -> {out}: {len(got['frames'])} decoded frames {got['width']}x{got['height']} I420, "
            f"colour space {space}, RTP timestamps {got.get('rtpTimestamps')}")


def y4m(got: dict, fps: int) -> bytes:
    """The page's captured frames (`captureFrames`: base64 I420, colour space, RTP timestamps) as
    YUV4MPEG2."""
    space = got.get("colorSpace") or {}
    full = space.get("fullRange") is True
    # Y4M has no matrix field: keep WebCodecs' matrix as an X parameter (readers ignore it).
    # The header stays short: ffmpeg refuses Y4M headers over 128 bytes.
    extras = [f"XCOLORRANGE={'FULL' if full else 'LIMITED'}"]
    if space.get("matrix"):
        extras.append(f"XWEBCODECS_MATRIX={space['matrix']}")
    width, height = got["width"], got["height"]
    header = f"YUV4MPEG2 W{width} H{height} F{fps}:1 Ip A1:1 C420jpeg {' '.join(extras)}\n"
    frame_bytes = width * height + 2 * ((width + 1) // 2) * ((height + 1) // 2)
    body = bytearray(header.encode("ascii"))
    rtp = got.get("rtpTimestamps") or [None] * len(got["frames"])
    for text, timestamp in zip(got["frames"], rtp):
        data = base64.b64decode(text)
        if len(data) != frame_bytes:
            raise RigError(f"captured frame has {len(data)} bytes, I420 {width}x{height} needs {frame_bytes}")
        # The frame's 90 kHz RTP timestamp, as a frame parameter (ffmpeg and others skip it).
        body += (f"FRAME XRTP={timestamp}\n" if timestamp is not None else "FRAME\n").encode("ascii") + data
    return bytes(body)
