"""Two builds of the gfapi worker side by side: this tree's and one at a git revision, each at chosen
trace levels, in rounds whose order is rotated, paired within each round.

What a change to the worker's trace code does to a real run (files on /dev/shm, 4 threads, small
files): the worker's CPU per file (getrusage of the child) and its threads' own files/s, with
every pair of variants compared (mean of the per-round ratios with its 95 % t interval, paired t and
Wilcoxon p, Welch next to them; :mod:`paired`). Pinned to ``--cpus``.

Usage: .venv/bin/python bench/worker_ab.py --against c988cf8 [--rounds 40] [--files 20000]
                                            [--variants rev:off,rev:io,tree:io,tree:off]
"""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import statistics
import tempfile
from pathlib import Path

from paired import compare, loadavg, pin
from worker_run import build_tree_and_rev, run_worker


def one_run(binary: Path, work: Path, level: str, files: int) -> tuple[float, float]:
    """(worker CPU µs per file, files/s of its threads) of one run."""
    one = run_worker(binary, work / "d", work / "t.bin", level, files)
    return one.cpu_us_per_file, one.files_per_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, help="git revision of the other worker source")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--files", type=int, default=20000, help="files per thread (4 threads)")
    parser.add_argument("--variants", default="rev:off,rev:io,tree:io,tree:off",
                        help="build:level, build one of rev, tree; level one of off, run, io")
    parser.add_argument("--cpus", default="1")
    args = parser.parse_args()
    variants = args.variants.split(",")
    if any(v.split(":")[0] not in ("rev", "tree") or v.split(":")[-1] not in ("off", "run", "io") for v in variants):
        parser.error("--variants: build:level, build one of rev, tree; level one of off, run, io")
    print(f"pinned to CPU(s) {pin(args.cpus)}; load average at the start {loadavg()}")
    work = Path(tempfile.mkdtemp(prefix="gftpwb-worker-ab-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None))
    try:
        binaries = build_tree_and_rev(work, args.against)
        cpu: dict[str, list[float]] = {v: [] for v in variants}
        rate: dict[str, list[float]] = {v: [] for v in variants}
        for r in range(-1, args.rounds):
            k = r % len(variants)
            for v in variants[k:] + variants[:k]:
                build, level = v.split(":")
                used, files_s = one_run(binaries[build], work, level, args.files)
                if r >= 0:
                    cpu[v].append(used)
                    rate[v].append(files_s)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average at the end {loadavg()}; rev = {args.against}, tree = this working tree\n")
    print("| variant | against | worker CPU per file: paired change, mean [95 % CI] | paired tests | Welch | "
          "files/s: paired change | paired tests | Welch |")
    print("|---|---|---|---|---|---|---|---|")
    for a, b in itertools.combinations(variants, 2):
        print(f"| {b} | {a} | {compare(cpu[b], cpu[a]).row()} | {compare(rate[b], rate[a]).row()} |")
    print("\n| variant | worker CPU µs per file, mean | files/s, mean |")
    print("|---|---|---|")
    for v in variants:
        print(f"| {v} | {statistics.fmean(cpu[v]):.4f} | {statistics.fmean(rate[v]):,.0f} |")


if __name__ == "__main__":
    main()
