"""Network namespaces for real tests: each joined to the root namespace by a veth pair, impaired
with `tc tbf` (rate) and iptables DROP rules (loss, blackout). The one namespace harness of the
Python rig (`record.py`'s peers, `discover_real.py`'s client); needs root.

The recorder's objects all start with `csrig-` (namespaces, veths, iptables comments; the Swift
real tests' `csrig-calls` too), so `cleanup_network_objects()` finds everything a killed run left.
"""
from __future__ import annotations

import contextlib
import os
import shutil
import signal

from .procs import RigError, cpu_seconds, log, run

PREFIX = "csrig"                       # namespaces, veths and iptables comments all start with it
RIG_NET = "10.201.0.0/16"              # the recorder's addresses; its namespaces reach only these


def nsx(ns: str | None) -> list[str]:
    """The command prefix that runs a command in `ns` (None: the root namespace)."""
    return ["ip", "netns", "exec", ns] if ns else []


class Link:
    """One network namespace `ns` joined to the root namespace by a veth pair: `root_if`
    (`root_ip`/24) in the root namespace, `ns_if` (`ns_ip`/24) inside."""

    def __init__(self, ns: str, root_if: str, ns_if: str, root_ip: str, ns_ip: str):
        self.ns, self.root_if, self.ns_if, self.root_ip, self.ns_ip = ns, root_if, ns_if, root_ip, ns_ip

    def __repr__(self) -> str:
        return f"{self.ns} {self.ns_ip} <-> {self.root_if} {self.root_ip}"

    def create(self, route: str | None = None, resolver: bool = False, book=None) -> None:
        """The namespace, the veth pair, addresses, links up (and loopback). `route`: a network
        reached through the root end (no default route: nothing else is reachable); `resolver`: an
        /etc/netns resolver that refuses at once; `book`: the run's PidBook, told of each object."""
        if os.geteuid() != 0:
            raise RigError("network namespaces need root")
        run(["ip", "netns", "add", self.ns])
        if book:
            book.add({"kind": "netns", "name": self.ns})
        run(["ip", "link", "add", self.root_if, "type", "veth", "peer", "name", self.ns_if])
        if book:
            book.add({"kind": "link", "name": self.root_if})
        run(["ip", "link", "set", self.ns_if, "netns", self.ns])
        run(["ip", "addr", "add", self.root_ip + "/24", "dev", self.root_if])
        run(["ip", "link", "set", self.root_if, "up"])
        inside = nsx(self.ns)
        run(inside + ["ip", "addr", "add", self.ns_ip + "/24", "dev", self.ns_if])
        run(inside + ["ip", "link", "set", self.ns_if, "up"])
        run(inside + ["ip", "link", "set", "lo", "up"])
        if route:
            run(inside + ["ip", "route", "add", route, "via", self.root_ip])
        if resolver:
            # `ip netns exec` bind-mounts /etc/netns/<ns>/resolv.conf: a resolver that answers
            # "connection refused" at once instead of timing out on an unreachable server.
            os.makedirs(f"/etc/netns/{self.ns}", exist_ok=True)
            with open(f"/etc/netns/{self.ns}/resolv.conf", "w") as f:
                f.write("nameserver 127.0.0.1\noptions timeout:1 attempts:1\n")
            if book:
                book.add({"kind": "etc-netns", "name": self.ns})

    def no_offloads(self) -> None:
        """Offloads would make tbf see 64 KB TCP super-packets (media is UDP and unaffected);
        switched off when ethtool exists so that caps are accurate for signaling too."""
        for dev, pre in ((self.root_if, []), (self.ns_if, nsx(self.ns))):
            run(pre + ["ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off"], check=False)

    def delete(self, kill_processes: bool = True) -> None:
        """The namespace (with its veth end and its iptables rules), the root end, the resolver;
        first (`kill_processes`) SIGKILL whatever still runs inside."""
        if kill_processes:
            kill_netns_processes(self.ns)
        run(["ip", "link", "del", self.root_if], check=False)
        run(["ip", "netns", "del", self.ns], check=False)
        shutil.rmtree(f"/etc/netns/{self.ns}", ignore_errors=True)


