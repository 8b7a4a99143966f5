"""A loaded machine, built by the test that needs one: CPU-bound processes beside the code under test.

A test about what happens "at whatever instant" (a Ctrl-C during start-up) must hold on a busy build
machine, where start-up is several times slower and the instants fall elsewhere; it builds that
condition rather than hoping for it.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator

BURN = "while True: pass"


@contextlib.contextmanager
def busy_cores(count: int | None = None) -> Iterator[list[int]]:
    """``count`` CPU-bound processes (default: one per core) for the duration of the block; their pids."""
    if count is None:
        count = os.cpu_count() or 1
    burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(count)]
    try:
        yield [p.pid for p in burners]
    finally:
        for proc in burners:
            proc.kill()
        for proc in burners:
            proc.wait()
