"""The harness under stress, and what monitors cost.

Two stress scenarios, each run by the real CLI (``gftpwb run``) against the project's own lab:

* **loopback**: ``--copies`` (64) concurrent copies of a short guc transfer (``--length``) to a
  GridFTP server on 127.0.0.1;
* **namespaces**: 2 namespace hosts (real sshd) x ``--ns-copies`` (16) copies each, from the lab's
  GridFTP server on the controller's bridge address to ``file:///dev/null`` on the host;

each with two monitors at 1 Hz (cpu and tcp) on every host the copies run on, or without monitors.

Measured, side by side in one invocation:

* **overhead**: ``--pairs`` pairs of runs with monitors on and off, interleaved (on-off, off-on,
  ...), so drift in the machine's load hits both alike. Throughput is the copies' "together" figure
  (all bytes over first start to last end, ``aggregates.jsonl``). Reported: medians, the mean of the
  paired ratios with its 95 % interval, paired t and Wilcoxon p, and Welch's test with its interval.
* **sampler CPU**: the sampler processes (``gftpwb-sampler``, one per host) are read from /proc
  while they run: user + system time of the shell and its reaped children (``cat``, ``ss``,
  ``sleep``) over its lifetime, as a share of one core.
* **per monitor type**: with every loopback copy running, samplers of one monitor type each (the
  script gftpwb starts, under /bin/sh) side by side for ``--cpu-window`` seconds: CPU share and the
  bytes they stream to the controller.
* **journal and orphans**: every run must journal all copies; then one run per scenario is stopped
  with SIGINT while every copy is in flight: exit 130, every copy journaled (interrupted), and
  ``pgrep`` (here and in every namespace) finds no guc, remote wrapper or sampler left.

Three parts that resolve a small overhead on a loaded, shared machine (``--parts``):

* **sampler**: the sampler alone (as gftpwb starts it locally), the sh loop and the python3 one,
  for 0.5 s and for 10.5 s: its CPU to start, and per second after (the difference), per monitor
  type; then what one ``ss`` costs, part by part (starting it, each walk of the kernel's
  established-socket table, ``-p``'s walk of every process's file descriptors).

* **cost** (``--cost-pairs``, short runs): the loopback scenario with ``--cost-copies`` copies, the
  whole bench pinned to ``--cpus`` (lab server, gftpwb, guc, sampler on the same CPUs, so they
  contend alike). Per run: CPU seconds (user + system) of everything that does the work, i.e. the
  ``gftpwb run`` process tree (controller, guc copies, sampler and its ``ss``/``cat``, from getrusage
  of the reaped tree) plus the lab server and its per-session children (/proc), per GiB moved; the
  controller's own CPU, read from /proc when it has exited and before it is reaped (a poll misses its
  last 0.1 s, where the report is printed); the sampler's whole tree, as the CPU the controller's
  reaped-children counter gains when it reaps the sampler (read while the sampler was its last child
  and again at its exit: a difference of a cumulative counter, unbiased by the clock-tick rounding
  that makes the sampler's own /proc figures, each rounded down from 0, read about 15 ms low); and
  the throughput. On and off alternate
  within each pair; the paired 95 % interval of the change is what shows (or does not show) the 1 %.
  On a CPU-bound transfer, the extra CPU per GiB is the throughput a monitor can take away.
* **shaped**: 2 namespace hosts whose links are shaped by ``tc tbf`` (``--rate``), ``--shaped-copies``
  copies per host: throughput is set by the link, not by the other sessions' load, so a drop caused
  by the monitors would show in the paired interval.

Usage: .venv/bin/python bench/harness_stress.py [--parts sampler,cost,shaped,stress] [--pairs 10] [--copies 64]
       [--ns-copies 16] [--length 64M] [--skip-netns] [--cpus 1] [--cost-pairs 20] [--cost-copies 8]
       [--cost-length 128M] [--rate 200mbit] [--shaped-copies 4] [--shaped-length 48M]
       [--sampler auto|python|sh] (GFTPWB_SAMPLER for the runs: python3 where there is one, or forced)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

from paired import HEADER, alternating, children_cpu, compare, cpu_of, loadavg, pin
from scipy import stats

from gftpwb.core.monitors.model import Monitor
from gftpwb.core.monitors.plan import probes_by_host
from gftpwb.core.monitors.sampler import PYTHON, SH, sampler_command
from gftpwb.shell.lab.gridftp import GridftpLab, free_port
from gftpwb.shell.lab.netlab import NetLab
from gftpwb.shell.monitors import SAMPLER_ENV, host_program

GFTPWB = [sys.executable, "-m", "gftpwb"]


def sampler_argv(probes, mode: str) -> list[str]:
    """The command gftpwb starts for a sampler of these probes (python3 or sh, as ``mode`` says)."""
    return sampler_command(probes, "b", host_program(), mode)


def is_sampler(cmdline: bytes) -> bool:
    """A sampler's command line (sh or python3: both carry the name as an argument of their own)."""
    return b"\0gftpwb-sampler\0" in cmdline


