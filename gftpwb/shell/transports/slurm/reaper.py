"""The Slurm reaper: a separate process that cancels what gftpwb left in Slurm if gftpwb ends
without doing so itself (killed with -9, a crash).

It reads lines from stdin, a pipe only gftpwb holds: ``job ID`` (an allocation gftpwb asked for),
``step JOB.STEP`` (a job step in flight), ``done JOB.STEP`` / ``done ID`` (ended or released). When
the pipe reaches end of file, it runs ``scancel`` on every step and job still listed, then exits.
Standard library only, run with ``python3 -I -S`` like the local watchdog; SLURM_CONF comes with its
environment.
"""

import contextlib
import subprocess
import sys


def main() -> int:
    live = {}  # id -> kind, in the order they came
    for line in sys.stdin:
        words = line.split()
        if len(words) != 2:
            continue
        what, ident = words
        if what in ("job", "step"):
            live[ident] = what
        elif what == "done":
            live.pop(ident, None)
    steps = [ident for ident, what in live.items() if what == "step"]
    jobs = [ident for ident, what in live.items() if what == "job"]
    for batch in (steps, jobs):
        if batch:
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                subprocess.run(["scancel", *batch], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
