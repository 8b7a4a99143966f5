"""One run of the gfapi worker alone (no gftpwb), as the tracing benches start it.

Shared by bench/trace_overhead.py (``--worker``) and bench/worker_ab.py: 4 threads x ``files`` files of
4 KiB, seq-wr on POSIX, the trace level given on the command line (``run``: the trace file is open with
I/O events off, as gftpwb's ``trace: run`` starts it), started with ``start 0`` on stdin.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from paired import children_cpu

from gftpwb.core.trace.iofmt import count_events
from gftpwb.kinds.gfapi.run.worker_build import CFLAGS, source_bytes

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class WorkerRun:
    files_per_s: float  # the threads' own rate: files over the slowest thread's elapsed time
    cpu_us_per_file: float  # worker CPU (user + system, reaped child) per file
    trace_bytes: int  # size of the trace file at the io level (0 otherwise)
    trace_events: int  # the events in it (its block headers say; 0 otherwise)


def run_worker(binary: Path, data_dir: Path, trace: Path, level: str, files: int) -> WorkerRun:
    trace.unlink(missing_ok=True)
    argv = [str(binary), "--dir", str(data_dir), "--threads", "4", "--files", str(files), "--file-size", "4096",
            "--record-size", "4096"]
    if level != "off":
        argv += ["--io-trace", str(trace), *(["--io-trace-level", "run"] if level == "run" else [])]
    before = children_cpu()
    stdout = worker_output(argv)
    used = children_cpu() - before
    data = trace.read_bytes() if level == "io" else b""
    size, events = len(data), count_events(data) if data else 0
    trace.unlink(missing_ok=True)
    done = [line.split() for line in stdout.splitlines() if line.startswith("d ")]
    assert len(done) == 4 and all(d[2] == "ok" for d in done), stdout[-500:]
    rate = sum(int(d[4]) for d in done) / (max(int(d[3]) for d in done) / 1e9)
    return WorkerRun(rate, used / (4 * files) * 1e6, size, events)


def worker_output(argv: list[str]) -> str:
    """Run the worker to its end, started with ``start 0`` on stdin as the runner starts it; its stdout."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("start 0\n")  # stdin stays open: its end would mean "stop"
    proc.stdin.flush()
    stdout = proc.stdout.read()
    proc.stdin.close()
    proc.wait()
    return stdout


def build_tree_and_rev(work: Path, against: str) -> dict[str, Path]:
    """This tree's worker and the one at git revision ``against``, built in ``work`` as the runner
    builds them (POSIX only): {"tree": path, "rev": path}."""
    old = subprocess.run(["git", "show", f"{against}:gftpwb/kinds/gfapi/worker/gfapi_worker.c"],
                         check=True, capture_output=True, cwd=REPO).stdout
    binaries = {}
    for build, source in (("tree", source_bytes()), ("rev", old)):
        (work / f"{build}.c").write_bytes(source)
        binaries[build] = work / build
        subprocess.run(["cc", *CFLAGS, "-o", str(binaries[build]), str(work / f"{build}.c")], check=True)
    return binaries