CLK_TCK = os.sysconf("SC_CLK_TCK")
MONITORS = """\
monitors:
  - {{id: load, type: cpu, on: {hosts}, interval: 1s}}
  - {{id: tcp, type: tcp, on: {hosts}, interval: 1s{tcp_extra}}}
"""
TCP_EXTRA = ""  # --tcp-all: ', processes: ["*"]' (every connection, ss without -p)


@dataclass
class Trial:
    monitors: bool
    throughput_mib_s: float = 0.0
    journaled: int = 0
    passed: int = 0
    own_cpu_s: float = 0.0  # the gftpwb run process's own CPU seconds, read at its exit
    reaped_cpu_s: float = 0.0  # CPU seconds of the children it reaped (guc copies, sampler), read at its exit


def netns_inode(netns: str) -> int:
    return os.stat(f"/run/netns/{netns}").st_ino


def proc_stat(pid: str) -> tuple[list[str], bytes, int] | None:
    """(stat fields after the name, cmdline, net namespace inode) of a live process."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            cmdline = handle.read()
        inode = os.stat(f"/proc/{pid}/ns/net").st_ino
    except OSError:
        return None
    return fields, cmdline, inode


def uptime() -> float:
    with open("/proc/uptime") as handle:
        return float(handle.read().split()[0])


def sampler_cpu_snapshot(namespaces: dict[int, str]) -> dict[int, tuple[str, float, float]]:
    """pid -> (host, CPU seconds of the sampler and its reaped children, seconds since it started)."""
    out = {}
    now = uptime()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        info = proc_stat(pid)
        if info is None or info[0][0] == "Z":
            continue
        fields, cmdline, inode = info
        if not is_sampler(cmdline):
            continue
        cpu = sum(int(fields[i]) for i in (11, 12, 13, 14)) / CLK_TCK  # utime stime cutime cstime
        age = now - int(fields[19]) / CLK_TCK
        out[int(pid)] = (namespaces.get(inode, "local"), cpu, age)
    return out


def run_trial(scenario: Path, results: Path, monitors: bool, started=None) -> Trial:
    trial = Trial(monitors)
    proc = subprocess.Popen([*GFTPWB, "run", str(scenario), "--results", str(results), "--progress", "never"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if started is not None:
        started(proc.pid)
    stdout, stderr, trial.own_cpu_s, trial.reaped_cpu_s = communicate_and_own_cpu(proc)
    if proc.returncode != 0:
        raise SystemExit(f"run failed ({proc.returncode}):\n{stdout[-3000:]}\n{stderr[-3000:]}")
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    trial.journaled = len(records)
    trial.passed = sum(r["status"] == "passed" for r in records)
    (aggregate,) = [json.loads(line) for line in (results / "aggregates.jsonl").read_text().splitlines()]
    trial.throughput_mib_s = aggregate["throughput_mib_s"]
    return trial


def communicate_and_own_cpu(proc: subprocess.Popen) -> tuple[str, str, float, float]:
    """``proc``'s stdout and stderr, its own CPU seconds (user + system of every thread) and those of
    the children it reaped, read from /proc once it has exited but before it is reaped (``waitid``
    with ``WNOWAIT``): all of its life, the report it prints at the very end included, which a poll
    of a live process misses."""
    import threading

    out: dict[str, str] = {}

    def drain(name: str, pipe) -> None:
        out[name] = pipe.read()

    threads = [threading.Thread(target=drain, args=(name, pipe), daemon=True)
               for name, pipe in (("stdout", proc.stdout), ("stderr", proc.stderr))]
    for thread in threads:
        thread.start()
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    with open(f"/proc/{proc.pid}/stat") as handle:  # a zombie's: its namespaces are gone, its times are not
        fields = handle.read().rsplit(")", 1)[1].split()
    own = (int(fields[11]) + int(fields[12])) / CLK_TCK
    reaped = (int(fields[13]) + int(fields[14])) / CLK_TCK
    proc.wait()
    for thread in threads:
        thread.join()
    return out.get("stdout", ""), out.get("stderr", ""), own, reaped


def leftovers(namespaces: dict[int, str], marker: str) -> list[str]:
    """guc processes of this bench (``marker`` in their arguments), remote wrappers and samplers, here
    and in every namespace of the lab."""
    found = []
    for pid in os.listdir("/proc"):
        info = proc_stat(pid) if pid.isdigit() else None
        if info is None or info[0][0] == "Z":
            continue
        _fields, cmdline, inode = info
        text = cmdline.replace(b"\0", b" ").decode(errors="replace")
        ours = (marker in text and "globus-url-copy" in text) or (
            inode in namespaces and ("gftpwb-wrap" in text or "globus-url-copy" in text)) or "gftpwb-sampler" in text
        if ours and "harness_stress" not in text:
            found.append(f"{namespaces.get(inode, 'local')}: {pid} {text[:100]}")
    return found


@dataclass
class Stopped:
    code: int
    journaled: int
    statuses: dict[str, int]
    left: list[str]
    sampler_cpu: dict[str, tuple[float, float]]  # host -> (CPU seconds, wall seconds) while every copy ran


def ctrl_c(scenario: Path, results: Path, copies: int, namespaces: dict[int, str], marker: str,
           before: set[str], window_s: float) -> Stopped:
    """Once every copy is in flight, read the samplers' CPU time over ``window_s``, then stop the run
    with SIGINT and look for leftovers."""
    own = set(sampler_cpu_snapshot(namespaces))  # samplers of other runs on this shared machine
    proc = subprocess.Popen([*GFTPWB, "run", str(scenario), "--results", str(results), "--progress", "never"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        gucs = [x for x in leftovers(namespaces, marker) if "globus-url-copy" in x and "gftpwb-wrap" not in x]
        if len(gucs) >= copies:
            break
        time.sleep(0.2)
    first = {pid: v for pid, v in sampler_cpu_snapshot(namespaces).items() if pid not in own}
    t0 = time.monotonic()
    time.sleep(window_s)
    last = sampler_cpu_snapshot(namespaces)
    wall = time.monotonic() - t0
    cpu = {host: (last[pid][1] - value, wall) for pid, (host, value, _age) in first.items() if pid in last}
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=120)
    time.sleep(1.0)  # the kill grace of the copies' process groups
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    statuses: dict[str, int] = {}
    for r in records:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    left = [x for x in leftovers(namespaces, marker) if x not in before]
    return Stopped(proc.returncode, len(records), statuses, left, cpu)


COST_MONITORS = {
    "cpu": [Monitor("m", "cpu")],
    "memory": [Monitor("m", "memory")],
    "net": [Monitor("m", "net")],
    "disk": [Monitor("m", "disk")],
    "tcp (ss -p)": [Monitor("m", "tcp")],
    "tcp, processes [*] (no -p)": [Monitor("m", "tcp", processes=("*",))],
    "command [cat, /proc/loadavg]": [Monitor("m", "command", command=("cat", "/proc/loadavg"))],
    "cpu + tcp (the scenarios above)": [Monitor("m", "cpu"), Monitor("n", "tcp")],
}


def sampler_costs(url: str, port: int, copies: int, window_s: float) -> list[tuple[str, float, float]]:
    """(monitors, share of one core, KiB/s streamed) of one sampler per monitor type at 1 Hz, side by
    side, while ``copies`` long loopback transfers run."""
    import threading

    gucs = [subprocess.Popen(["globus-url-copy", "-len", "64G", f"{url}/dev/zero", f"{url}/dev/null"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            for _ in range(copies)]
    samplers: dict[str, subprocess.Popen] = {}
    streamed: dict[str, int] = {}
    try:
        time.sleep(10)  # every copy connected and moving data
        for name, monitors in COST_MONITORS.items():
            probes = [probe for _, probe in probes_by_host(monitors, (2811, port))["local"]]
            samplers[name] = subprocess.Popen(sampler_argv(probes, os.environ.get(SAMPLER_ENV, "auto")),
                                              stdout=subprocess.PIPE, start_new_session=True)
            streamed[name] = 0

        def drain(name: str, pipe) -> None:
            while data := pipe.read1(65536):
                streamed[name] += len(data)

        for name, proc in samplers.items():
            threading.Thread(target=drain, args=(name, proc.stdout), daemon=True).start()
        time.sleep(2)
        before = {name: (cpu_seconds(proc.pid), streamed[name]) for name, proc in samplers.items()}
        t0 = time.monotonic()
        time.sleep(window_s)
        wall = time.monotonic() - t0
        return [(name, 100 * (cpu_seconds(proc.pid) - before[name][0]) / wall,
                 (streamed[name] - before[name][1]) / wall / 1024) for name, proc in samplers.items()]
    finally:
        for proc in [*samplers.values(), *gucs]:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def sampler_rates(mode: str, repeats: int = 5, long_s: float = 10.0) -> list[tuple[str, float, float]]:
    """(monitors, CPU ms to start plus 0.5 s, CPU ms per second after) of the sampler run alone, as
    gftpwb starts it locally (``mode``: python or sh): the per-second figure is the difference of a
    long and a short life, so the start-up (the shell or python3, ``date``, the ``timeout`` check)
    drops out."""
    import threading

    def life(monitors: list[Monitor], seconds: float) -> float:
        probes = [probe for _, probe in probes_by_host(monitors, (2811,))["local"]]
        before = children_cpu()
        proc = subprocess.Popen(sampler_argv(probes, mode), stdout=subprocess.PIPE)
        threading.Thread(target=proc.stdout.read, daemon=True).start()  # type: ignore[union-attr]
        time.sleep(seconds)
        proc.terminate()
        proc.wait()
        return children_cpu() - before

    rows = []
    kinds = {"cpu": COST_MONITORS["cpu"], "tcp (ss -p)": COST_MONITORS["tcp (ss -p)"],
             "tcp, processes [*] (no -p)": COST_MONITORS["tcp, processes [*] (no -p)"],
             "cpu + tcp (ss -p), as the stress scenarios": [Monitor("m", "cpu"), Monitor("n", "tcp")],
             "cpu + tcp, processes [*]": [Monitor("m", "cpu"), Monitor("n", "tcp", processes=("*",))]}
    for name, monitors in kinds.items():
        short = statistics.fmean(life(monitors, 0.5) for _ in range(repeats))
        long_ = statistics.fmean(life(monitors, long_s + 0.5) for _ in range(2))
        rows.append((name, 1000 * short, 1000 * (long_ - short) / long_s))
    return rows


PROGRAMS = {  # from the cheapest to what the tcp monitor runs: each step adds one part of its cost
    "true": ["true"],
    "sleep 0": ["sleep", "0"],
    "ss -V (start ss only)": ["ss", "-V"],
    "ss -tin state listening (no walk of the established table)": ["ss", "-tin", "state", "listening"],
    "ss -tin4 state established (one walk: IPv4)": ["ss", "-tin4", "state", "established"],
    "ss -tin state established (two walks: IPv4, IPv6)": ["ss", "-tin", "state", "established"],
    "ss -tinp state established (and every process's fds)": ["ss", "-tinp", "state", "established"],
}


def program_costs(repeats: int = 100) -> list[tuple[str, float]]:
    """(program, CPU ms per run): what a tcp reading's ``ss`` costs, part by part."""
    rows = []
    for name, argv in PROGRAMS.items():
        before = children_cpu()
        for _ in range(repeats):
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        rows.append((name, 1000 * (children_cpu() - before) / repeats))
    return rows


