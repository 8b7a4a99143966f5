"""``delay:`` before each run or copy: exact (``2s``) or random (``{uniform: [0s, 5s]}``,
``{exponential: 1s}``), drawn at planning time from the scenario's ``seed`` and the run's id.

A draw depends on nothing else (not on which runs ``--only`` selects, nor on the order runs start),
so the same scenario and seed always give every run the same delay: ``plan.json`` shows it, the
record repeats it, and a run can be replayed exactly.
"""

from __future__ import annotations

import math
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
        u = run_uniform(seed, key)
        if self.kind == UNIFORM:
            return round(self.low + (self.high - self.low) * u, 6)
        return round(-self.low * math.log1p(-u), 6)  # inverse transform of the exponential distribution

    def describe(self) -> str:
        if self.kind == FIXED:
            return format_duration(self.low)
        if self.kind == UNIFORM:
            return f"uniform {format_duration(self.low)}..{format_duration(self.high)}"
        return f"exponential, mean {format_duration(self.low)}"


def run_uniform(seed: int, key: str) -> float:
    """A number in [0, 1) that is a function of the seed and the key only (53 bits of their SHA-256),
    the same on every machine and Python version; cheap enough for plans of millions of runs."""
    import hashlib  # only for a jittered delay: OpenSSL is a noticeable part of a quick command

    digest = hashlib.sha256(f"{seed}\0{key}".encode()).digest()
    return (int.from_bytes(digest[:8], "big") >> 11) / 9007199254740992.0  # 2**53


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
