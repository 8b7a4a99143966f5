"""Caps on what one scenario may ask for, so a typo (``repeat: 30000000``, ``threads: 1000000000``)
is a clear error at its line instead of a plan or a launch that runs away.

The defaults are far above real use (a scenario of 20,000 tests plans 20,000 runs); a user who needs
more raises a cap for one command with an environment variable, which every error names:

* ``GFTPWB_MAX_RUNS`` (default 100000): runs one scenario may plan, in total and per test;
* ``GFTPWB_MAX_WORKERS`` (default 4096): gfapi worker threads per host (``processes`` x ``threads``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .errors import UsageError

RUNS_VARIABLE = "GFTPWB_MAX_RUNS"
WORKERS_VARIABLE = "GFTPWB_MAX_WORKERS"


@dataclass(frozen=True)
class Limits:
    runs: int = 100_000
    workers: int = 4096


def _read(name: str, default: int) -> int:
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise UsageError(f"{name}={text!r}: expected a whole number of at least 1")
    return value


def limits() -> Limits:
    """The caps in force (the defaults, or what the environment sets)."""
    return Limits(runs=_read(RUNS_VARIABLE, Limits.runs), workers=_read(WORKERS_VARIABLE, Limits.workers))


RUN_FACTORS = "repeat x copies x matrix cases x hosts x loops"


def too_many_runs(who: str, runs: int, cap: int, factors: str = RUN_FACTORS) -> str:
    """The one message for a test (or a batchfile line, or a scenario) over the runs cap: what plans
    how many runs, from what, the cap, and the variable that raises it."""
    return (f"{who} plans {runs:,} runs ({factors}), more than the limit of {cap:,}; run fewer, or raise the limit: "
            f"{RUNS_VARIABLE}={runs}")