def cpu_seconds(pid: int) -> float:
    info = proc_stat(str(pid))
    assert info is not None
    return sum(int(info[0][i]) for i in (11, 12, 13, 14)) / CLK_TCK


def overhead(name: str, on_path: Path, off_path: Path, work: Path, pairs: int, copies: int,
             namespaces: dict[int, str]) -> list[Trial]:
    trials: list[Trial] = []
    for i in range(pairs):
        order = (True, False) if i % 2 == 0 else (False, True)
        for monitors in order:
            results = work / f"{name}-{i}-{'on' if monitors else 'off'}"
            trial = run_trial(on_path if monitors else off_path, results, monitors)
            if trial.journaled != copies or trial.passed != copies:
                raise SystemExit(f"{results}: {trial.passed}/{trial.journaled} passed of {copies} copies")
            trials.append(trial)
            print(f"  {name} pair {i + 1}: monitors {'on ' if monitors else 'off'} "
                  f"{trial.throughput_mib_s:8.1f} MiB/s", file=sys.stderr)
    return trials


def report(name: str, trials: list[Trial], copies: int) -> None:
    on = [t.throughput_mib_s for t in trials if t.monitors]
    off = [t.throughput_mib_s for t in trials if not t.monitors]
    change = compare(on, off)  # trials alternate on/off within each pair: index i of each is pair i
    print(f"| {name} | {len(on)} | {copies}/{copies} | {statistics.median(off):.0f} ({min(off):.0f}-{max(off):.0f}) | "
          f"{statistics.median(on):.0f} ({min(on):.0f}-{max(on):.0f}) | {change.row()} |")



