"""``gftpwb trace summary``: where a traced run spent its time, as text. Pure.

* **Latency per operation**: for every I/O op of the workers (``io`` level), else for every kind of
  span (guc's connect, login, data; workers' prepare, wait, run): count, percentiles (nearest rank),
  the maximum, and a histogram in powers of two (as fio's and NetLogger's tools draw them).
* **Slowest intervals**: the sample intervals (between two consecutive samples of a run's channel or
  thread) with the lowest rate, where a transfer or a thread stalled; and the slowest single I/Os.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gftpwb.core.format import human_bytes, latency_text

from .reader import Trace

MIB = 1024 * 1024
BAR = 40


def percentile(sorted_values: Sequence[int], q: float) -> int:
    """Nearest-rank percentile of ascending values (q in 0..100)."""
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def log2_histogram(values: Sequence[int]) -> list[tuple[int, int]]:
    """(upper bound in ns, count) of buckets ``[2^(k-1), 2^k)`` from the smallest to the largest value."""
    counts: dict[int, int] = defaultdict(int)
    for value in values:
        counts[max(0, int(value)).bit_length()] += 1
    if not counts:
        return []
    return [(1 << k, counts.get(k, 0)) for k in range(min(counts), max(counts) + 1)]


@dataclass(frozen=True)
class Interval:
    run: str
    host: str
    track: str
    start_ns: int
    end_ns: int
    bytes: int

    @property
    def rate_mib_s(self) -> float:
        return self.bytes / MIB / ((self.end_ns - self.start_ns) / 1e9)


def intervals(records: Sequence[dict[str, Any]]) -> list[Interval]:
    """Consecutive samples of each (run, host, track) with cumulative ``bytes``, as intervals."""
    last: dict[tuple[str, str, str], tuple[int, int]] = {}
    out: list[Interval] = []
    for r in records:
        if r.get("type") != "sample" or not isinstance(r.get("values", {}).get("bytes"), int):
            continue
        key = (str(r.get("run")), str(r.get("host")), str(r.get("track")))
        now = (int(r["ts"]), int(r["values"]["bytes"]))
        before = last.get(key)
        last[key] = now
        if before is not None and now[0] > before[0] and now[1] >= before[1]:
            out.append(Interval(*key, before[0], now[0], now[1] - before[1]))
    return out


def comparable(found: list[Interval]) -> list[Interval]:
    """Intervals long enough to compare: at least a quarter of the median length (a sample taken right
    after another, at a thread's end or on ``snap``, spans a few microseconds and says nothing)."""
    if not found:
        return []
    lengths = sorted(i.end_ns - i.start_ns for i in found)
    floor = lengths[len(lengths) // 2] / 4
    return [i for i in found if i.end_ns - i.start_ns >= floor]


def _latency_block(title: str, groups: dict[str, list[int]], extra: dict[str, str]) -> list[str]:
    lines = [title, f"  {'op':<16} {'count':>8} {'p50':>10} {'p90':>10} {'p99':>10} {'max':>10}  {'':<12}"]
    for name, values in groups.items():
        values.sort()
        lines.append(f"  {name:<16} {len(values):>8} {latency_text(percentile(values, 50)):>10} "
                     f"{latency_text(percentile(values, 90)):>10} {latency_text(percentile(values, 99)):>10} "
                     f"{latency_text(values[-1]):>10}  {extra.get(name, '')}")
    for name, values in groups.items():
        histogram = log2_histogram(values)
        peak = max(count for _, count in histogram)
        lines.append(f"  {name} latency (count per power of two):")
        for upper, count in histogram:
            bar = "#" * max(1 if count else 0, round(count / peak * BAR))
            lines.append(f"    < {latency_text(upper):>9} {count:>8}  {bar}")
    return lines


def summary_lines(trace: Trace, top: int = 5) -> list[str]:
    lines: list[str] = []
    runs = sorted({str(r.get("run")) for r in trace.records if r.get("type") == "span" and r.get("name") == "run"})
    lines.append(f"{len(runs)} traced run(s), {len(trace.records)} trace record(s), "
                 f"{sum(1 for e in trace.io if e.op != 'level')} I/O event(s)")
    io = [e for e in trace.io if e.op != "level"]
    if io:
        groups: dict[str, list[int]] = defaultdict(list)
        moved: dict[str, int] = defaultdict(int)
        for e in io:
            groups[e.op].append(e.dur)
            moved[e.op] += e.bytes
        samplings = sorted(set(trace.every.values()))
        note = "" if samplings == [1] else f" (sampled: one event in {', '.join(map(str, samplings))} per thread)"
        extra = {op: human_bytes(n) for op, n in moved.items() if n}
        lines += ["", *_latency_block(f"Latency per I/O operation{note}", dict(sorted(groups.items())), extra)]
    spans: dict[str, list[int]] = defaultdict(list)
    for r in trace.records:
        if r.get("type") == "span":
            spans[str(r["name"])].append(int(r["dur"]))
    if spans:
        block = _latency_block("Duration per span", dict(sorted(spans.items())), {})
        lines += ["", *block[: 2 + len(spans)]]  # the table; histograms of spans only when I/O is absent
        if not io:
            lines += block[2 + len(spans):]
    slow = sorted(comparable(intervals(trace.records)), key=lambda i: i.rate_mib_s)[:top]
    origin = min((int(r["ts"]) for r in trace.records if "ts" in r), default=0)
    if slow:
        lines += ["", f"Slowest intervals (lowest rate between two samples; top {len(slow)})",
                  f"  {'run':<24} {'host':<10} {'track':<24} {'at':>9} {'length':>9} {'MiB/s':>10}"]
        for i in slow:
            lines.append(f"  {i.run:<24} {i.host:<10} {i.track:<24} {(i.start_ns - origin) / 1e9:>8.3f}s "
                         f"{(i.end_ns - i.start_ns) / 1e9:>8.3f}s {i.rate_mib_s:>10.1f}")
    if io:
        lines += ["", f"Slowest I/Os (top {min(top, len(io))})",
                  f"  {'run':<24} {'host':<10} {'thread':>6} {'op':<7} {'at':>9} {'latency':>10} {'bytes':>10}"]
        for e in sorted(io, key=lambda e: -e.dur)[:top]:
            lines.append(f"  {e.run:<24} {e.host:<10} {e.thread:>6} {e.op:<7} {(e.ts - origin) / 1e9:>8.3f}s "
                         f"{latency_text(e.dur):>10} {e.bytes:>10}")
    if trace.problems:
        lines += ["", "Problems:"] + [f"  {p}" for p in trace.problems]
    return lines
