"""The largest value of every number a scenario gives.

Why: a number of a few hundred digits is valid YAML and a valid JSON-Schema integer, and without a
bound it went on into arithmetic that cannot hold it (an auto-tune's ``budget`` divided as a float was
an OverflowError and a traceback). Every integer of the schema, and every number a whole number may
stand in for (durations, rates), therefore has a ``maximum``: a larger value is an error at its line
and column, like any other schema error (exit 2). ``tests/test_bounded_inputs.py`` walks every such
key of the assembled schema with huge, zero and negative values, so a new key cannot miss its bound.
docs/scenarios.md states them.
"""

from __future__ import annotations

from typing import Any

MAX_COUNT = 1_000_000_000  # how often something runs: repeat, warmup, an auto-tune's budget and repetitions
# (the run cap, GFTPWB_MAX_RUNS, is the bound that counts for runs; this one only keeps numbers finite)
MAX_STREAMS = 1024  # connections or streams of one transfer (guc -p, -cc; xrdcp --parallel; gfal-copy -n)
MAX_TESTS_AT_ONCE = 1024  # concurrent_tests
MAX_CAMPAIGNS = 1000  # earlier campaigns a warm start reads
MAX_SEED = 2**64 - 1  # seeds: numpy's generators and the gfapi worker take 64 bits
MAX_BYTES = 2**63 - 1  # sizes and other 64-bit whole numbers (guc's and the kernel's off_t)
MAX_WORKER_COUNT = 2**31 - 1  # gfapi worker counts the C worker keeps in an int (threads, processes, files)
MAX_JOB_ID = 2**32 - 1  # a Slurm job id
MAX_SECONDS = 1_000_000_000  # a duration given as a number of seconds (about 31 years)
MAX_MIB_S = 1_000_000_000  # a rate given as a number of MiB/s (about 1 PiB/s)
MAX_TIME_SCALE = 1000  # the simulated engine's time_scale


def whole(minimum: int, maximum: int, **extra: Any) -> dict[str, Any]:
    """The schema of a whole number between ``minimum`` and ``maximum``."""
    return {"type": "integer", "minimum": minimum, "maximum": maximum, **extra}