@dataclass
class Costed:
    monitors: bool
    cpu_per_gib: float  # CPU seconds of the run's tree and the server per GiB moved
    throughput_mib_s: float
    sampler_cpu_s: float  # CPU seconds of the sampler tree (as reaped; polled when that was not seen), 0 off
    sampler_life_s: float
    gib: float
    monitor_side_per_gib: float  # CPU s per GiB of the controller process itself plus the sampler
    work_per_gib: float  # the rest: guc copies, server sessions (and the controller's other children)
    polled_side_per_gib: float  # as monitor_side_per_gib with the controller polled (until 2026-11-22)
    controller_per_gib: float  # the controller alone (read at its exit)
    polled_sampler_s: float = 0.0  # the sampler's own /proc figures, polled (rounded down to ticks)


class SamplerWatch:
    """Polls the CPU time of a run's local sampler (a child of the ``gftpwb run`` process) from /proc
    every 0.1 s while it lives: ``gftpwb run`` reaps it, so its last reading before it ends is what it
    used (missing at most 0.1 s of its life). Only that process's children are read, not all of /proc,
    so the watch itself costs next to nothing on the pinned CPUs."""

    def __init__(self) -> None:
        import threading

        self.parent = 0
        self.last: dict[int, tuple[float, float]] = {}
        self.controller = 0.0  # the gftpwb run process's own CPU seconds (not its children's)
        # The controller's reaped-children CPU seen last while its sampler lived and every guc copy
        # had been reaped (the wait for the last readings): the sampler's whole CPU is what the
        # controller's reaped CPU gains after that (see costed_run). None: no such moment was seen.
        self.reaped_before_sampler: float | None = None
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._poll, daemon=True)
        self.thread.start()

    def started(self, pid: int) -> None:
        self.parent = pid

    def _children(self) -> list[int]:
        pids = []
        with contextlib.suppress(OSError):
            for task in os.listdir(f"/proc/{self.parent}/task"):
                with open(f"/proc/{self.parent}/task/{task}/children") as handle:
                    pids += [int(p) for p in handle.read().split()]
        return pids

    def _poll(self) -> None:
        while not self.done.wait(0.1):
            if not self.parent:
                continue
            now = uptime()
            own = proc_stat(str(self.parent))
            if own is not None and own[0][0] != "Z":
                self.controller = (int(own[0][11]) + int(own[0][12])) / CLK_TCK
            others = samplers = 0
            for pid in self._children():
                info = proc_stat(str(pid))
                if info is None or info[0][0] == "Z":
                    continue
                if not is_sampler(info[1]):
                    others += b"watchdog" not in info[1]  # gftpwb's watchdog lives as long as the run
                    continue
                samplers += 1
                fields = info[0]
                cpu = sum(int(fields[i]) for i in (11, 12, 13, 14)) / CLK_TCK
                self.last[pid] = (cpu, now - int(fields[19]) / CLK_TCK)
            if samplers and not others and own is not None and own[0][0] != "Z" and self.last:
                self.reaped_before_sampler = (int(own[0][13]) + int(own[0][14])) / CLK_TCK

    def stop(self) -> tuple[float, float, float]:
        """(CPU seconds, seconds alive) summed over the samplers seen, and the controller's CPU seconds."""
        self.done.set()
        self.thread.join()
        return sum(v[0] for v in self.last.values()), sum(v[1] for v in self.last.values()), self.controller


