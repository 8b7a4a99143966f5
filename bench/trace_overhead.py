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
around it), off against io in alternating pairs, and compares the threads' own files/s (their ``d``
lines): the tracer's cost where it is paid, with the least else in the way.

Usage: .venv/bin/python bench/trace_overhead.py [--rounds 10] [--files 2000] [--guc-length 256M]
                                                 [--skip-guc] [--skip-gfapi] [--worker]
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

from scipy import stats

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.plan import plan
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
        io_events += (path.stat().st_size - 64) // 32
    return size, records, io_bytes, io_events


def rounds(levels: tuple[str, ...], n: int, warmup: int = 1):
    """Round numbers and each round's order of levels, rotated round by round; negative round numbers
    are warm-up rounds (run, not counted: a cold file system, the first worker build)."""
    for r in range(-warmup, n):
        k = r % len(levels)
        yield r, levels[k:] + levels[:k]


def compare(name: str, unit: str, values: dict[str, list[float]], sizes: dict[str, list[tuple]],
            moved: dict[str, list[int]]) -> None:
    base = values["off"]
    print(f"\n{name}: {len(base)} rounds\n")
    print(f"| level | median {unit} | mean {unit} | mean vs off | Welch p | median of paired ratios | "
          f"trace.jsonl B/record | I/O B/event | trace B per GiB moved |")
    print("|---|---|---|---|---|---|---|---|---|")
    for level, vals in values.items():
        diff = (statistics.mean(vals) / statistics.mean(base) - 1) * 100
        p = stats.ttest_ind(vals, base, equal_var=False).pvalue if level != "off" else float("nan")
        jsonl = sum(s[0] for s in sizes[level])
        records = sum(s[1] for s in sizes[level])
        io_bytes = sum(s[2] for s in sizes[level])
        events = sum(s[3] for s in sizes[level])
        gib = sum(moved[level]) / 2**30
        paired = statistics.median(v / b for v, b in zip(vals, base, strict=True))  # same round: side by side
        print(f"| {level} | {statistics.median(vals):.1f} | {statistics.mean(vals):.1f} | "
              f"{'-' if level == 'off' else f'{diff:+.2f} %'} | {'-' if level == 'off' else f'{p:.3f}'} | "
              f"{'-' if level == 'off' else f'{(paired - 1) * 100:+.2f} %'} | "
              f"{jsonl / records if records else 0:.0f} | {io_bytes / events if events else 0:.1f} | "
              f"{(jsonl + io_bytes) / gib if gib else 0:,.0f} |")


