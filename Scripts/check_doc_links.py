#!/usr/bin/env python3
"""Checks every relative Markdown link in README.md and docs/ (and the anchors of links into
Markdown files, with GitHub's heading slugs). Prints each broken link; exit 1 if any.

    python3 Scripts/check_doc_links.py
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
files = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
link = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def slugs(path: pathlib.Path) -> set:
    out, fenced = set(), False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if fenced or not line.startswith("#"):
            continue
        title = line.lstrip("#").strip().lower()
        out.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return out


broken = 0
for source in files:
    text = re.sub(r"```.*?```", "", source.read_text(encoding="utf-8"), flags=re.S)
    for target in link.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        resolved = (source.parent / path).resolve() if path else source
        if not resolved.exists():
            print(f"{source.relative_to(root)}: {target}: no such file")
            broken += 1
        elif anchor and resolved.suffix == ".md" and anchor not in slugs(resolved):
            print(f"{source.relative_to(root)}: {target}: no such heading")
            broken += 1
print(f"{len(files)} files checked, {broken} broken links")
sys.exit(1 if broken else 0)
