"""The rig's SDK path: its peers as `callscope call` processes (Rig/README.md, "The SDK path").

record.py starts one `callscope call` per publisher and one for the subscriber, each inside its
peer's network namespace (`ip netns exec`), each with `--record`; it watches their ndjson output
for the warm-up, ends them with SIGTERM at the end of the recording (they hang up and write their
recordings), and `merge()` turns their recordings into the rig's one recording: the SDK's raw
reports, sender-stats messages, stream bindings and lifecycle events, relabelled with the rig's
peer and connection labels.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time

from . import recording
from .netlab import nsx

# `callscope call --duration` of a rig peer: far longer than any recording, the rig ends it.
UNTIL_STOPPED_S = 3600


# The options `SDKPeer.argv` gives every peer (publishers also --width/--height/--fps/--bitrates).
RIG_CALL_OPTIONS = ["--janus", "--room", "--display", "--format", "--duration", "--record", "--publish", "--subscribe",
                    "--width", "--height", "--fps", "--bitrates"]


class SDKPeerError(Exception):
    """A `callscope call` peer failed (exited early, wrote no recording, ...)."""


# The layer policy's events and its decided limits (`callscope call --record`): the replay
# applies their receive limit to the stream they name, so that name follows the bindings'
# relabelling.
POLICY_EVENTS = ("subscriber.layerChanged", "subscriber.videoDisabled", "subscriber.videoEnabled",
                 "subscriber.videoDisableWarning", "subscriber.videoDisableWarningLifted", "subscriber.receiveLimit")


def find_callscope(repo_dir: str, given: str | None) -> str:
    """The `callscope` binary: `given`, else the release build in `repo_dir`; a clear error when
    it is missing."""
    path = given or os.path.join(repo_dir, ".build", "release", "callscope")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        how = "pass an existing one with --callscope PATH" if given else \
            f"build it once with `swift build -c release --product callscope` in {repo_dir}, or pass --callscope PATH"
        raise SDKPeerError(f"callscope binary not found at {path}: {how}")
    return path


def scenario_args_error(scenario: dict, publishers: list[str]) -> str | None:
    """Why the scenario's `subscriber_args` / `publisher_args` are malformed, else None.
    `subscriber_args`: a list of strings; `publisher_args`: a list of strings (every publisher) or
    an object from publisher label to such a list."""
    def is_args(v) -> bool:
        return isinstance(v, list) and all(isinstance(x, str) for x in v)
    sub = scenario.get("subscriber_args", [])
    if not is_args(sub):
        return f"subscriber_args must be a list of strings, not {sub!r}"
    pub = scenario.get("publisher_args", [])
    if isinstance(pub, dict):
        for name, v in pub.items():
            if name not in publishers:
                return f"publisher_args names {name!r}, not a publisher ({', '.join(publishers)})"
            if not is_args(v):
                return f"publisher_args[{name!r}] must be a list of strings, not {v!r}"
    elif not is_args(pub):
        return f"publisher_args must be a list of strings or an object per publisher, not {pub!r}"
    return None


def peer_args(scenario: dict, name: str) -> list[str]:
    """The extra `callscope call` options the scenario gives peer `name` (`subscriber` or a
    publisher's label); [] when it gives none."""
    if name == "subscriber":
        return list(scenario.get("subscriber_args", []))
    pub = scenario.get("publisher_args", [])
    return list(pub.get(name, [])) if isinstance(pub, dict) else list(pub)


def unknown_options(help_text: str, args: list[str]) -> list[str]:
    """The `--options` in `args` that `callscope help call` (`help_text`) does not mention: this
    binary predates them (e.g. the layer policy's options before it is merged)."""
    words = set(help_text.translate(str.maketrans("[]()|=,", "       ")).split())
    return [x for x in args if x.startswith("--") and x not in words]


def check_options(binary: str, args: list[str]) -> None:
    """SDKPeerError naming the options of `args` this `callscope` binary does not know, before any
    peer starts (a `callscope call` with an unknown option exits at once with a usage error)."""
    if not any(x.startswith("--") for x in args):
        return
    try:
        out = subprocess.run([binary, "help", "call"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise SDKPeerError(f"{binary} help call: {e}") from None
    missing = unknown_options(out.stdout + out.stderr, args)
    if missing:
        raise SDKPeerError(f"{binary} does not know {', '.join(missing)} (`callscope help call` does not "
                           f"list it): the rig or the scenario needs a callscope that has it")


class SDKPeer:
    """One `callscope call` process for one rig peer (a publisher's label or `subscriber`)."""

    def __init__(self, name: str, netns: str | None, workdir: str):
        self.name, self.netns = name, netns
        self.record_path = os.path.join(workdir, f"sdk-{name}.ndjson")
        self.out_path = os.path.join(workdir, f"sdk-{name}.out")
        self.proc: subprocess.Popen | None = None
        self._offset = 0
        self._partial = b""

    def argv(self, binary: str, janus_url: str, room: int, publish: bool, media: list[str],
             extra: list[str] = ()) -> list[str]:
        """`extra`: the scenario's options for this peer (`peer_args`), after the rig's own."""
        call = [binary, "call", "--janus", janus_url, "--room", str(room), "--display", self.name,
                "--format", "ndjson", "--duration", str(UNTIL_STOPPED_S), "--record", self.record_path]
        call += ["--publish", "--subscribe", "none"] + media if publish else ["--subscribe", "all"]
        call += list(extra)
        return nsx(self.netns) + call

    def new_lines(self) -> list[dict]:
        """The JSON lines the process printed since the last call (other lines skipped)."""
        try:
            with open(self.out_path, "rb") as f:
                f.seek(self._offset)
                data = f.read()
        except OSError:
            return []
        self._offset += len(data)
        data = self._partial + data
        *complete, self._partial = data.split(b"\n")
        out = []
        for raw in complete:
            if raw.startswith(b"{"):
                try:
                    out.append(json.loads(raw))
                except ValueError:
                    continue
        return out

    def tail(self, n: int = 12) -> str:
        try:
            with open(self.out_path, "rb") as f:
                return b"\n".join(f.read().splitlines()[-n:]).decode("utf-8", "replace")
        except OSError:
            return ""

    def check_alive(self) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            raise SDKPeerError(f"callscope call for {self.name} exited ({self.proc.returncode}) during the call; "
                               f"its last lines:\n{self.tail()}")

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM: the call hangs up and writes its recording; waits for it (the caller kills
        the rest)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pass


class WarmUpWatch:
    """Reads the peers' ndjson for the warm-up: each publisher's own estimate
    (`publisher.mediaLinkStatsUpdated` transport `connectionEstimatedBandwidth`, which the SDK
    takes from `availableOutgoingBitrate`) and, per publisher, a subscriber stream that decodes
    (`subscriber.videoNetworkStatsUpdated` with `decodedFrameRate` > 0)."""

    def __init__(self, publishers: list[SDKPeer], subscriber: SDKPeer):
        self.publishers, self.subscriber = publishers, subscriber
        self.estimates: dict[str, float] = {}
        self.decoding: set[str] = set()

    def poll(self) -> None:
        for p in self.publishers:
            for line in p.new_lines():
                if line.get("callback") == "publisher.mediaLinkStatsUpdated":
                    data = line.get("data")
                    links = data if isinstance(data, list) else [data]
                    for link in links:
                        est = ((link or {}).get("transport") or {}).get("connectionEstimatedBandwidth")
                        if isinstance(est, (int, float)):
                            self.estimates[p.name] = est
        for line in self.subscriber.new_lines():
            if line.get("callback") == "subscriber.videoNetworkStatsUpdated":
                fps = (line.get("data") or {}).get("decodedFrameRate")
                if isinstance(fps, (int, float)) and fps > 0:
                    self.decoding.add(line.get("stream") or "")

    def done(self, target_bps: float) -> bool:
        return len(self.decoding) >= len(self.publishers) and \
            all(self.estimates.get(p.name, 0) >= target_bps for p in self.publishers)


def wait_published(peer: SDKPeer, timeout: float) -> None:
    """Until the publisher's process printed `publisher.streamCreated` (it is in the room)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        peer.check_alive()
        for line in peer.new_lines():
            if line.get("callback") == "publisher.streamCreated":
                peer._offset, peer._partial = 0, b""        # the warm-up reads the output again
                return
        time.sleep(0.2)
    raise SDKPeerError(f"{peer.name} did not publish in {timeout:.0f}s; its last lines:\n{peer.tail()}")


def _read(path: str) -> tuple[dict, list[dict]]:
    try:
        lines = recording.read(path)
    except (OSError, ValueError) as e:
        raise SDKPeerError(f"cannot read the SDK recording {path}: {e}") from None
    if not lines or lines[0].get("format") != recording.FORMAT:
        raise SDKPeerError(f"{path} is not a webrtc-stats-recording")
    return lines[0], lines[1:]


def merge(publishers: list[SDKPeer], subscriber: SDKPeer, t0: int) -> tuple[list[dict], dict]:
    """The lines of the rig's recording from the peers' `--record` files, and facts for the
    header (`browser`, the SDK's `interval_ms`, the publishers' Janus ids).

    Relabelling, so the rig's tooling and labels apply unchanged: a publisher's own connection
    (SDK peer `<label>.publisher`) becomes peer `<label>`, its connections `pub-1`, `pub-2`, ...;
    the subscriber's connections `sub-1`, `sub-2`, ... (one publisher) or `sub-a`, `sub-a2`, ...
    (the feed of `publisher-a`), in order of appearance; a publisher's Janus id (the SDK's
    `publisher`/`stream` in bindings and sender-stats messages) becomes its peer label, taken from
    the subscriber's header `publishers` (Janus display name = the rig's label). Reports, message
    contents and events are otherwise as the SDK recorded them. Samples before `t0` (the
    unrecorded warm-up) are left out; events keep their own time, as on the page path."""
    out: list[dict] = []
    facts: dict = {"sdk_interval_ms": None, "browser": None, "janus_ids": {}}
    for peer in publishers:
        header, lines = _read(peer.record_path)
        facts["browser"] = facts["browser"] or header.get("browser")
        facts["sdk_interval_ms"] = header.get("interval_ms")
        own = f"{peer.name}.publisher"
        pcs: dict[str, str] = {}
        for line in lines:
            if "report" in line:
                if line.get("peer") != own or line["t"] < t0:
                    continue
                pcs.setdefault(line["pc"], f"pub-{len(pcs) + 1}")
                out.append(dict(line, peer=peer.name, pc=pcs[line["pc"]]))
            else:
                out.append(dict(line, peer=peer.name))
    header, lines = _read(subscriber.record_path)
    facts["browser"] = facts["browser"] or header.get("browser")
    names: dict[str, str] = {}
    labels = {p.name for p in publishers}
    for entry in header.get("publishers", []):
        if entry.get("name") in labels and not entry.get("own"):
            for key in ("publisher", "stream"):
                if entry.get(key):
                    names[str(entry[key])] = entry["name"]
    facts["janus_ids"] = {v: k for k, v in names.items()}
    single = len(publishers) == 1
    pcs: dict[str, str] = {}
    per_publisher: dict[str, int] = {}

    def pc_label(pc: str, publisher: str | None) -> str:
        if pc not in pcs:
            if single or publisher is None:
                pcs[pc] = f"sub-{len(pcs) + 1}"
            else:
                k = per_publisher[publisher] = per_publisher.get(publisher, 0) + 1
                letter = publisher.split("-")[-1]
                pcs[pc] = f"sub-{letter}" if k == 1 else f"sub-{letter}{k}"
        return pcs[pc]

    for line in lines:
        line = dict(line)
        if line.get("event") == "subscriber-streams":
            streams = []
            for st in line["data"].get("streams", []):
                st = dict(st)
                for key in ("publisher", "stream"):
                    if st.get(key) in names:
                        st[key] = names[st[key]]
                streams.append(st)
            line["data"] = dict(line["data"], streams=streams)
            first = next((s.get("publisher") for s in streams if s.get("publisher") in labels), None)
            line["pc"] = pc_label(line["pc"], first)
        elif line.get("event") == "sender-stats":
            data = line.get("data")
            if isinstance(data, dict) and data.get("publisher") in names:
                line["data"] = dict(data, publisher=names[data["publisher"]])
            if line.get("pc"):
                line["pc"] = pc_label(line["pc"], None)
        elif line.get("event") in POLICY_EVENTS:
            # The replay applies these to the stream `data.stream` names: the relabelled one.
            data = line.get("data")
            if isinstance(data, dict):
                line["data"] = {k: names.get(v, v) if k in ("stream", "publisher") and isinstance(v, str) else v
                                for k, v in data.items()}
            if line.get("pc"):
                line["pc"] = pc_label(line["pc"], None)
        elif "report" in line:
            if line["t"] < t0:
                continue
            line["pc"] = pc_label(line["pc"], None)
        elif line.get("pc"):
            line["pc"] = pc_label(line["pc"], None)
        out.append(line)
    return out, facts
