"""Scale of runs on Slurm against the SSH fan-out, on the same machine: N nodes x T tasks per node.

For each way to reach the hosts (``slurm``: node slots of a Slurm lab of its own, ``gftpwb lab up --slurm``
code; ``ssh``: namespace hosts with their own sshd, ``gftpwb lab up --hosts`` code) and each N, this
script writes a scenario and runs ``gftpwb run`` on it as a user would (a subprocess), then reads the
results directory:

* ``posix``: a gfapi test in POSIX mode on every host, T worker processes of 1 thread per host, 20
  files of 4 KiB each, ``repeat`` runs. Every run is started by the starting gun, so its record has:
  - time to all tasks ready: from the run's start to the gun (the instant ``start`` was sent: the
    start target minus the start lead); it covers the clock offsets, the worker check and the
    launch of every worker and its preparation (one job step on Slurm, N x T SSH channels over SSH);
  - start skew: latest minus earliest thread start of the run (median and p99 over the runs), and
    every thread's lateness against the target instant (p99 over all threads of all runs);
  - results complete: the runs that passed with every thread's files (N x T x 20 each).
* ``gfapi``: the same through libgfapi against a GlusterFS volume of the lab's own (glusterd on this
  machine); every worker process is a libgfapi client of its own (glfs_init, its threads, its memory),
  so N x T of them is bounded by this machine's memory.
* ``guc``: a guc test on every host with ``concurrency: T`` (T copies per host at once) of a 1 MiB
  transfer from the lab's GridFTP server, ``repeat`` runs: batch time (first start to last end of a
  run's N x T copies, median) and results complete.

Around each ``gftpwb run`` the controller's cost is measured: CPU seconds (user + system of gftpwb
and every child it reaped, srun included) and peak memory (RSS of gftpwb and its live children,
sampled every 100 ms), and the peak RSS of all gfapi workers together (what the nodes hold). The
hosts and the Slurm cluster are all on this machine, so the figures are the controller's and the
launcher's overhead, not a network's; the load average is printed.

Usage: .venv/bin/python bench/slurm_scale.py [--nodes 4,8,16,32,64] [--tasks 4] [--repeat 3]
                                             [--via slurm,ssh] [--workloads posix,gfapi,guc] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from gftpwb.shell.lab.gluster import GlusterLab
from gftpwb.shell.lab.gridftp import GridftpLab, free_port
from gftpwb.shell.lab.netlab import NetLab
from gftpwb.shell.lab.slurm import SlurmLab

REPO = Path(__file__).resolve().parent.parent
FILES = 20


@dataclass
class Outcome:
    via: str
    workload: str
    nodes: int
    tasks: int
    runs: int = 0
    complete: int = 0
    ready_s: list[float] = field(default_factory=list)
    skew_ms: list[float] = field(default_factory=list)
    lateness_ms: list[float] = field(default_factory=list)
    batch_s: list[float] = field(default_factory=list)
    cpu_s: float = 0.0
    peak_mib: float = 0.0
    workers_mib: float = 0.0
    wall_s: float = 0.0
    load: float = 0.0
    error: str = ""


def tree_rss_kib(root: int) -> tuple[int, int]:
    """RSS of ``root`` and its live descendants, and of every gfapi worker on this machine (KiB)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    workers = 0
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(name)
        children.setdefault(int(fields[1]), []).append(pid)
        rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE") // 1024
        try:
            with open(f"/proc/{name}/comm") as handle:
                if handle.read().startswith("gfapi-worker"):
                    workers += rss[pid]
        except OSError:
            pass
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total, workers


