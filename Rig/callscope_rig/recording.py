"""`webrtc-stats-recording` files (docs/spec/recording-format.md): a header line, then sample
lines (`t`, `peer`, `pc`, `report`) and event lines (`t`, `peer`, [`pc`,] `event`, `data`), NDJSON,
gzip when the name ends in .gz. The rig's own lines (header, `impairment-*`) are written here; its
peers' samples and events come from `callscope call --record` (the SDK path) or the pages.
"""
from __future__ import annotations

import gzip
import json
import os
import time

from . import RIG_DIR

FORMAT = "webrtc-stats-recording"
VERSION = 1


def read(path: str) -> list[dict]:
    """Every line of a recording (the header first), parsed."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_file(path: str, data: bytes) -> None:
    """Writes `data` to `path` through `path.part` and a rename (never a partial file), compressed
    like `gzip -9 -n` when the name ends in .gz: no file name, mtime 0, so the same data gives
    the same bytes."""
    with open(path + ".part", "wb") as raw:
        if path.endswith(".gz"):
            with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as f:
                f.write(data)
        else:
            raw.write(data)
    os.replace(path + ".part", path)


def dumps(line: dict) -> str:
    """One line as the rig writes it: compact JSON."""
    return json.dumps(line, separators=(",", ":"))


def write(path: str, header: dict, lines: list[dict]) -> None:
    """The recording: `header` (its `format`/`version` set), then `lines` in the order given."""
    head = dict(header, format=FORMAT, version=VERSION)
    text = "".join(dumps(x) + "\n" for x in [head] + lines)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    write_file(path, text.encode("utf-8"))


def event(peer: str, name: str, data: dict, t: int | None = None, pc: str | None = None) -> dict:
    """An event line; `t` defaults to now (unix ms), `pc` names the connection it is about."""
    line = {"t": t or int(time.time() * 1000), "peer": peer}
    if pc:
        line["pc"] = pc
    line.update(event=name, data=data)
    return line


def labels_path(recording: str) -> str:
    """`NAME.labels.json` beside `NAME.ndjson[.gz]`."""
    base = recording
    for ext in (".ndjson.gz", ".ndjson", ".gz"):
        if base.endswith(ext):
            base = base[: -len(ext)]
            break
    return base + ".labels.json"


def scenario_path(header: dict) -> str:
    """Rig/scenarios/<the header's scenario>.json."""
    return os.path.join(RIG_DIR, "scenarios", header["scenario"] + ".json")
