"""The lab's WAN links: a user-space delay line between two namespace hosts (this kernel has no netem).

For a link between hosts A and B (``lab up --hosts N --rtt 60ms``, or ``--link h1-h2:rtt=60ms``)::

    namespace A                                              namespace B
    TUN <prefix>-wA-B  --- route B/32 ---\\        /--- route A/32 ---  TUN <prefix>-wA-B
     (tbf: rate, queue = BDP)            gftpwb-delayline             (tbf: rate, queue = BDP)
                                 one process in the root namespace:
                                 reads each packet from one TUN device,
                                 writes it into the other after rtt/2

* The TUN devices are persistent (``ip tuntap add``), so their MTU, queue and shaper are set before
  the line attaches and survive a restart of the line. The hosts keep their addresses: a /32 route
  through the TUN device is more specific than the bridge's /24, so traffic between the two hosts
  crosses the line and everything else (the controller, the other hosts) stays on the fast veths.
* The line is gftpwb's C program (``delayline/delayline.c``), built on first use into the build
  cache the gfapi worker uses (:mod:`gftpwb.shell.cbuild`). What it dropped, by cause, is in its
  stats file; what the kernel dropped before it (the TUN queue when the line fell behind, the
  shaper's queue) is read from the devices.
* ``lab up`` measures each link's round trip (TCP connects to the peer's sshd) and says it.
* Every link is also written to ``/run/gftpwb/links/<prefix>.json``, where a run's environment probe
  finds the links its traffic crossed for ``meta.json``; ``lab down`` removes it.
* A running link can be changed (``gftpwb lab link``, :meth:`WanLinks.change`): the rate by tc, the
  delay, jitter and loss by rewriting the line's settings and a SIGHUP. Only a change between a
  lossless and a lossy link restarts the line (segmentation offload goes off with loss), which loses
  what was in flight.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from gftpwb.core.errors import EnvironmentProblem, LabError
from gftpwb.core.scenario.model import LOCAL
from gftpwb.core.wanlink import LinkSettings
from gftpwb.shell.cbuild import BuildError, CProgram, ProgramBuilder
from gftpwb.shell.files import atomic_write

from .gridftp import _pid_alive, kill_group

DELAYLINE = CProgram(package="gftpwb.shell.lab", folder="delayline", source="delayline.c",
                     binary="gftpwb-delayline", version_prefix="gftpwb-delayline 1 ", label="the delay line")
REGISTRY_DIR = "/run/gftpwb/links"
TXQUEUELEN = 10000  # the TUN device's queue, in packets: room while the line catches up
LINE_BUFFER = 512 * 1024 * 1024  # bytes the line may hold per direction (virtual until used)
HOST_TCP_MAX = 64 * 1024 * 1024  # the hosts' tcp_rmem/tcp_wmem maximum on a lab with WAN links
RTT_PROBES = 9
HOW = ("user-space delay line (gftpwb-delayline: one process, TUN devices in both namespaces, each packet "
       "written to the other side after rtt/2), rate by tbf on the TUN devices with a queue of the "
       "bandwidth-delay product, loss as independent drops in the line")

# Connect to the peer N times from inside a namespace: a TCP handshake is one round trip.
_RTT_SCRIPT = """\
import socket, sys, time
addr, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for _ in range(n):
    s = socket.socket()
    s.settimeout(10)
    t = time.perf_counter()
    s.connect((addr, port))
    print(time.perf_counter() - t)
    s.close()
