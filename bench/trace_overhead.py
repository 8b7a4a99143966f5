"""What tracing costs: throughput with trace off vs run vs io, measured side by side, and its size.

Real components only: the gfapi worker (POSIX mode, small files, 4 threads, one process) on a
directory in /dev/shm (the fastest storage here, so the worst case for a tracer's relative cost),
and guc between two lab GridFTP server URLs (third party, ``-p 2``, MODE E). Each round runs every
level once, in an order rotated round by round (off run io, run io off, io off run, ...), so
drifts of the shared machine fall on all levels alike; runs go through the same session as
``gftpwb run`` (trace sink, journal, samples), each into its own results directory.

Figures: per level the median and mean of the run's own headline figure (gfapi: files/s after the
last thread finished, the worker's own clock; guc: MiB/s incl. set-up), the mean difference to off
in % and Welch's t-test p value (scipy, unequal variances), and the trace's size: bytes per I/O
event on disk, trace.jsonl bytes per record, trace bytes per GiB moved.

A third part (``--worker``) runs the worker binary alone (built as the runner builds it, no gftpwb
around it), off, run (trace file open, I/O events off) and io in rotated rounds, and compares the
threads' own files/s (their ``d`` lines) and the worker's CPU per file: the tracer's cost where it
is paid, with the least else in the way.

What resolves a small overhead on a loaded, shared machine (throughput of the same run spreads by a
factor of two there): the whole bench is pinned to ``--cpus`` (as ``taskset -c``), so the worker, the
controller and the trace writer contend for the same CPUs alike; every run also records the CPU time
(user + system) it cost, from getrusage: the worker or guc (children) plus the controller, whose
trace sink writes trace.jsonl (this process: the runs go through the session in-process), per file or
per GiB; and each level is compared with the ``off`` run of the same round, paired (mean of the
per-round ratios with its 95 % t interval, paired t and Wilcoxon p), next to Welch's test. guc runs
go over a link shaped by ``tc tbf`` (``--rate``, a namespace host running a GridFTP server, guc on
this machine), so their throughput is set by the link and a drop would show.

Usage: .venv/bin/python bench/trace_overhead.py [--rounds 10] [--files 2000] [--guc-length 256M]
                                                 [--skip-guc] [--skip-gfapi] [--levels off,run,io]
                                                 [--worker] [--worker-levels off,run,io]
                                                 [--worker-trace-dir DIR] [--cpus 1]
                                                 [--rate 400mbit] [--loopback-guc]

``--levels off,run`` (or ``off,io``) compares one level with off in pairs: with two levels instead of
three, the same time holds half as many rounds again, which narrows the paired interval by about a
fifth. ``--worker-trace-dir /tmp`` has the worker alone write its trace where gftpwb's runs write
theirs (the worker's host's /tmp), instead of /dev/shm next to its files.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import tempfile
import textwrap
from pathlib import Path

from paired import children_cpu, compare, loadavg, pin, self_cpu
from worker_run import run_worker

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.plan import plan
from gftpwb.core.trace.iofmt import count_events
from gftpwb.shell import frontend
from gftpwb.shell.session import RunRequest

LEVELS = ("off", "run", "io")


def run_once(text: str, results: Path) -> dict:
    scenario = load_scenario_text(text, "bench.yaml")
    request = RunRequest(scenario=scenario, specs=plan(scenario), results_dir=str(results), command=["bench"],
                         record_environment=False)
    outcome = frontend.run(request)
    (record,) = outcome.journal.records
    assert record.status == "passed", record.error
    return json.loads(record.to_json())


def trace_size(results: Path) -> tuple[int, int, int, int]:
    """(trace.jsonl bytes, its records, binary I/O bytes, I/O events)."""
    jsonl = results / "trace.jsonl"
    size = jsonl.stat().st_size if jsonl.exists() else 0
    records = max(0, len(jsonl.read_text().splitlines()) - 1) if jsonl.exists() else 0
    io_bytes = io_events = 0
    for path in (results / "trace").rglob("*.bin") if (results / "trace").exists() else ():
        io_bytes += path.stat().st_size
        io_events += count_events(path.read_bytes())  # 16 bytes an event, plus block headers (32 in version 1)
    return size, records, io_bytes, io_events


def rounds(levels: tuple[str, ...], n: int, warmup: int = 1):
    """Round numbers and each round's order of levels, rotated round by round; negative round numbers
    are warm-up rounds (run, not counted: a cold file system, the first worker build)."""
    for r in range(-warmup, n):
        k = r % len(levels)
        yield r, levels[k:] + levels[:k]


TARGETS = {"run": 0.5, "io": 2.0}  # the throughput targets, % of off


def report(name: str, unit: str, values: dict[str, list[float]], sizes: dict[str, list[tuple]],
           moved: dict[str, list[int]], cpu: dict[str, list[float]] | None = None, cpu_unit: str = "",
           loads: list[str] | None = None) -> None:
    """Per level against off: throughput and (if given) CPU per unit of work, paired and Welch, with
    the target check; then the trace's size."""
    base = values["off"]
    print(f"\n{name}: {len(base)} rounds" + (f"; load average (1/5/15 min) at the start {loads[0]}, mid "
                                               f"{loads[len(loads) // 2]}, end {loads[-1]}" if loads else ""))
    print("\n| level | quantity | off mean | level mean | paired change vs off, mean [95 % CI] | paired tests | "
          "Welch: change of means [95 % CI], p | target | CI inside target |")
    print("|---|---|---|---|---|---|---|---|---|")
    for level, vals in values.items():
        if level == "off":
            continue
        target = TARGETS.get(level, TARGETS["run"])
        series = [(f"{unit}", vals, base)]
        if cpu is not None:
            series.append((f"CPU {cpu_unit}", cpu[level], cpu["off"]))
        for quantity, x, y in series:
            change = compare(x, y)
            print(f"| {level} | {quantity} | {change.mean_y:.4g} | {change.mean_x:.4g} | {change.row()} | "
                  f"+-{target:g} % | {'yes' if change.inside(target) else 'NO'} |")
    print("\n| level | trace.jsonl B/record | I/O B/event | trace B per GiB moved |")
    print("|---|---|---|---|")
    for level in values:
        jsonl = sum(s[0] for s in sizes[level])
        records = sum(s[1] for s in sizes[level])
        io_bytes = sum(s[2] for s in sizes[level])
        events = sum(s[3] for s in sizes[level])
        gib = sum(moved[level]) / 2**30
        print(f"| {level} | {jsonl / records if records else 0:.0f} | {io_bytes / events if events else 0:.1f} | "
              f"{(jsonl + io_bytes) / gib if gib else 0:,.0f} |")


