"""How `gftpwb validate` grows with the number of tests: the command itself, as a user runs it.

Writes scenarios of N one-line guc tests (source and target in the defaults, as a generated sweep
has them) and runs `gftpwb validate FILE` on each in a child process: its wall time, its CPU time
(user + system) and its peak resident memory (the child's own rusage, from os.wait4), the median
of --repeat runs for the times and the largest peak. The per-test columns show whether growth is
linear (a flat figure); the targets are checked at the end.

Wall time is what a user waits, but on a shared machine it includes waiting for a core: the load
average is printed with the figures, and CPU time is the figure that does not depend on it.

Run: .venv/bin/python bench/validate_scale.py [--sizes 2000,10000,20000,100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

# what the command must do: (tests, wall seconds, peak MiB or None)
TARGETS = ((20_000, 4.0, 300.0), (100_000, 20.0, None))


def scenario_text(n: int) -> str:
    head = ("version: 1\nname: scale\ndefaults:\n  source: ftp://127.0.0.1:2811/dev/zero\n"
            "  target: ftp://127.0.0.1:2811/dev/null\ntests:\n")
    return head + "".join(f"  - {{id: t{i}, kind: guc, options: {{length: 1M}}}}\n" for i in range(n))


def gftpwb_command() -> list[str]:
    """The installed `gftpwb` next to this Python (the venv's), else `python -m gftpwb`."""
    script = Path(sys.executable).with_name("gftpwb")
    return [str(script)] if script.exists() else [sys.executable, "-m", "gftpwb"]


def validate_once(path: str) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of one `gftpwb validate path`; exits if it fails."""
    argv = [*gftpwb_command(), "validate", path]
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"gftpwb validate {path} failed (exit {os.waitstatus_to_exitcode(status)})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024  # ru_maxrss: KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="2000,10000,20000,100000")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    print(f"command: {' '.join(gftpwb_command())} validate FILE; median of {args.repeat}; "
          f"load average before: {os.getloadavg()[0]:.1f}")
    print(f"{'tests':>7} {'wall s':>7} {'CPU s':>7} {'peak MiB':>9} {'CPU us/test':>11} {'KiB/test':>8}")
    found: dict[int, tuple[float, float, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = os.path.join(tmp, f"scale-{n}.yaml")
            Path(path).write_text(scenario_text(n))
            tries = [validate_once(path) for _ in range(args.repeat)]
            wall = statistics.median(t[0] for t in tries)
            cpu = statistics.median(t[1] for t in tries)
            peak = max(t[2] for t in tries)
            found[n] = (wall, cpu, peak)
            print(f"{n:>7} {wall:>7.2f} {cpu:>7.2f} {peak:>9.0f} {cpu / n * 1e6:>11.0f} {peak * 1024 / n:>8.1f}",
                  flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    for n, wall_limit, peak_limit in TARGETS:
        if n not in found:
            continue
        wall, cpu, peak = found[n]
        ok = wall < wall_limit and (peak_limit is None or peak < peak_limit)
        limit = f"< {wall_limit:g} s" + (f" and < {peak_limit:g} MiB" if peak_limit else "")
        print(f"target {n:,} tests {limit}: wall {wall:.2f} s (CPU {cpu:.2f} s), {peak:.0f} MiB: "
              f"{'met' if ok else 'NOT met'}")


if __name__ == "__main__":
    main()