"""


@dataclass
class LinkEnd:
    host: str
    netns: str
    address: str
    device: str


@dataclass
class WanLink:
    """One link as the lab made it (saved in hosts.json)."""

    pair: list[str]  # [a, b], a before b
    ends: list[LinkEnd]
    settings: dict[str, Any]  # LinkSettings.to_dict()
    settings_file: str
    stats_file: str
    log_file: str
    pid: int | None = None
    seed: int = 1
    rtt_measured_ms: float | None = None
    made_at: str = ""
    changes: list[dict[str, Any]] = field(default_factory=list)
    requested: dict[str, Any] = field(default_factory=dict)  # the settings lab up asked for (before changes)

    @property
    def name(self) -> str:
        return f"{self.pair[0]}-{self.pair[1]}"

    def link_settings(self) -> LinkSettings:
        return LinkSettings.from_dict(self.settings)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WanLink:
        return cls(**{**data, "ends": [LinkEnd(**e) for e in data["ends"]]})


def _run(argv: list[str], *, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if check and result.returncode != 0:
        raise LabError(f"{' '.join(argv)} failed: {(result.stderr or result.stdout).strip()}")
    return result


def _cmdline_has(pid: int, needle: str) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return needle.encode() in handle.read()
    except OSError:
        return False


def device_name(prefix: str, a: str, b: str) -> str:
    """``gw3f2a-w1-2``: unique on the machine (the prefix is the lab's), at most 15 characters."""
    return f"{prefix}-w{a[1:]}-{b[1:]}"


def line_binary() -> str:
    """The delay line's binary on this machine, built from its source on first use."""
    from gftpwb.shell.transports.local import LocalTransport

    try:
        return asyncio.run(ProgramBuilder(DELAYLINE).ensure(LocalTransport(), LOCAL))
    except BuildError as exc:
        raise EnvironmentProblem(str(exc)) from None


class WanLinks:
    """The WAN links of one lab: made, measured, changed, reported and removed."""

    def __init__(self, state_dir: str, prefix: str):
        self.state_dir = state_dir
        self.prefix = prefix
        self.directory = os.path.join(state_dir, "wan")
        self.registry_file = os.path.join(REGISTRY_DIR, f"{prefix}.json")

    # --- making ----------------------------------------------------------------------------------

    def plan(self, hosts: Mapping[str, tuple[str, str]], links: Mapping[tuple[str, str], LinkSettings],
             made_at: str) -> list[WanLink]:
        """The links to make, recorded before anything exists; ``hosts`` maps a name to (netns, address)."""
        out = []
        for index, ((a, b), settings) in enumerate(links.items()):
            device = device_name(self.prefix, a, b)
            base = os.path.join(self.directory, f"{a}-{b}")
            out.append(WanLink(pair=[a, b], ends=[LinkEnd(h, hosts[h][0], hosts[h][1], device) for h in (a, b)],
                               settings=settings.to_dict(), settings_file=base + ".settings",
                               stats_file=base + ".stats.json", log_file=base + ".log", seed=index + 1,
                               made_at=made_at, requested=settings.to_dict()))
        return out

    def make(self, links: list[WanLink]) -> None:
        """Devices, the line, routes and shapers of every planned link (the namespaces exist)."""
        if not links:
            return
        binary = line_binary()
        os.makedirs(self.directory, exist_ok=True)
        for netns in sorted({end.netns for link in links for end in link.ends}):
            self._tune_host_tcp(netns)
        for link in links:
            settings = link.link_settings()
            for end in link.ends:
                _run(["ip", "-n", end.netns, "tuntap", "add", "dev", end.device, "mode", "tun"])
                _run(["ip", "-n", end.netns, "link", "set", end.device, "mtu", str(settings.mtu), "txqueuelen",
                      str(TXQUEUELEN), "up"])
            self._start_line(link, binary)
            a, b = link.ends
            for near, far in ((a, b), (b, a)):
                _run(["ip", "-n", near.netns, "route", "replace", f"{far.address}/32", "dev", near.device, "src",
                      near.address])
            self._shape(link, settings)

    @staticmethod
    def _tune_host_tcp(netns: str) -> None:
        """A WAN host's TCP autotuning may grow a window to a long path's bandwidth-delay product (as
        fasterdata.es.net advises for hosts on such paths); per namespace, so nothing else changes.
        net.core.rmem_max and wmem_max (the cap of an asked window: guc -tcp-bs, iperf3 -w) are the
        machine's, and this kernel does not let a namespace change them."""
        for key in ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"):
            low, default, high = _run(["ip", "netns", "exec", netns, "sysctl", "-n", key]).stdout.split()
            if int(high) < HOST_TCP_MAX:
                _run(["ip", "netns", "exec", netns, "sysctl", "-q", "-w", f"{key}={low} {default} {HOST_TCP_MAX}"])

    def _start_line(self, link: WanLink, binary: str) -> None:
        settings = link.link_settings()
        atomic_write(link.settings_file, settings.line_settings(link.seed, LINE_BUFFER))
        with contextlib.suppress(FileNotFoundError):
            os.remove(link.stats_file)
        a, b = link.ends
        argv = [binary, "--a", f"{a.netns}:{a.device}", "--b", f"{b.netns}:{b.device}",
                "--settings", link.settings_file, "--stats", link.stats_file,
                *(["--offload"] if settings.offload else [])]
        with open(link.log_file, "ab") as log:
            proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        link.pid = proc.pid
        deadline = time.monotonic() + 10
        while not os.path.exists(link.stats_file):  # written once both devices are open
            if proc.poll() is not None:
                raise LabError(f"the delay line of {link.name} exited at start (status {proc.returncode}): "
                               f"{_tail(link.log_file)}")
            if time.monotonic() > deadline:
                raise LabError(f"the delay line of {link.name} did not start within 10 s; see {link.log_file}")
            time.sleep(0.02)

    def restart_lines(self, links: list[WanLink]) -> None:
        """Start again the lines that died (their devices, routes and shapers are still there)."""
        binary = line_binary()
        for link in links:
            self._start_line(link, binary)

    @staticmethod
    def _shape(link: WanLink, settings: LinkSettings) -> None:
        for end in link.ends:
            if settings.rate:
                _run(["ip", "netns", "exec", end.netns, "tc", "qdisc", "replace", "dev", end.device, "root",
                      *settings.tbf()])
            else:
                _run(["ip", "netns", "exec", end.netns, "tc", "qdisc", "del", "dev", end.device, "root"], check=False)

    def measure(self, links: list[WanLink]) -> None:
        """Each link's round trip: the median of TCP connects from one end to the other's sshd."""
        for link in links:
            a, b = link.ends
            out = _run(["ip", "netns", "exec", a.netns, sys.executable, "-c", _RTT_SCRIPT, b.address, "22",
                        str(RTT_PROBES)], check=False)
            samples = [float(x) for x in out.stdout.split()]
            if out.returncode != 0 or not samples:
                raise LabError(f"the WAN link {link.name} carries no TCP connection from {a.host} to {b.host}:22: "
                               f"{(out.stderr.strip().splitlines() or ['no answer'])[-1]}")
            link.rtt_measured_ms = round(statistics.median(samples) * 1000, 3)

    # --- changing --------------------------------------------------------------------------------

    def change(self, link: WanLink, settings: LinkSettings, when: str) -> bool:
        """Give a running link new settings; True when the line had to restart (offload changed)."""
        old = link.link_settings()
        link.settings = settings.to_dict()
        link.changes.append({"at": when, "settings": link.settings})
        restart = old.offload != settings.offload
        if old.mtu != settings.mtu:
            for end in link.ends:
                _run(["ip", "-n", end.netns, "link", "set", end.device, "mtu", str(settings.mtu)])
        if restart:
            self._stop_line(link)
            self._start_line(link, line_binary())
        else:
            atomic_write(link.settings_file, settings.line_settings(link.seed, LINE_BUFFER))
            if link.pid is not None and self.line_running(link):
                os.kill(link.pid, signal.SIGHUP)
        self._shape(link, settings)
        return restart

    # --- reporting -------------------------------------------------------------------------------

    def line_running(self, link: WanLink) -> bool:
        return link.pid is not None and _pid_alive(link.pid) and _cmdline_has(link.pid, link.stats_file)

    def line_stats(self, link: WanLink, fresh: bool = True) -> dict[str, Any] | None:
        """The line's counters; ``fresh`` asks it for a new write first (SIGUSR1) and waits for it."""
        before = _mtime(link.stats_file)
        if fresh and self.line_running(link):
            assert link.pid is not None
            os.kill(link.pid, signal.SIGUSR1)
            deadline = time.monotonic() + 2
            while _mtime(link.stats_file) == before and time.monotonic() < deadline:
                time.sleep(0.01)
        try:
            with open(link.stats_file, encoding="utf-8") as handle:
                return json.load(handle)
        except (OSError, ValueError):
            return None

    @staticmethod
    def device_counters(end: LinkEnd) -> dict[str, int | None]:
        """What the kernel dropped on one end before the line: the TUN queue (the line fell behind)
        and the shaper's queue (the path's bottleneck, as on a real WAN)."""
        out: dict[str, int | None] = {"tun_queue_dropped": None, "shaper_dropped": None}
        link = _run(["ip", "-n", end.netns, "-s", "-j", "link", "show", "dev", end.device], check=False)
        with contextlib.suppress(ValueError, LookupError, TypeError):
            out["tun_queue_dropped"] = int(json.loads(link.stdout)[0]["stats64"]["tx"]["dropped"])
        qdisc = _run(["ip", "netns", "exec", end.netns, "tc", "-s", "-j", "qdisc", "show", "dev", end.device],
                     check=False)
        with contextlib.suppress(ValueError, LookupError, TypeError):
            out["shaper_dropped"] = sum(int(q.get("drops", 0)) for q in json.loads(qdisc.stdout) if q.get("root"))
        return out

    def status(self, link: WanLink) -> dict[str, Any]:
        stats = self.line_stats(link)
        counters = {end.host: self.device_counters(end) for end in link.ends}
        line_drops = None
        if stats is not None:
            line_drops = {cause: sum(stats[d]["dropped"][cause] for d in ("a_to_b", "b_to_a"))
                          for cause in ("loss", "full", "write")}
            line_drops["behind"] = sum(c["tun_queue_dropped"] or 0 for c in counters.values())
        return {
            "name": link.name, "pair": link.pair, "settings": link.settings, "rtt_measured_ms": link.rtt_measured_ms,
            "ends": [asdict(end) for end in link.ends], "how": HOW, "line_pid": link.pid,
            "line_running": self.line_running(link), "line": stats, "devices": counters, "dropped": line_drops,
            "made_at": link.made_at, "changes": link.changes,
        }

    def describe(self, link: WanLink) -> dict[str, Any]:
        """What ``meta.json`` says about a link (from the registry): settings, measured RTT, how made."""
        return {"name": link.name, "lab": self.prefix, "ends": [asdict(end) for end in link.ends],
                "settings": link.settings, "rtt_measured_ms": link.rtt_measured_ms, "how": HOW,
                "made_at": link.made_at, "changes": link.changes}

    def publish(self, links: list[WanLink]) -> None:
        """Write the machine-wide record of this lab's links (none: remove it)."""
        if not links:
            with contextlib.suppress(FileNotFoundError):
                os.remove(self.registry_file)
            return
        os.makedirs(REGISTRY_DIR, exist_ok=True)
        atomic_write(self.registry_file, json.dumps({"lab": self.state_dir, "links": [self.describe(k) for k in links]},
                                                    indent=1))

    # --- removing --------------------------------------------------------------------------------

    def _stop_line(self, link: WanLink) -> None:
        if link.pid is not None and self.line_running(link):
            kill_group(link.pid)
        link.pid = None

    def down(self, links: list[WanLink]) -> None:
        """Stop every line and remove its devices (their routes and shapers go with them)."""
        for link in links:
            self._stop_line(link)
            for end in link.ends:
                _run(["ip", "-n", end.netns, "link", "del", "dev", end.device], check=False)
        self.publish([])


def registered_links() -> list[dict[str, Any]]:
    """Every lab link on this machine (``/run/gftpwb/links``), for a run's ``meta.json``."""
    out: list[dict[str, Any]] = []
    with contextlib.suppress(FileNotFoundError):
        for name in sorted(os.listdir(REGISTRY_DIR)):
            path = os.path.join(REGISTRY_DIR, name)
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError), open(path, encoding="utf-8") as handle:
                out.extend(json.load(handle)["links"])
    return out


def _mtime(path: str) -> float | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _tail(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = [line.strip() for line in handle if line.strip()]
    except OSError:
        return "no log"
    return lines[-1] if lines else "no output"