def network_plan(publishers: list[str]) -> dict[str, Link]:
    """The recorder's addressing per peer label: the first publisher in `csrig-pub`
    (10.201.1.0/24), the subscriber in `csrig-sub` (10.201.2.0/24), publisher N >= 2 in
    `csrig-pubN` (10.201.N+1.0/24). The root end of each veth is the namespace name + "0", the
    namespace end + "1"."""
    plan = {}
    for i, label in enumerate(publishers):
        ns, net = ("csrig-pub", 1) if i == 0 else (f"csrig-pub{i + 1}", i + 2)
        plan[label] = Link(ns, ns + "0", ns + "1", f"10.201.{net}.1", f"10.201.{net}.2")
    plan["subscriber"] = Link("csrig-sub", "csrig-sub0", "csrig-sub1", "10.201.2.1", "10.201.2.2")
    return plan


class NetLab:
    """The recorder's namespaces (`network_plan`), each with a route to 10.201.0.0/16 only and a
    resolver that refuses."""

    def __init__(self, book, links: dict[str, Link]):
        self.book, self.links = book, links

    def setup(self) -> None:
        for link in self.links.values():
            link.create(route=RIG_NET, resolver=True, book=self.book)
            link.no_offloads()
        log("network namespaces ready: " + ", ".join(f"{p} {link}" for p, link in self.links.items()))

    def teardown(self) -> None:
        for link in self.links.values():
            delete_iptables_rules(link.ns)
        delete_iptables_rules(None)
        for link in self.links.values():
            link.delete()
        self.book.remove(lambda e: e.get("kind") in ("netns", "link", "etc-netns"))
        log("network namespaces removed")


# --------------------------------------------------------------------------- clean-up
def namespaces() -> list[str]:
    out = []
    for line in run(["ip", "netns", "list"], check=False).stdout.splitlines():
        if line.split():
            out.append(line.split()[0])
    return out


def kill_netns_processes(ns: str) -> None:
    """SIGKILL whatever still runs in one of the rig's namespaces (`ip netns pids`): on the SDK
    path chromedriver and Chromium run in process groups of their own under `callscope call`, so a
    hard-killed callscope would leave them there."""
    for pid in run(["ip", "netns", "pids", ns], check=False).stdout.split():
        if pid.isdigit() and int(pid) != os.getpid():
            log(f"killing pid {pid} left in netns {ns}")
            with contextlib.suppress(OSError):
                os.kill(int(pid), signal.SIGKILL)


def cleanup_network_objects() -> None:
    """Delete every namespace, veth and iptables rule with the `csrig` prefix/comment (and end
    the processes still in those namespaces)."""
    if os.geteuid() != 0:
        return
    with contextlib.suppress(Exception):
        for name in namespaces():
            if name.startswith(PREFIX + "-"):
                kill_netns_processes(name)
                log(f"deleting netns {name}")
                run(["ip", "netns", "del", name], check=False)
    with contextlib.suppress(Exception):
        for line in run(["ip", "-o", "link", "show"], check=False).stdout.splitlines():
            parts = line.split(":")
            if len(parts) > 1:
                ifname = parts[1].strip().split("@")[0]
                if ifname.startswith(PREFIX + "-"):
                    log(f"deleting link {ifname}")
                    run(["ip", "link", "del", ifname], check=False)
    delete_iptables_rules(None)
    with contextlib.suppress(OSError):
        for name in os.listdir("/etc/netns"):
            if name.startswith(PREFIX + "-"):
                shutil.rmtree(os.path.join("/etc/netns", name), ignore_errors=True)


def netns_cpu_seconds(ns: str) -> float:
    """utime+stime (s) of all live processes in network namespace `ns` (`ip netns pids`)."""
    return cpu_seconds(run(["ip", "netns", "pids", ns], check=False).stdout.split())


# --------------------------------------------------------------------------- iptables and tc
def iptables(ns: str | None, args: list[str], check: bool = True):
    return run(nsx(ns) + ["iptables", "-w", "5"] + args, check=check)