def measured(text: str, results: Path) -> tuple[dict, float]:
    """One run through the session, and the CPU seconds it cost: this process (the controller and its
    trace sink) plus every child it reaped (the worker or guc)."""
    cpu0 = self_cpu() + children_cpu()
    record = run_once(text, results)
    return record, self_cpu() + children_cpu() - cpu0


def gfapi_bench(n: int, files: int, base: Path, levels: tuple[str, ...] = LEVELS) -> None:
    values: dict[str, list[float]] = {level: [] for level in levels}
    cpu: dict[str, list[float]] = {level: [] for level in levels}
    sizes: dict[str, list[tuple]] = {level: [] for level in levels}
    moved: dict[str, list[int]] = {level: [] for level in levels}
    loads = [loadavg()]
    shm = Path(tempfile.mkdtemp(prefix="gftpwb-trace-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    try:
        for r, order in rounds(levels, n):
            for level in order:
                text = textwrap.dedent(f"""\
                    version: 1
                    name: tb
                    trace: {level}
                    tests:
                      - id: w
                        kind: gfapi
                        directory: {shm}/d
                        workload: seq-wr
                        threads: 4
                        files: {files}
                        file_size: 4K
                        record_size: 4K
                    """)
                results = base / f"gfapi-{r}-{level}"
                record, used = measured(text, results)
                if r < 0:
                    continue
                cluster = record["details"]["gfapi"]["cluster"]
                values[level].append(cluster["last_done"]["files_s"])
                cpu[level].append(used / (4 * files) * 1e6)
                sizes[level].append(trace_size(results))
                moved[level].append(cluster["bytes"])
                shutil.rmtree(results, ignore_errors=True)
            loads.append(loadavg())
    finally:
        shutil.rmtree(shm, ignore_errors=True)
    report(f"gfapi worker, POSIX on /dev/shm, seq-wr, 4 threads x {files} files of 4 KiB (files/s, last done)",
           "files/s", values, sizes, moved, cpu, "µs per file (worker + controller)", loads)


def guc_bench(n: int, length: str, base: Path, rate: str, loopback: bool) -> None:
    """guc off against run; by default from a GridFTP server on a namespace host behind a tbf-shaped
    link (guc here, so its CPU is ours to read), or between two loopback URLs with ``loopback``."""
    from gftpwb.shell.lab.gridftp import GridftpLab
    from gftpwb.shell.lab.netlab import NetLab

    if loopback:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        sock.close()
        lab = GridftpLab(tempfile.mkdtemp(prefix="gftpwb-trace-bench-lab-"))
        url = lab.up(port=port).url
        source, target, what = f"{url}/dev/zero", f"{url}/dev/null", "third party between two loopback URLs"
    else:
        lab = NetLab(tempfile.mkdtemp(prefix="gftpwb-trace-bench-netlab-"))
        lab.up(1, rate=rate, gridftp_on_hosts=True)
        status = lab.status()
        assert status is not None
        source, target = f"{status['hosts'][0]['gridftp_url']}/dev/zero", "file:///dev/null"
        what = f"from a namespace host's server over a link shaped to {rate} (tbf) to /dev/null here"
    levels = ("off", "run")
    values: dict[str, list[float]] = {level: [] for level in levels}
    cpu: dict[str, list[float]] = {level: [] for level in levels}
    sizes: dict[str, list[tuple]] = {level: [] for level in levels}
    moved: dict[str, list[int]] = {level: [] for level in levels}
    loads = [loadavg()]
    try:
        for r, order in rounds(levels, n):
            for level in order:
                text = textwrap.dedent(f"""\
                    version: 1
                    name: tg
                    trace: {level}
                    tests:
                      - id: t
                        kind: guc
                        source: {source}
                        target: {target}
                        options: {{length: {length}, parallel: 2}}
                    """)
                results = base / f"guc-{r}-{level}"
                record, used = measured(text, results)
                if r < 0:
                    continue
                values[level].append(record["rate_incl_setup_mib_s"])
                cpu[level].append(used / (record["bytes"] / 2**30))
                sizes[level].append(trace_size(results))
                moved[level].append(record["bytes"])
                shutil.rmtree(results, ignore_errors=True)
            loads.append(loadavg())
    finally:
        lab.down()
        shutil.rmtree(lab.state_dir, ignore_errors=True)
    report(f"guc, {what}, -p 2, {length} per transfer (MiB/s incl. set-up; io = run for guc: no per-I/O hook)",
           "MiB/s", values, sizes, moved, cpu, "s per GiB (guc + controller)", loads)


def worker_bench(n: int, files: int, levels: tuple[str, ...] = LEVELS, trace_dir: str = "") -> None:
    import subprocess

    from gftpwb.kinds.gfapi.run.worker_build import CFLAGS, source_bytes

    work = Path(tempfile.mkdtemp(prefix="gftpwb-trace-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    try:
        (work / "w.c").write_bytes(source_bytes())
        subprocess.run(["cc", *CFLAGS, "-o", str(work / "w"), str(work / "w.c")], check=True)
        values: dict[str, list[float]] = {level: [] for level in levels}
        sizes: dict[str, list[tuple]] = {level: [] for level in levels}
        moved: dict[str, list[int]] = {level: [] for level in levels}
        cpu: dict[str, list[float]] = {level: [] for level in levels}  # worker CPU (user + system) µs per file
        loads = [loadavg()]
        for r, order in rounds(levels, n):
            for level in order:
                trace = Path(trace_dir or work) / f"gftpwb-trace-bench-{os.getpid()}.bin"
                one = run_worker(work / "w", work / "d", trace, level, files)
                rate, size = one.files_per_s, one.trace_bytes
                if r < 0:
                    continue
                values[level].append(rate)
                cpu[level].append(one.cpu_us_per_file)
                sizes[level].append((0, 0, size, one.trace_events))
                moved[level].append(4 * files * 4096)
            loads.append(loadavg())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report(f"gfapi worker alone (no gftpwb), POSIX on /dev/shm, seq-wr, 4 threads x {files} files of 4 KiB "
           "(files/s of the threads)", "files/s", values, sizes, moved, cpu, "µs per file (worker)", loads)
    if "io" not in cpu:
        return
    per_event = (statistics.fmean(cpu["io"]) - statistics.fmean(cpu["off"])) / 3 * 1e3  # open, write, close
    print(f"\nio: {per_event:+.0f} ns of worker CPU per I/O event (3 events a file), against "
          f"{statistics.fmean(cpu['off']) / 3 * 1e3:.0f} ns per I/O untraced")


def levels_of(parser: argparse.ArgumentParser, text: str, option: str) -> tuple[str, ...]:
    levels = tuple(text.split(","))
    if levels[0] != "off" or not set(levels) <= set(LEVELS) or len(levels) < 2 or len(set(levels)) != len(levels):
        parser.error(f"{option}: off first, then run and/or io")
    return levels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--rounds", "--pairs", type=int, default=10,
                        help="rounds (each level once, order rotated; with off and one level: pairs)")
    parser.add_argument("--files", type=int, default=2000, help="files per gfapi thread (4 threads)")
    parser.add_argument("--guc-length", default="256M", help="bytes per guc transfer")
    parser.add_argument("--skip-guc", action="store_true")
    parser.add_argument("--skip-gfapi", action="store_true")
    parser.add_argument("--levels", default="off,run,io", help="the levels of the gfapi runs through gftpwb "
                        "(off first): off,run or off,io fit more rounds into the same time")
    parser.add_argument("--worker", action="store_true", help="also the worker alone (no gftpwb), at --worker-levels")
    parser.add_argument("--worker-levels", default="off,run,io", help="the levels of --worker (off first)")
    parser.add_argument("--worker-trace-dir", default="", help="where the worker alone writes its I/O trace "
                        "(default: next to its files, in /dev/shm)")
    parser.add_argument("--cpus", default="1", help="pin the bench and everything it starts to these CPUs, as "
                        "taskset -c; empty: no pinning")
    parser.add_argument("--rate", default="400mbit", help="guc: tc tbf rate of the namespace host's link")
    parser.add_argument("--loopback-guc", action="store_true", help="guc between two loopback URLs instead")
    args = parser.parse_args()
    gfapi_levels = levels_of(parser, args.levels, "--levels")
    worker_levels = levels_of(parser, args.worker_levels, "--worker-levels")
    cpus = pin(args.cpus) if args.cpus else "all"
    print(f"pinned to CPU(s) {cpus}; load average at the start {loadavg()}")
    base = Path(tempfile.mkdtemp(prefix="gftpwb-trace-bench-results-"))
    try:
        if not args.skip_gfapi:
            gfapi_bench(args.rounds, args.files, base, gfapi_levels)
        if not args.skip_guc:
            guc_bench(args.rounds, args.guc_length, base, args.rate, args.loopback_guc)
        if args.worker:
            worker_bench(args.rounds, args.files, worker_levels, args.worker_trace_dir)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print(f"\nload average at the end {loadavg()}")
    print("\n" + json.dumps({"rounds": args.rounds, "files": args.files, "levels": args.levels,
                             "guc_length": args.guc_length,
                             "cpus": cpus, "rate": None if args.loopback_guc else args.rate}))


if __name__ == "__main__":
    main()