def costed_run(scenario: Path, results: Path, monitors: bool, server_pid: int, copies: int) -> Costed:
    """One run of the loopback scenario with the CPU it cost (see the module's docstring)."""
    watch = SamplerWatch()
    tree0, server0 = children_cpu(), cpu_of(server_pid)
    trial = run_trial(scenario, results, monitors, watch.started)
    time.sleep(0.3)  # the server reaps its session processes
    tree, server = children_cpu() - tree0, cpu_of(server_pid) - server0
    sampler_cpu, sampler_life, polled = watch.stop()
    controller = trial.own_cpu_s  # read at its exit: the polled figure misses the last 0.1 s (the report)
    polled_sampler = sampler_cpu
    if monitors and watch.reaped_before_sampler is not None:
        # The sampler's whole tree, as the controller reaped it: a difference of two readings of a
        # cumulative counter, so the clock-tick rounding does not bias it (the sampler's own /proc
        # figures, each rounded down to a tick from 0, read about 15 ms low on ~25 ms)
        sampler_cpu = trial.reaped_cpu_s - watch.reaped_before_sampler
    if trial.journaled != copies or trial.passed != copies:
        raise SystemExit(f"{results}: {trial.passed}/{trial.journaled} passed of {copies} copies")
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    gib = sum(r["bytes"] or 0 for r in records) / 2**30
    return Costed(monitors, (tree + server) / gib, trial.throughput_mib_s, sampler_cpu, sampler_life, gib,
                  (sampler_cpu + controller) / gib, (tree + server - sampler_cpu - controller) / gib,
                  (polled_sampler + polled) / gib, controller / gib, polled_sampler)


def added_interval(on: list[Costed], off: list[Costed], side) -> tuple[float, float]:
    """Mean and 95 % t half-width of ``side(on) - side(off)`` per pair, in % of the off run's whole
    CPU per GiB."""
    added = [100 * (side(a) - side(b)) / b.cpu_per_gib for a, b in zip(on, off, strict=True)]
    return statistics.fmean(added), stats.t.ppf(0.975, len(added) - 1) * statistics.stdev(added) / math.sqrt(len(added))


