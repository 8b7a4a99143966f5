"""Latency histograms: the worker's log-linear buckets, merging, and percentiles. Pure.

The C worker (``gftpwb/kinds/gfapi/worker/gfapi_worker.c``, ``bucket_of``) counts each operation's latency
in nanoseconds into buckets: values below 16 get a bucket each, above that every power of two is
split into 16 equal buckets, so a bucket is at most 6.25 % wide; values of 2^41 ns (~37 min) and
more share the last bucket. Histograms of threads, processes and hosts merge by adding counts,
and a percentile read from the merge lies in the same bucket as the percentile of the raw samples
(nearest-rank definition), which ``tests/test_latency.py`` checks with hypothesis.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

SUB_BITS = 4
SUB_COUNT = 1 << SUB_BITS
MAX_EXP = 40
NBUCKETS = SUB_COUNT + (MAX_EXP - SUB_BITS + 1) * SUB_COUNT


def bucket_of(ns: int) -> int:
    """The bucket index of a latency in nanoseconds (the same mapping as the C worker)."""
    if ns < SUB_COUNT:
        return max(ns, 0)
    e = ns.bit_length() - 1
    if e > MAX_EXP:
        return NBUCKETS - 1
    m = (ns >> (e - SUB_BITS)) & (SUB_COUNT - 1)
    return SUB_COUNT + (e - SUB_BITS) * SUB_COUNT + m


def bucket_bounds(index: int) -> tuple[int, int]:
    """``(low, high)``: the bucket holds latencies ``low <= ns < high`` (the last one is open-ended,
    its high is where it starts to clamp)."""
    if not 0 <= index < NBUCKETS:
        raise ValueError(f"bucket index out of range: {index}")
    if index < SUB_COUNT:
        return index, index + 1
    e = (index - SUB_COUNT) // SUB_COUNT + SUB_BITS
    m = (index - SUB_COUNT) % SUB_COUNT
    shift = e - SUB_BITS
    return (SUB_COUNT + m) << shift, (SUB_COUNT + m + 1) << shift


@dataclass
class Histogram:
    """Counts per bucket (sparse), plus the exact count, sum and maximum of the samples."""

    buckets: dict[int, int] = field(default_factory=dict)
    count: int = 0
    sum_ns: int = 0
    max_ns: int = 0

    def add_delta(self, count: int, sum_ns: int, max_ns: int, buckets: Mapping[int, int]) -> None:
        """Apply one report of the worker: counts since its last report, and the running maximum."""
        self.count += count
        self.sum_ns += sum_ns
        self.max_ns = max(self.max_ns, max_ns)
        for index, n in buckets.items():
            self.buckets[index] = self.buckets.get(index, 0) + n

    def record(self, ns: int) -> None:
        """Count one raw sample (tests and simulations; the worker reports deltas instead)."""
        self.add_delta(1, ns, ns, {bucket_of(ns): 1})

    def merge(self, other: Histogram) -> None:
        self.add_delta(other.count, other.sum_ns, other.max_ns, other.buckets)

    @classmethod
    def merged(cls, histograms: Iterable[Histogram]) -> Histogram:
        out = cls()
        for h in histograms:
            out.merge(h)
        return out

    @property
    def mean_ns(self) -> float | None:
        return self.sum_ns / self.count if self.count else None

    def percentile_bucket(self, p: float) -> int | None:
        """The bucket holding the nearest-rank ``p``-th percentile (0 < p <= 100)."""
        total = sum(self.buckets.values())
        if not total:
            return None
        rank = max(1, math.ceil(p / 100 * total))
        seen = 0
        for index in sorted(self.buckets):
            seen += self.buckets[index]
            if seen >= rank:
                return index
        return max(self.buckets)  # pragma: no cover - rank <= total

    def percentile(self, p: float) -> float | None:
        """The ``p``-th percentile in ns: the middle of its bucket, never above the exact maximum."""
        index = self.percentile_bucket(p)
        if index is None:
            return None
        low, high = bucket_bounds(index)
        value = low if high - low == 1 else (low + high) / 2
        return float(min(value, self.max_ns)) if self.max_ns >= low else float(value)

    def summary_us(self) -> dict[str, float | int | None]:
        """count, mean, p50, p90, p99 and max in microseconds (3 decimals), for records and CSVs."""
        def us(ns: float | None) -> float | None:
            return None if ns is None else round(ns / 1000, 3)
        return {"count": self.count, "mean_us": us(self.mean_ns), "p50_us": us(self.percentile(50)),
                "p90_us": us(self.percentile(90)), "p99_us": us(self.percentile(99)),
                "max_us": us(self.max_ns if self.count else None)}

    def to_json(self) -> dict[str, object]:
        return {"count": self.count, "sum_ns": self.sum_ns, "max_ns": self.max_ns,
                "buckets": {str(k): v for k, v in sorted(self.buckets.items())}}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Histogram:
        raw = data.get("buckets") or {}
        return cls(buckets={int(k): int(v) for k, v in raw.items()}, count=int(data.get("count", 0)),
                   sum_ns=int(data.get("sum_ns", 0)), max_ns=int(data.get("max_ns", 0)))


def nearest_rank(samples: list[int], p: float) -> int:
    """The nearest-rank percentile of raw samples (the definition the histogram follows)."""
    ordered = sorted(samples)
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]
