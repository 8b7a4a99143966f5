"""The harness under stress, and what monitors cost (issue 13).

Two stress scenarios, each run by the real CLI (``gftpwb run``) against the project's own lab:

* **loopback**: ``--copies`` (64) concurrent copies of a short guc transfer (``--length``) to a
  GridFTP server on 127.0.0.1;
* **namespaces**: 2 namespace hosts (real sshd) x ``--ns-copies`` (16) copies each, from the lab's
  GridFTP server on the controller's bridge address to ``file:///dev/null`` on the host;

each with two monitors at 1 Hz (cpu and tcp) on every host the copies run on, or without monitors.

Measured, side by side in one invocation:

* **overhead**: ``--pairs`` pairs of runs with monitors on and off, interleaved (on-off, off-on,
  ...), so drift in the machine's load hits both alike. Throughput is the copies' "together" figure
  (all bytes over first start to last end, ``aggregates.jsonl``). Reported: medians, the median of
  the paired ratios, the change of the means with Welch's t-test (p) and its 95 % interval.
* **sampler CPU**: the sampler processes (``gftpwb-sampler``, one per host) are read from /proc
  while they run: user + system time of the shell and its reaped children (``cat``, ``ss``,
  ``sleep``) over its lifetime, as a share of one core.
* **per monitor type**: with every loopback copy running, samplers of one monitor type each (the
  script gftpwb starts, under /bin/sh) side by side for ``--cpu-window`` seconds: CPU share and the
  bytes they stream to the controller.
* **journal and orphans**: every run must journal all copies; then one run per scenario is stopped
  with SIGINT while every copy is in flight: exit 130, every copy journaled (interrupted), and
  ``pgrep`` (here and in every namespace) finds no guc, remote wrapper or sampler left.

Usage: .venv/bin/python bench/harness_stress.py [--pairs 10] [--copies 64] [--ns-copies 16]
       [--length 64M] [--skip-netns]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

from scipy import stats

from gftpwb.core.monitors.model import Monitor
from gftpwb.core.monitors.plan import probes_by_host
from gftpwb.core.monitors.sampler import sampler_script
from gftpwb.shell.lab.gridftp import GridftpLab, free_port
from gftpwb.shell.lab.netlab import NetLab

GFTPWB = [sys.executable, "-m", "gftpwb"]
CLK_TCK = os.sysconf("SC_CLK_TCK")
MONITORS = """\
monitors:
  - {{id: load, type: cpu, on: {hosts}, interval: 1s}}
  - {{id: tcp, type: tcp, on: {hosts}, interval: 1s}}
"""


@dataclass
class Trial:
    monitors: bool
    throughput_mib_s: float = 0.0
    journaled: int = 0
    passed: int = 0


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
        if not cmdline.startswith(b"/bin/sh\0-c\0") or not cmdline.endswith(b"\0gftpwb-sampler\0"):
            continue
        cpu = sum(int(fields[i]) for i in (11, 12, 13, 14)) / CLK_TCK  # utime stime cutime cstime
        age = now - int(fields[19]) / CLK_TCK
        out[int(pid)] = (namespaces.get(inode, "local"), cpu, age)
    return out


def run_trial(scenario: Path, results: Path, monitors: bool) -> Trial:
    trial = Trial(monitors)
    proc = subprocess.Popen([*GFTPWB, "run", str(scenario), "--results", str(results), "--progress", "never"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stdout, stderr = proc.communicate()
    if proc.returncode != 0:
        raise SystemExit(f"run failed ({proc.returncode}):\n{stdout[-3000:]}\n{stderr[-3000:]}")
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    trial.journaled = len(records)
    trial.passed = sum(r["status"] == "passed" for r in records)
    (aggregate,) = [json.loads(line) for line in (results / "aggregates.jsonl").read_text().splitlines()]
    trial.throughput_mib_s = aggregate["throughput_mib_s"]
    return trial


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
            samplers[name] = subprocess.Popen(["/bin/sh", "-c", sampler_script(probes, "b"), "gftpwb-sampler"],
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


def cpu_seconds(pid: int) -> float:
    info = proc_stat(str(pid))
    assert info is not None
    return sum(int(info[0][i]) for i in (11, 12, 13, 14)) / CLK_TCK


def welch(on: list[float], off: list[float]) -> tuple[float, float, float, float]:
    """(change of the means in %, p, 95 % interval low and high in %) by Welch's t-test."""
    m_on, m_off = statistics.fmean(on), statistics.fmean(off)
    v_on, v_off = statistics.variance(on) / len(on), statistics.variance(off) / len(off)
    p = stats.ttest_ind(on, off, equal_var=False).pvalue
    se = math.sqrt(v_on + v_off)
    df = (v_on + v_off) ** 2 / (v_on ** 2 / (len(on) - 1) + v_off ** 2 / (len(off) - 1))
    half = stats.t.ppf(0.975, df) * se
    diff = m_on - m_off
    return 100 * diff / m_off, float(p), 100 * (diff - half) / m_off, 100 * (diff + half) / m_off


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
    ratios = [a.throughput_mib_s / b.throughput_mib_s for a, b in
              zip([t for t in trials if t.monitors], [t for t in trials if not t.monitors], strict=True)]
    change, p, low, high = welch(on, off)
    print(f"| {name} | {len(on)} | {copies}/{copies} | {statistics.median(off):.0f} ({min(off):.0f}-{max(off):.0f}) | "
          f"{statistics.median(on):.0f} ({min(on):.0f}-{max(on):.0f}) | {statistics.median(ratios):.3f} | "
          f"{change:+.1f} % | {p:.2f} | {low:+.1f} .. {high:+.1f} % |")



def write_pair(work: Path, name: str, template: str, hosts: str) -> tuple[Path, Path]:
    """The scenario with its two monitors, and without them."""
    paths = []
    for monitors in (True, False):
        path = work / f"{name}-{'on' if monitors else 'off'}.yaml"
        path.write_text(template.replace("@MONITORS@", MONITORS.format(hosts=hosts) if monitors else ""))
        paths.append(path)
    return paths[0], paths[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--copies", type=int, default=64)
    parser.add_argument("--ns-copies", type=int, default=16)
    parser.add_argument("--length", default="64M")
    parser.add_argument("--skip-netns", action="store_true")
    parser.add_argument("--cpu-window", type=float, default=30.0, help="seconds the samplers' CPU is read")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="harness-stress-"))
    lab = GridftpLab(str(work / "lab"))
    status = lab.up(port=free_port())
    netlab = None if args.skip_netns else NetLab(str(work / "netlab"))
    try:
        tail = f"    timeout: 300s\n    options: {{length: {args.length}}}\n"
        loop = textwrap.dedent(f"""\
            version: 1
            name: stress-loopback
            @MONITORS@tests:
              - id: stress
                kind: guc
                concurrency: {args.copies}
                source: {status.url}/dev/zero
                target: {status.url}/dev/null
            """) + tail
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
              "median on/off (paired) | change of means | Welch p | 95 % interval |")
        print("|---|---|---|---|---|---|---|---|---|")
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
        lab.down()


if __name__ == "__main__":
    main()