def delete_iptables_rules(ns: str | None) -> None:
    """Remove every filter rule in `ns` (root when None) that carries the rig's comment."""
    with contextlib.suppress(Exception):
        for line in iptables(ns, ["-S"], check=False).stdout.splitlines():
            if f"--comment {PREFIX}" in line or f'--comment "{PREFIX}' in line:
                spec = line.split()
                if spec and spec[0] == "-A":
                    iptables(ns, ["-D"] + spec[1:], check=False)


def set_rate(ns: str | None, dev: str, rate: int, queue_ms: int = 300) -> None:
    """Cap what leaves `dev` at `rate` bit/s: tbf, burst >= 4 MTU (~40 ms at the rate), tail drop
    after `queue_ms` of queue."""
    burst = max(6000, rate // 8 // 25)
    run(nsx(ns) + ["tc", "qdisc", "replace", "dev", dev, "root", "tbf", "rate", f"{rate}bit",
                   "burst", str(burst), "latency", f"{queue_ms}ms"])


def clear_rate(ns: str | None, dev: str) -> None:
    run(nsx(ns) + ["tc", "qdisc", "del", "dev", dev, "root"], check=False)


class Impairments:
    """Applies scenario steps. Rate = tbf on the sending end's veth (`sending_end`: egress of that
    device is the impaired direction). Loss/blackout = iptables INPUT DROP rules (with `-m
    statistic` for loss) at the RECEIVING end (`receiving_end`: packets arriving on that device): a
    DROP in the sender's own OUTPUT chain makes its sendto() fail with EPERM, and Chromium then
    simply sends the packet again, so 8 % "loss" on the publisher's OUTPUT became ~0.6 % (0.08
    squared) on the wire. A `publisher-*` step impairs the veth of its `publisher` (peer label;
    default the first publisher)."""

    SIDES = ("publisher-uplink", "publisher-downlink", "subscriber-uplink", "subscriber-downlink")

    def __init__(self, links: dict[str, Link] | None = None, publishers: list[str] | None = None):
        self.active: dict[int, dict] = {}
        self.publishers = publishers or ["publisher"]
        self.links = links or network_plan(self.publishers)

    def _link(self, step: dict) -> Link:
        if step["side"].startswith("subscriber-"):
            return self.links["subscriber"]
        return self.links[step.get("publisher") or self.publishers[0]]

    def sending_end(self, step: dict) -> tuple[str | None, str]:
        """(namespace or None for root, device) whose egress carries the impaired direction."""
        link = self._link(step)
        return (link.ns, link.ns_if) if step["side"].endswith("-uplink") else (None, link.root_if)

    def receiving_end(self, step: dict) -> tuple[str | None, str]:
        """(namespace or None for root, device) where the impaired direction arrives."""
        link = self._link(step)
        return (None, link.root_if) if step["side"].endswith("-uplink") else (link.ns, link.ns_if)

    def _drop_rule(self, idx: int, step: dict) -> list[str]:
        ns, dev = self.receiving_end(step)
        rule = ["INPUT", "-i", dev]
        if step["kind"] == "loss":
            rule += ["-m", "statistic", "--mode", "random", "--probability", f"{float(step['value']):.4f}"]
        rule += ["-m", "comment", "--comment", f"{PREFIX}-{idx}", "-j", "DROP"]
        return rule

    def apply(self, idx: int, step: dict) -> None:
        kind = step["kind"]
        if kind == "rate":
            set_rate(*self.sending_end(step), int(step["value"]), int(step.get("queue_ms", 300)))
        elif kind in ("loss", "blackout"):
            iptables(self.receiving_end(step)[0], ["-I"] + self._drop_rule(idx, step))
        else:
            raise RigError(f"unknown impairment kind {kind}")
        self.active[idx] = step

    def remove(self, idx: int) -> None:
        step = self.active.pop(idx, None)
        if not step:
            return
        if step["kind"] == "rate":
            end = self.sending_end(step)
            # another active rate step on the same device takes over
            others = [(i, s) for i, s in self.active.items() if s["kind"] == "rate" and self.sending_end(s) == end]
            if others:
                self.apply(*others[-1])
            else:
                clear_rate(*end)
        else:
            iptables(self.receiving_end(step)[0], ["-D"] + self._drop_rule(idx, step), check=False)

    def clear(self) -> None:
        for idx in list(self.active):
            with contextlib.suppress(Exception):
                self.remove(idx)
