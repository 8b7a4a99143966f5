"""``delay:`` before each run or copy: exact (``2s``) or random (``{uniform: [0s, 5s]}``,
``{exponential: 1s}``), drawn at planning time from the scenario's ``seed`` and the run's id.

A draw depends on nothing else (not on which runs ``--only`` selects, nor on the order runs start),
so the same scenario and seed always give every run the same delay: ``plan.json`` shows it, the
record repeats it, and a run can be replayed exactly.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from typing import Any

from gftpwb.core.units import format_duration, parse_duration

FIXED = "fixed"
UNIFORM = "uniform"
EXPONENTIAL = "exponential"


@dataclass(frozen=True)
class Delay:
    """A delay distribution: ``fixed`` (``low`` seconds), ``uniform`` on [low, high], ``exponential``
    with mean ``low``."""

    kind: str
    low: float
    high: float = 0.0

    @property
    def random(self) -> bool:
        return self.kind != FIXED

    def draw(self, seed: int, key: str) -> float:
        """The delay of the run ``key`` (its run id) in seconds, rounded to the microsecond."""
        if self.kind == FIXED:
            return round(self.low, 6)
        rng = run_random(seed, key)
        if self.kind == UNIFORM:
            return round(rng.uniform(self.low, self.high), 6)
        return round(rng.expovariate(1.0 / self.low), 6) if self.low > 0 else 0.0

    def describe(self) -> str:
        if self.kind == FIXED:
            return format_duration(self.low)
        if self.kind == UNIFORM:
            return f"uniform {format_duration(self.low)}..{format_duration(self.high)}"
        return f"exponential, mean {format_duration(self.low)}"


def run_random(seed: int, key: str) -> random.Random:
    """A generator that is a function of the seed and the key only (not of Python's hash seed)."""
    digest = hashlib.sha256(f"{seed}\0{key}".encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def parse_delay(value: Any) -> Delay:
    """The DSL value (already valid against the schema) as a Delay."""
    if isinstance(value, dict):
        if UNIFORM in value:
            low, high = value[UNIFORM]
            return Delay(UNIFORM, parse_duration(low), parse_duration(high))
        return Delay(EXPONENTIAL, parse_duration(value[EXPONENTIAL]))
    return Delay(FIXED, parse_duration(value))


def delay_problem(value: Any) -> str | None:
    """What is wrong with a delay the schema accepts (a uniform range that runs backwards), or None."""
    if isinstance(value, dict) and UNIFORM in value:
        low, high = (parse_duration(v) for v in value[UNIFORM])
        if low > high:
            return f"delay: uniform range runs backwards ({format_duration(low)} > {format_duration(high)})"
    return None