def cost_part(on_path: Path, off_path: Path, work: Path, pairs: int, copies: int, server_pid: int,
              cpus: str) -> None:
    """On/off pairs of short pinned loopback runs: CPU per GiB, throughput, sampler CPU."""
    costed_run(on_path, work / "cost-warm-on", True, server_pid, copies)  # warm-up, not counted
    costed_run(off_path, work / "cost-warm-off", False, server_pid, copies)
    on: list[Costed] = []
    off: list[Costed] = []
    loads = [loadavg()]
    for i, order in alternating(pairs, "on", "off"):
        for which in order:
            run = costed_run(on_path if which == "on" else off_path, work / f"cost-{i}-{which}", which == "on",
                             server_pid, copies)
            (on if which == "on" else off).append(run)
            print(f"  cost pair {i + 1}: monitors {which:3} {run.cpu_per_gib:.3f} CPU s/GiB "
                  f"{run.throughput_mib_s:7.1f} MiB/s sampler {run.sampler_cpu_s:.3f} s "
                  f"(polled {run.polled_sampler_s:.2f}) controller {run.controller_per_gib * run.gib:.3f} s",
                  file=sys.stderr)
        loads.append(loadavg())
    cpu = compare([r.cpu_per_gib for r in on], [r.cpu_per_gib for r in off])
    rate = compare([r.throughput_mib_s for r in on], [r.throughput_mib_s for r in off])
    work_cpu = compare([r.work_per_gib for r in on], [r.work_per_gib for r in off])
    # what the monitors add, against the whole off run: (controller + sampler)_on - (controller)_off per
    # GiB, paired, over the off run's total CPU per GiB; the guc and server CPU (95 % of the total, and
    # what varies with the load) is left out of the difference, so it does not widen the interval
    added_mean, added_half = added_interval(on, off, lambda r: r.monitor_side_per_gib)
    polled_mean, polled_half = added_interval(on, off, lambda r: r.polled_side_per_gib)
    controller_mean, controller_half = added_interval(on, off, lambda r: r.controller_per_gib)
    sampler = sum(r.sampler_cpu_s for r in on)
    life = sum(r.sampler_life_s for r in on)
    print(f"\ncost: {pairs} pairs of {copies} loopback copies, pinned to CPU(s) {cpus}, load average "
          f"(1/5/15 min) at the start {loads[0]}, mid {loads[len(loads) // 2]}, end {loads[-1]}")
    print(f"| quantity (monitors on vs off) | off mean | on mean | {HEADER[0][2:]}")
    print("|---|---|---|---|---|---|")
    print(f"| CPU s per GiB, all (run tree + server) | {cpu.mean_y:.3f} | {cpu.mean_x:.3f} | {cpu.row()} |")
    print(f"| CPU s per GiB, guc copies + server sessions | {work_cpu.mean_y:.3f} | {work_cpu.mean_x:.3f} | "
          f"{work_cpu.row()} |")
    print(f"| throughput MiB/s (together) | {rate.mean_y:.1f} | {rate.mean_x:.1f} | {rate.row()} |")
    side_on = statistics.fmean(r.monitor_side_per_gib for r in on)
    side_off = statistics.fmean(r.monitor_side_per_gib for r in off)
    print(f"\nCPU the monitors add (controller + sampler, on minus off, paired, over the off runs' whole CPU "
          f"per GiB): controller+sampler {side_off:.4f} -> {side_on:.4f} CPU s/GiB, added "
          f"{added_mean:+.2f} % [{added_mean - added_half:+.2f}, {added_mean + added_half:+.2f}] (95 % CI); "
          f"inside 1 %: {'yes' if added_mean - added_half >= -1 and added_mean + added_half <= 1 else 'NO'}")
    print(f"  of which the controller alone (read at its exit): {controller_mean:+.2f} % "
          f"[{controller_mean - controller_half:+.2f}, {controller_mean + controller_half:+.2f}]; the same sum with "
          f"the controller polled every 0.1 s as before 2026-11-23 (misses its last 0.1 s): {polled_mean:+.2f} % "
          f"[{polled_mean - polled_half:+.2f}, {polled_mean + polled_half:+.2f}]")
    print(f"\nsampler (cpu + tcp at 1 Hz) CPU: {sampler:.2f} s over {life:.1f} s alive = "
          f"{100 * sampler / life:.2f} % of one core; per GiB moved "
          f"{sampler / sum(r.gib for r in on):.4f} CPU s = "
          f"{100 * sampler / sum(r.gib for r in on) / cpu.mean_y:.2f} % of the off runs' CPU per GiB")
    print(f"CPU target (1 %): paired interval inside +-1 %: {'yes' if cpu.inside(1.0) else 'NO'}; "
          f"throughput: {'yes' if rate.inside(1.0) else 'NO'}")


def shaped_part(work: Path, pairs: int, copies: int, length: str, rate: str) -> None:
    """On/off pairs of link-bound transfers to 2 namespace hosts behind tbf-shaped links."""
    netlab = NetLab(str(work / "shaped-netlab"))
    try:
        netlab.up(2, rate=rate)
        ns_status = netlab.status()
        assert ns_status is not None
        text = textwrap.dedent(f"""\
            version: 1
            name: shaped
            hosts: {{include: "{netlab.state_dir}/hosts.yaml"}}
            @MONITORS@tests:
              - id: shaped
                kind: guc
                on: [h1, h2]
                concurrency: {copies}
                source: {ns_status["gridftp"]["url"]}/dev/zero
                target: file:///dev/null
                timeout: 300s
                options: {{length: {length}}}
            """)
        on_path, off_path = write_pair(work, "shaped", text, "[h1, h2]")
        run_trial(on_path, work / "shaped-warm", True)
        on: list[float] = []
        off: list[float] = []
        loads = [loadavg()]
        for i, order in alternating(pairs, "on", "off"):
            for which in order:
                trial = run_trial(on_path if which == "on" else off_path, work / f"shaped-{i}-{which}", which == "on")
                if trial.passed != 2 * copies:
                    raise SystemExit(f"shaped pair {i}: {trial.passed}/{2 * copies} passed")
                (on if which == "on" else off).append(trial.throughput_mib_s)
                print(f"  shaped pair {i + 1}: monitors {which:3} {trial.throughput_mib_s:7.2f} MiB/s", file=sys.stderr)
            loads.append(loadavg())
        change = compare(on, off)
        print(f"\nshaped: {pairs} pairs, 2 namespace hosts x {copies} copies of {length}, links shaped to {rate} "
              f"(tbf, both directions), load average at the start {loads[0]}, mid {loads[len(loads) // 2]}, "
              f"end {loads[-1]}")
        print(f"| quantity (monitors on vs off) | off mean | on mean | {HEADER[0][2:]}")
        print("|---|---|---|---|---|---|")
        print(f"| throughput MiB/s (together) | {change.mean_y:.2f} | {change.mean_x:.2f} | {change.row()} |")
        print(f"throughput target (1 %): paired interval inside +-1 %: {'yes' if change.inside(1.0) else 'NO'}")
    finally:
        netlab.down()


