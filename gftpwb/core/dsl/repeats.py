"""Keys of tests that repeat cases (``repeat`` with a ``matrix``): warm-up runs left out of the
statistics, and the order the repeats of a matrix run in. Kinds that repeat runs list these keys and
call :func:`check_repeats`; :func:`gftpwb.core.plan.order_runs` puts their runs in order."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gftpwb.core.scenario.bounds import MAX_COUNT, MAX_SEED, whole
from gftpwb.core.scenario.keys import Key

if TYPE_CHECKING:
    from gftpwb.core.registry import TestInput

SEQUENTIAL, INTERLEAVED, RANDOM = "sequential", "interleaved", "random"
ORDERS = (SEQUENTIAL, INTERLEAVED, RANDOM)

WARMUP_KEY = Key(
    "warmup", whole(0, MAX_COUNT),
    "How many of each case's first runs are warm-ups: they run and are kept in the journal and tag logs, "
    "marked, but left out of the statistics (median, CV, confidence intervals). Less than repeat. Default 0.")
ORDER_KEY = Key(
    "order", {"enum": list(ORDERS)},
    "The order of the runs of a matrix repeated several times: sequential (default: every repeat of one "
    "case, then the next case), interleaved (the first run of every case, then the second, ...), or random "
    "(shuffled with order_seed). Interleaving spreads slow drift of a link over all cases instead of "
    "biasing the ones run last. Run ids, case numbers and tag log names stay the same.")
ORDER_SEED_KEY = Key(
    "order_seed", whole(0, MAX_SEED),
    "Seed of order: random (the same seed always gives the same order, so --resume works). Default 0.")
REPEAT_KEYS: tuple[Key, ...] = (WARMUP_KEY, ORDER_KEY, ORDER_SEED_KEY)


def check_repeats(test: TestInput) -> None:
    """``warmup`` must leave runs to count; ``order_seed`` only means something with ``order: random``."""
    merged = test.merged
    warmup, repeat = merged.get("warmup", 0), merged.get("repeat", 1)
    if warmup and warmup >= repeat:
        test.error(f"warmup ({warmup}) must be less than repeat ({repeat}): every run would be a warm-up and no "
                   "statistics would remain", "warmup")
    if "order_seed" in test.raw and merged.get("order", SEQUENTIAL) != RANDOM:
        test.warning("order_seed has no effect without order: random", "order_seed", of_key=True)
