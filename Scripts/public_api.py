#!/usr/bin/env python3
"""The public API of every library module, as sorted text, from the toolchain's symbol graphs.

    python3 Scripts/public_api.py            # rewrite API/<Module>.txt
    python3 Scripts/public_api.py --check    # exit 1 (and show the diff) when they differ

Run after `swift build` (it reads .build/debug/Modules). CI runs --check, so every change to
the public surface is deliberate: regenerate, look at the diff, commit it.
"""
import difflib, glob, json, os, platform, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULES_FILE = os.path.join(ROOT, "API", "modules.txt")


def listing(module, modules_dir, out_dir):
    target = f"{platform.machine()}-unknown-linux-gnu"
    # C targets (the SIMD kernels) are found through the module maps SwiftPM generated.
    c_modules = []
    for module_map in sorted(glob.glob(os.path.join(os.path.dirname(modules_dir), "*.build", "module.modulemap"))):
        c_modules += ["-Xcc", f"-fmodule-map-file={module_map}"]
    subprocess.run(["swift-symbolgraph-extract", "-module-name", module, "-I", modules_dir, "-target", target, *c_modules,
                    "-minimum-access-level", "public", "-skip-synthesized-members", "-output-dir", out_dir],
                   check=True, stdout=subprocess.DEVNULL)
    lines = set()
    for path in glob.glob(os.path.join(out_dir, f"{module}*.symbols.json")):
        graph = json.load(open(path))
        extended = "@" in os.path.basename(path)   # extensions of another module's types
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
            declaration = " ".join(declaration.split())
            where = ".".join(symbol["pathComponents"][:-1])
            prefix = (os.path.basename(path).split(".")[0].split("@")[1] + " ") if extended else ""
            lines.add(f"{prefix}{where + ': ' if where else ''}{declaration}")
    return "".join(line + "\n" for line in sorted(lines))


def main():
    check = "--check" in sys.argv
    modules = [m.strip() for m in open(MODULES_FILE) if m.strip() and not m.startswith("#")]
    modules_dir = os.path.join(ROOT, ".build", "debug", "Modules")
    failed = False
    for module in modules:
        with tempfile.TemporaryDirectory() as out_dir:
            text = listing(module, modules_dir, out_dir)
        path = os.path.join(ROOT, "API", f"{module}.txt")
        if check:
            old = open(path).read() if os.path.exists(path) else ""
            if old != text:
                failed = True
                sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), text.splitlines(True), f"API/{module}.txt (checked in)", f"{module} (built)"))
        else:
            open(path, "w").write(text)
            print(f"API/{module}.txt: {text.count(chr(10))} public symbols")
    if failed:
        print("public API changed: run `python3 Scripts/public_api.py` and commit API/ if the change is deliberate", file=sys.stderr)
        sys.exit(1)


main()
