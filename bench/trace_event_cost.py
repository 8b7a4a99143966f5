"""What one I/O trace event costs the gfapi worker's CPU, measured on its own trace code.

The worker's throughput through a file system varies by a few % from run to run, so a change of a few
ns per event cannot be seen there. This builds ``trace_event_cost.c`` against the worker's source
(this tree's, and with ``--against REV`` the source at a git revision too), calls its ``trace_io``
N times at level io and at level off, and prints the CPU ns per event: of the calling thread (what a
measuring thread pays) and of the process (the writer thread's write()s of the 16-byte events
included), best of ``--reps``, in alternating builds ``--rounds`` times, pinned to ``--cpus``.

Usage: .venv/bin/python bench/trace_event_cost.py [--against c988cf8] [--rounds 5] [--calls 3000000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
from pathlib import Path

from paired import loadavg, pin

from gftpwb.kinds.gfapi.run.worker_build import CFLAGS, source_bytes

HERE = Path(__file__).resolve().parent


def build(source: bytes, work: Path, name: str) -> Path:
    (work / f"{name}.c").write_bytes(source)
    defines = ["-DHAVE_TRACE_PREPARE"] if b"static int trace_prepare(" in source else []
    binary = work / name
    subprocess.run(["cc", *CFLAGS, "-Wno-unused-function", *defines, f"-DWORKER_SOURCE=\"{work / name}.c\"",
                    "-o", str(binary), str(HERE / "trace_event_cost.c")], check=True)
    return binary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default="", help="also the worker source at this git revision")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=3_000_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--dir", default="/dev/shm", help="where the writer thread writes the events")
    parser.add_argument("--cpus", default="1")
    args = parser.parse_args()
    print(f"pinned to CPU(s) {pin(args.cpus)}; load average {loadavg()}")
    with tempfile.TemporaryDirectory(prefix="gftpwb-trace-event-cost-") as tmp:
        work = Path(tmp)
        builds = {"this tree": build(source_bytes(), work, "tree")}
        if args.against:
            old = subprocess.run(["git", "show", f"{args.against}:gftpwb/kinds/gfapi/worker/gfapi_worker.c"],
                                 check=True, capture_output=True, cwd=HERE.parent).stdout
            builds[args.against] = build(old, work, "against")
        results: dict[str, list[dict]] = {name: [] for name in builds}
        for _ in range(args.rounds):
            for name, binary in builds.items():
                out = subprocess.run([str(binary), str(args.calls), str(args.reps), args.dir], check=True,
                                     capture_output=True, text=True).stdout
                results[name].append(json.loads(out))
    print("\n| worker source | rounds | calls | CPU ns per event, calling thread (median, min-max) | "
          "CPU ns per event, whole process | ns per call at level off |")
    print("|---|---|---|---|---|---|")
    for name, rows in results.items():
        def cell(key: str, rows: list[dict] = rows) -> str:
            values = [row[key] for row in rows]
            return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"
        print(f"| {name} | {args.rounds} | {args.calls:,} | {cell('thread_ns_per_event')} | "
              f"{cell('process_ns_per_event')} | {cell('off_ns')} |")
    print(f"\nload average at the end {loadavg()}")


if __name__ == "__main__":
    main()