def write_pair(work: Path, name: str, template: str, hosts: str) -> tuple[Path, Path]:
    """The scenario with its two monitors, and without them."""
    paths = []
    for monitors in (True, False):
        path = work / f"{name}-{'on' if monitors else 'off'}.yaml"
        block = MONITORS.format(hosts=hosts, tcp_extra=TCP_EXTRA) if monitors else ""
        path.write_text(template.replace("@MONITORS@", block))
        paths.append(path)
    return paths[0], paths[1]


PARTS = {"sampler", "cost", "shaped", "stress"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--parts", default="sampler,cost,shaped,stress",
                        help="comma-separated: sampler (the sampler alone: start-up and per-second CPU), cost "
                             "(pinned CPU per GiB pairs), shaped (link-bound throughput pairs), stress (the "
                             "issue's scenarios, Ctrl-C, sampler CPU per type)")
    parser.add_argument("--pairs", type=int, default=10, help="on/off pairs of the stress scenarios")
    parser.add_argument("--copies", type=int, default=64)
    parser.add_argument("--ns-copies", type=int, default=16)
    parser.add_argument("--length", default="64M")
    parser.add_argument("--skip-netns", action="store_true", help="stress: leave out the namespace scenario")
    parser.add_argument("--cpu-window", type=float, default=30.0, help="seconds the samplers' CPU is read")
    parser.add_argument("--cpus", default="1", help="pin the whole bench (lab server, runs, samplers) to these "
                        "CPUs, as taskset -c; empty: no pinning")
    parser.add_argument("--cost-pairs", type=int, default=20)
    parser.add_argument("--cost-copies", type=int, default=8)
    parser.add_argument("--cost-length", default="512M")
    parser.add_argument("--rate", default="200mbit", help="shaped: tc tbf rate of every namespace link")
    parser.add_argument("--shaped-pairs", type=int, default=12)
    parser.add_argument("--shaped-copies", type=int, default=4, help="shaped: copies per namespace host")
    parser.add_argument("--shaped-length", default="48M")
    parser.add_argument("--tcp-all", action="store_true", help='the tcp monitor with processes: ["*"] (every '
                        "connection off the control ports; ss runs without -p)")
    parser.add_argument("--keep", action="store_true", help="keep the results directories (default: removed)")
    parser.add_argument("--sampler", choices=("auto", PYTHON, SH), default="auto",
                        help=f"the sampler gftpwb starts ({SAMPLER_ENV}): python3 where there is one, or forced")
    args = parser.parse_args()
    os.environ[SAMPLER_ENV] = args.sampler  # the runs, and the samplers this bench starts itself
    if min(args.pairs, args.cost_pairs, args.shaped_pairs) < 2:
        parser.error("--pairs, --cost-pairs and --shaped-pairs need at least 2 (an interval needs two pairs)")
    parts = set(args.parts.split(","))
    if parts - PARTS:
        parser.error(f"unknown part(s) {sorted(parts - PARTS)}; the parts are {', '.join(sorted(PARTS))}")
    if args.tcp_all:
        global TCP_EXTRA
        TCP_EXTRA = ', processes: ["*"]'
    cpus = pin(args.cpus) if args.cpus else "all"
    print(f"pinned to CPU(s) {cpus}; load average at the start {loadavg()}")
    work = Path(tempfile.mkdtemp(prefix="harness-stress-"))
    lab = GridftpLab(str(work / "lab"))
    status = lab.up(port=free_port())
    try:
        def loopback(name: str, copies: int, length: str) -> str:
            return textwrap.dedent(f"""\
                version: 1
                name: {name}
                @MONITORS@tests:
                  - id: stress
                    kind: guc
                    concurrency: {copies}
                    source: {status.url}/dev/zero
                    target: {status.url}/dev/null
                    timeout: 300s
                    options: {{length: {length}}}
                """)

        if "sampler" in parts:
            print(f"\nsampler alone (1 Hz, pinned to {cpus}), load average {loadavg()}")
            print("| sampler | monitor(s) | CPU to start and run 0.5 s | CPU per second after | share of one core |")
            print("|---|---|---|---|---|")
            for mode in (SH, PYTHON):
                for name, start_ms, per_s_ms in sampler_rates(mode):
                    print(f"| {mode} | {name} | {start_ms:.1f} ms | {per_s_ms:.2f} ms | {per_s_ms / 10:.2f} % |")
            print("\nwhere a tcp reading's CPU goes (each program started 100 times, CPU of the reaped children)")
            print("| program | CPU per run |")
            print("|---|---|")
            for name, ms in program_costs():
                print(f"| `{name}` | {ms:.2f} ms |")
        if "cost" in parts:
            on_path, off_path = write_pair(work, "cost", loopback("cost", args.cost_copies, args.cost_length),
                                           "[local]")
            assert status.pid is not None
            cost_part(on_path, off_path, work, args.cost_pairs, args.cost_copies, status.pid, cpus)
        if "shaped" in parts:
            shaped_part(work, args.shaped_pairs, args.shaped_copies, args.shaped_length, args.rate)
        if "stress" in parts:
            stress_part(args, work, status, loopback("stress-loopback", args.copies, args.length))
    finally:
        lab.down()
        if args.keep:
            print(f"results kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def stress_part(args: argparse.Namespace, work: Path, status, loop: str) -> None:
    """The issue's two stress scenarios: on/off pairs, Ctrl-C and leftovers, sampler CPU per type."""
    netlab = None if args.skip_netns else NetLab(str(work / "netlab"))
    try:
        tail = f"    timeout: 300s\n    options: {{length: {args.length}}}\n"
        scenarios = [("loopback", *write_pair(work, "loopback", loop, "[local]"), args.copies, {})]
        if netlab is not None:
            netlab.up(2)
            ns_status = netlab.status()
            namespaces = {netns_inode(h["netns"]): h["name"] for h in ns_status["hosts"]}
            ns = textwrap.dedent(f"""\
                version: 1
                name: stress-netns
                hosts: {{include: "{netlab.state_dir}/hosts.yaml"}}
                @MONITORS@tests:
                  - id: stress
                    kind: guc
                    on: [h1, h2]
                    concurrency: {args.ns_copies}
                    source: {ns_status["gridftp"]["url"]}/dev/zero
                    target: file:///dev/null
                """) + tail
            scenarios.append(("2 namespace hosts", *write_pair(work, "netns", ns, "[h1, h2]"), 2 * args.ns_copies,
                              namespaces))
        results = {}
        for name, on_path, off_path, copies, namespaces in scenarios:
            results[name] = overhead(name, on_path, off_path, work, args.pairs, copies, namespaces)
        print(f"\nloadavg at the end: {os.getloadavg()}")
        print("\n| scenario | pairs | copies journaled | off: median MiB/s (range) | on: median MiB/s (range) | "
              + HEADER[0][2:])
        print("|---|---|---|---|---|---|---|---|")
        for name, _on, _off, copies, _ns in scenarios:
            report(name, results[name], copies)
        print("\n| Ctrl-C while every copy runs | exit | copies journaled | statuses | left behind (pgrep) |")
        print("|---|---|---|---|---|")
        cpu_rows = []
        for name, on_path, _off, copies, namespaces in scenarios:
            stop_path = on_path.with_name(on_path.stem + "-stop.yaml")
            stop_path.write_text(on_path.read_text().replace(f"length: {args.length}", "length: 64G"))
            before = set(leftovers(namespaces, str(status.port)))
            stopped = ctrl_c(stop_path, work / f"{name}-stop", copies, namespaces, str(status.port), before,
                             args.cpu_window)
            print(f"| {name} | {stopped.code} | {stopped.journaled}/{copies} | {stopped.statuses} | "
                  f"{len(stopped.left)} {stopped.left[:3]} |")
            cpu_rows += [(name, host, cpu, wall) for host, (cpu, wall) in sorted(stopped.sampler_cpu.items())]
        print(f"\n| scenario | host | sampler CPU (shell + cat, ss, sleep) in {args.cpu_window:g} s, every copy "
              "running | share of one core |")
        print("|---|---|---|---|")
        for name, host, cpu, wall in cpu_rows:
            print(f"| {name} | {host} | {cpu:.2f} s in {wall:.1f} s | {100 * cpu / wall:.2f} % |")
        print(f"\n| monitor(s), one sampler, 1 Hz, {args.copies} loopback copies running | sampler CPU, share of one "
              "core | streamed KiB/s |")
        print("|---|---|---|")
        for name, share, kib in sampler_costs(status.url, status.port, args.copies, args.cpu_window):
            print(f"| {name} | {share:.2f} % | {kib:.1f} |")
    finally:
        if netlab is not None:
            netlab.down()




if __name__ == "__main__":
    main()