def run_gftpwb(scenario: Path, results: Path) -> tuple[int, float, float, float, float, str]:
    """(exit code, CPU s, peak RSS MiB, the workers' peak RSS MiB, wall s, stderr) of one ``gftpwb run``."""
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "gftpwb", "run", str(scenario), "--results", str(results),
                             "--progress", "never"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "NO_COLOR": "1"})
    peak = workers = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak, workers
        while not done.is_set():
            mine, theirs = tree_rss_kib(proc.pid)
            peak, workers = max(peak, mine), max(workers, theirs)
            done.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    assert proc.stderr is not None
    err = proc.stderr.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    done.set()
    sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_utime + usage.ru_stime, peak / 1024, workers / 1024, time.monotonic() - start, err


def iso_seconds(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def read_outcome(outcome: Outcome, results: Path) -> None:
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    if outcome.workload in ("posix", "gfapi"):
        for record in records:
            outcome.runs += 1
            gfapi = record.get("details", {}).get("gfapi", {})
            threads = gfapi.get("threads", [])
            if record["status"] == "passed" and sum(t.get("files", 0) for t in threads) == \
                    outcome.nodes * outcome.tasks * FILES:
                outcome.complete += 1
            target = gfapi.get("start_target_unix_ns")
            if target:
                gun = target / 1e9 - gfapi.get("start_lead_ms", 0) / 1000
                outcome.ready_s.append(gun - iso_seconds(record["started_at"]))
            if gfapi.get("start_skew_ms") is not None:
                outcome.skew_ms.append(gfapi["start_skew_ms"])
            outcome.lateness_ms.extend((t["start_unix_ns"] - target) / 1e6 for t in threads
                                       if target and t.get("start_unix_ns"))
    else:
        batches: dict[str, list[dict]] = {}
        for record in records:
            batches.setdefault(record["run_id"].split("#")[0].split("@")[0], []).append(record)
        for batch in batches.values():
            outcome.runs += 1
            if len(batch) == outcome.nodes * outcome.tasks and all(r["status"] == "passed" for r in batch):
                outcome.complete += 1
            outcome.batch_s.append(max(iso_seconds(r["ended_at"]) for r in batch) -
                                   min(iso_seconds(r["started_at"]) for r in batch))


def scenario_text(via: str, workload: str, nodes: int, tasks: int, repeat: int, *, slurm: SlurmLab | None,
                  hosts_yaml: str, gridftp_url: str, data: str, volume: tuple[str, str] = ("", "")) -> str:
    names = [f"node{i}" for i in range(1, nodes + 1)] if via == "slurm" else [f"h{i}" for i in range(1, nodes + 1)]
    head = f"version: 1\nname: scale-{via}-{workload}-{nodes}\n"
    if via == "slurm":
        assert slurm is not None
        head += f"slurm: {{nodes: {nodes}, on_failure: continue, conf: {slurm.conf}, tasks_per_node: {tasks}}}\n"
    else:
        head += f"hosts: {{include: {hosts_yaml}}}\n"
    on = "[" + ", ".join(names) + "]"
    if workload in ("posix", "gfapi"):
        where = f"directory: {data}" if workload == "posix" else f"volume: {{name: {volume[0]}, server: {volume[1]}}}"
        test = f"""\
            - id: {workload}
              kind: gfapi
              on: {on}
              {where}
              processes: {tasks}
              threads: 1
              files: {FILES}
              file_size: 4K
              record_size: 4K
              repeat: {repeat}
              timeout: 10m
            """
    else:
        test = f"""\
            - id: guc
              kind: guc
              on: {on}
              concurrency: {tasks}
              source: {gridftp_url}/dev/zero
              target: file:///dev/null
              options: {{length: 1M}}
              repeat: {repeat}
              timeout: 5m
            """
    return head + "tests:\n" + textwrap.indent(textwrap.dedent(test), "  ")


def table(outcomes: list[Outcome]) -> str:
    def med(values: list[float], scale: float = 1.0, digits: int = 2) -> str:
        return f"{statistics.median(values) * scale:.{digits}f}" if values else "-"

    lines = ["| via | workload | nodes x tasks | ready s (median) | skew ms median | skew ms p99 | lateness ms p99 | "
             "batch s (median) | complete | controller CPU s | peak MiB | workers MiB | wall s | load |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for o in outcomes:
        if o.error:
            lines.append(f"| {o.via} | {o.workload} | {o.nodes} x {o.tasks} | {o.error} ||||||||||")
            continue
        lines.append(f"| {o.via} | {o.workload} | {o.nodes} x {o.tasks} | {med(o.ready_s)} | {med(o.skew_ms)} | "
                     f"{f'{p99(o.skew_ms):.2f}' if o.skew_ms else '-'} | "
                     f"{f'{p99(o.lateness_ms):.2f}' if o.lateness_ms else '-'} | {med(o.batch_s)} | "
                     f"{o.complete}/{o.runs} | {o.cpu_s:.1f} | {o.peak_mib:.0f} | {o.workers_mib:.0f} | "
                     f"{o.wall_s:.1f} | {o.load:.1f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", default="4,8,16,32,64")
    parser.add_argument("--tasks", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--via", default="slurm,ssh")
    parser.add_argument("--workloads", default="posix,guc")
    parser.add_argument("--out", help="also write the table (markdown) to this file")
    args = parser.parse_args()
    counts = [int(n) for n in args.nodes.split(",")]
    ways = args.via.split(",")
    workloads = args.workloads.split(",")
    work = Path(tempfile.mkdtemp(prefix="gftpwb-slurm-scale-"))
    os.environ.setdefault("GFTPWB_WORKER_DIR", str(work / "workers"))
    slurm = SlurmLab(str(work / "slurmlab")) if "slurm" in ways else None
    net = NetLab(str(work / "netlab")) if "ssh" in ways else None
    gridftp = GridftpLab(str(work / "gridftp"))
    gluster = GlusterLab(str(work / "gluster")) if "gfapi" in workloads else None
    outcomes: list[Outcome] = []
    try:
        print(f"load before: {os.getloadavg()[0]:.2f}", flush=True)
        if slurm is not None:
            slurm.up(max(counts))
        hosts_yaml, url = "", ""
        if net is not None:
            net.up(max(counts))
            status = net.status()
            assert status is not None
            hosts_yaml = status["inventory"]
            url = status["gridftp"]["url"]  # the controller's bridge address: every host reaches it
        if not url:
            url = gridftp.up(port=free_port()).url
        volume = ("", "")
        if gluster is not None:
            made = gluster.up(address=net.status()["controller_address"] if net is not None else None)
            volume = (made.volume, made.address)
        for workload in workloads:
            for nodes in counts:
                for via in ways:
                    outcome = Outcome(via, workload, nodes, args.tasks, load=os.getloadavg()[0])
                    name = f"{via}-{workload}-{nodes}"
                    scenario = work / f"{name}.yaml"
                    scenario.write_text(scenario_text(via, workload, nodes, args.tasks, args.repeat, slurm=slurm,
                                                      hosts_yaml=hosts_yaml, gridftp_url=url,
                                                      data=str(work / "data" / via), volume=volume))
                    code, cpu, peak, workers, wall, err = run_gftpwb(scenario, work / "results" / name)
                    outcome.cpu_s, outcome.peak_mib, outcome.workers_mib, outcome.wall_s = cpu, peak, workers, wall
                    if code not in (0, 1):
                        outcome.error = f"gftpwb run exited {code}: {err.strip()[-200:]}"
                    else:
                        read_outcome(outcome, work / "results" / name)
                    outcomes.append(outcome)
                    print(table([outcome]).splitlines()[-1], flush=True)
    finally:
        if slurm is not None:
            slurm.down()
        if gluster is not None:
            gluster.down()
        if net is not None:
            net.down()
        gridftp.down()
    text = table(outcomes)
    print(f"\nload after: {os.getloadavg()[0]:.2f}\n\n{text}")
    if args.out:
        Path(args.out).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