def gfapi_bench(n: int, files: int, base: Path) -> None:
    values: dict[str, list[float]] = {level: [] for level in LEVELS}
    sizes: dict[str, list[tuple]] = {level: [] for level in LEVELS}
    moved: dict[str, list[int]] = {level: [] for level in LEVELS}
    shm = Path(tempfile.mkdtemp(prefix="gftpwb-trace-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    try:
        for r, order in rounds(LEVELS, n):
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
                record = run_once(text, results)
                if r < 0:
                    continue
                cluster = record["details"]["gfapi"]["cluster"]
                values[level].append(cluster["last_done"]["files_s"])
                sizes[level].append(trace_size(results))
                moved[level].append(cluster["bytes"])
    finally:
        shutil.rmtree(shm, ignore_errors=True)
    compare(f"gfapi worker, POSIX on /dev/shm, seq-wr, 4 threads x {files} files of 4 KiB (files/s, last done)",
            "files/s", values, sizes, moved)


def guc_bench(n: int, length: str, base: Path) -> None:
    from gftpwb.shell.lab.gridftp import GridftpLab

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    lab = GridftpLab(tempfile.mkdtemp(prefix="gftpwb-trace-bench-lab-"))
    status = lab.up(port=port)
    levels = ("off", "run")
    values: dict[str, list[float]] = {level: [] for level in levels}
    sizes: dict[str, list[tuple]] = {level: [] for level in levels}
    moved: dict[str, list[int]] = {level: [] for level in levels}
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
                        source: {status.url}/dev/zero
                        target: {status.url}/dev/null
                        options: {{length: {length}, parallel: 2}}
                    """)
                results = base / f"guc-{r}-{level}"
                record = run_once(text, results)
                if r < 0:
                    continue
                values[level].append(record["rate_incl_setup_mib_s"])
                sizes[level].append(trace_size(results))
                moved[level].append(record["bytes"])
    finally:
        lab.down()
    compare(f"guc, third party between two lab URLs, -p 2, {length} per transfer (MiB/s incl. set-up; "
            "io = run for guc: no per-I/O hook)", "MiB/s", values, sizes, moved)


def worker_bench(n: int, files: int) -> None:
    import resource
    import subprocess

    from gftpwb.kinds.gfapi.run.worker_build import CFLAGS, source_bytes

    work = Path(tempfile.mkdtemp(prefix="gftpwb-trace-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    try:
        (work / "w.c").write_bytes(source_bytes())
        subprocess.run(["cc", *CFLAGS, "-o", str(work / "w"), str(work / "w.c")], check=True)
        values: dict[str, list[float]] = {"off": [], "io": []}
        sizes: dict[str, list[tuple]] = {"off": [], "io": []}
        moved: dict[str, list[int]] = {"off": [], "io": []}
        cpu: dict[str, list[float]] = {"off": [], "io": []}  # CPU seconds (user + system) of the worker per run
        for r, order in rounds(("off", "io"), n):
            for level in order:
                trace = work / "t.bin"
                trace.unlink(missing_ok=True)
                argv = [str(work / "w"), "--dir", str(work / "d"), "--threads", "4", "--files", str(files),
                        "--file-size", "4096", "--record-size", "4096"]
                if level == "io":
                    argv += ["--io-trace", str(trace)]
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                proc.stdin.write("start 0\n")  # stdin stays open: its end would mean "stop"
                proc.stdin.flush()
                stdout = proc.stdout.read()
                proc.stdin.close()
                proc.wait()
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
                done = [line.split() for line in stdout.splitlines() if line.startswith("d ")]
                assert len(done) == 4 and all(d[2] == "ok" for d in done), stdout[-500:]
                # threads' own rate: files over the slowest thread's elapsed time
                rate = sum(int(d[4]) for d in done) / (max(int(d[3]) for d in done) / 1e9)
                if r < 0:
                    continue
                values[level].append(rate)
                cpu[level].append(used)
                size = trace.stat().st_size if level == "io" else 0
                sizes[level].append((0, 0, size, (size - 64) // 32 if size else 0))
                moved[level].append(4 * files * 4096)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    compare(f"gfapi worker alone (no gftpwb), POSIX on /dev/shm, seq-wr, 4 threads x {files} files of 4 KiB "
            "(files/s of the threads)", "files/s", values, sizes, moved)
    events = 4 * files * 3  # open, write, close per file
    off, on = statistics.median(cpu["off"]), statistics.median(cpu["io"])
    p = stats.ttest_ind(cpu["io"], cpu["off"], equal_var=False).pvalue
    print(f"\nworker CPU time (user + system), median: off {off:.3f} s, io {on:.3f} s "
          f"({(on / off - 1) * 100:+.2f} %, Welch p {p:.3f}); {events} I/O events a run: "
          f"{(on - off) / events * 1e9:+.0f} ns CPU per event, {off / events * 1e9:.0f} ns CPU per I/O untraced")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--guc-length", default="256M")
    parser.add_argument("--skip-guc", action="store_true")
    parser.add_argument("--skip-gfapi", action="store_true")
    parser.add_argument("--worker", action="store_true", help="also the worker alone, off against io")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="gftpwb-trace-bench-results-"))
    try:
        if not args.skip_gfapi:
            gfapi_bench(args.rounds, args.files, base)
        if not args.skip_guc:
            guc_bench(args.rounds, args.guc_length, base)
        if args.worker:
            worker_bench(args.rounds, args.files)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    print("\n" + json.dumps({"rounds": args.rounds, "files": args.files, "guc_length": args.guc_length}))


if __name__ == "__main__":
    main()
