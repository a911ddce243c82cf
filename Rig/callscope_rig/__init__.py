"""The CallScope rig as one package (Rig/README.md, "The package"). Python 3.11 standard library
only. The scripts in Rig/ (`record.py`, `discover_real.py`, the checkers) and
`Scripts/test_exports.py` import it; it has no command line of its own.

- `procs`: child processes (own session each, ended by process group), the pidfile of a run,
  free ports, CPU accounting, `run()` for short commands, `RigError`, the log line.
- `netlab`: network namespaces joined to the root namespace by a veth pair, the rig's
  addressing plan, iptables and `tc tbf` impairments, clean-up of what a killed run left.
- `janus`: Janus (Rig/janus/*.jcfg) and coturn (Rig/coturn/turnserver.conf) from the repository's
  templates, with free ports filled in.
- `webdriver`: a W3C WebDriver client over urllib, chromedriver start-up, Chromium's flags.
- `pages`: the page path (Rig/web/call.js in headless Chromium): the page server and one
  browser peer, `chrome://webrtc-internals` dumps and decoded frames as Y4M.
- `peers`: the SDK path: peers as `callscope call --record` processes, their warm-up and the merge
  of their recordings into the rig's.
- `recording`: reading and writing `webrtc-stats-recording` files (docs/spec/recording-format.md).
"""
import os

RIG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_DIR = os.path.dirname(RIG_DIR)
