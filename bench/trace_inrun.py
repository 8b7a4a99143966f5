"""What the worker's I/O tracing costs a file, measured inside the run by the worker itself.

Files/s and CPU per file move by a percent or more from run to run on this machine, about what the
tracer costs. The worker's own timing resolves it: with ONE thread, the time a file spends outside its timed calls,
(sum of ``file`` - open - write - close) / files from the ``h`` lines (summed), is where ``trace_io``'s
work shows up (it runs between the timed calls), to a few ns in ten rounds. This builds this tree's
worker and one at a git revision, runs each untraced and at level io in rotated rounds (1 thread x
``--files`` files of 4 KiB on /dev/shm, pinned to ``--cpus``), and prints the overhead per file of each
variant and the paired differences (mean of the per-round differences with its 95 % t interval, and
their median, which one round disturbed by another process's burst does not move), with the
trace's bytes per event on disk.

Usage: .venv/bin/python bench/trace_inrun.py --against 542d261 [--rounds 10] [--files 80000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from paired import loadavg, pin
from scipy import stats
from worker_run import build_tree_and_rev, worker_output

VARIANTS = ("rev:off", "rev:io", "tree:off", "tree:io")


def outside_ns(binary: Path, work: Path, level: str, files: int) -> tuple[float, float, int]:
    """(ns per file outside the timed calls, ns per file in all, trace bytes) of one run."""
    trace = work / "t.bin"
    trace.unlink(missing_ok=True)
    argv = [str(binary), "--dir", str(work / "d"), "--threads", "1", "--files", str(files), "--file-size", "4096",
            "--record-size", "4096"]
    if level == "io":
        argv += ["--io-trace", str(trace)]
    out = worker_output(argv)
    size = trace.stat().st_size if level == "io" else 0
    trace.unlink(missing_ok=True)
    shutil.rmtree(work / "d", ignore_errors=True)
    sums: dict[str, int] = {}
    counts: dict[str, int] = {}
    for line in out.splitlines():
        if line.startswith("h "):  # h THREAD OP COUNT SUM_NS MAX_NS BUCKETS: per-interval deltas, summed
            fields = line.split()
            sums[fields[2]] = sums.get(fields[2], 0) + int(fields[4])
            counts[fields[2]] = counts.get(fields[2], 0) + int(fields[3])
    done = counts.get("file", 0)
    assert done == files, out[-500:]
    inside = sum(sums.get(op, 0) for op in ("open", "write", "close"))
    return (sums["file"] - inside) / done, sums["file"] / done, size


def interval(diffs: list[float]) -> str:
    mean = statistics.fmean(diffs)
    if len(diffs) < 2:
        return f"{mean:+.1f}"
    half = stats.t.ppf(0.975, len(diffs) - 1) * statistics.stdev(diffs) / len(diffs) ** 0.5
    return f"{mean:+.1f} [{mean - half:+.1f}, {mean + half:+.1f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, help="git revision of the other worker source")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--files", type=int, default=80000, help="files of the one thread")
    parser.add_argument("--cpus", default="1")
    args = parser.parse_args()
    print(f"pinned to CPU(s) {pin(args.cpus)}; load average at the start {loadavg()}")
    work = Path(tempfile.mkdtemp(prefix="gftpwb-trace-inrun-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    try:
        binaries = build_tree_and_rev(work, args.against)
        got: dict[str, list[tuple[float, float, int]]] = {v: [] for v in VARIANTS}
        for r in range(-1, args.rounds):  # round -1: warm-up, not counted
            k = r % len(VARIANTS)
            for v in VARIANTS[k:] + VARIANTS[:k]:
                build, level = v.split(":")
                one = outside_ns(binaries[build], work, level, args.files)
                if r >= 0:
                    got[v].append(one)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average at the end {loadavg()}; rev = {args.against}, tree = this working tree; "
          f"1 thread x {args.files} files of 4 KiB, {args.rounds} rounds\n")
    events = 3 * args.files  # open, write, close
    print("| variant | ns per file outside the timed calls, median | ns per file in all, median | "
          "trace B per event |")
    print("|---|---|---|---|")
    for v in VARIANTS:
        size = statistics.median(x[2] for x in got[v])
        per_event = f"{(size - 64) / events:.2f}" if size else "-"
        print(f"| {v} | {statistics.median(x[0] for x in got[v]):.1f} | {statistics.median(x[1] for x in got[v]):.0f} "
              f"| {per_event} |")
    print("\n| variant | against | ns per file outside the timed calls: paired difference, mean [95 % CI] | "
          "median of the differences |")
    print("|---|---|---|---|")
    for a, b in (("rev:off", "rev:io"), ("tree:off", "tree:io"), ("rev:io", "tree:io"), ("rev:off", "tree:off"),
                 ("rev:off", "tree:io")):
        diffs = [x[0] - y[0] for x, y in zip(got[b], got[a], strict=True)]
        print(f"| {b} | {a} | {interval(diffs)} | {statistics.median(diffs):+.1f} |")


if __name__ == "__main__":
    main()
