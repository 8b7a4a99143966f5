"""The aggregate of a run's copies (a test's ``concurrency``): what the copies did together.

Pure: computed from the copies' records alone (their bytes, rates and UTC start and end times),
so it can be recomputed from ``results.jsonl`` at any time, and a resumed run that finishes the
last copies gives the same aggregate as an uninterrupted one. ``aggregates.jsonl`` in the results
directory keeps one line per run whose copies all finished.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from gftpwb.core.format import human_bytes, rate_text
from gftpwb.core.records import PASSED, ResultRecord
from gftpwb.core.registry import ReportTable


@dataclass(frozen=True)
class CopiesAggregate:
    """The copies of one run together.

    ``rate_sum_mib_s`` is the sum of the passed copies' rates (what each copy saw, added up, as
    iperf's SUM line); ``throughput_mib_s`` is all their bytes over the wall time from the first
    start to the last end (what the server or link carried). ``done_spread_s`` is the time between
    the first and the last copy to finish, ``start_spread_s`` the same for their starts (delays
    included), and the rate figures describe how evenly the copies shared the resource.
    """

    group: str  # the run id without copy and host: <test>[<case>]/<repeat>, with loop<k>/ when looping
    scenario: str
    test_id: str
    case: int
    repeat: int
    kind: str
    copies: int  # how many copies ran (every host's)
    statuses: dict[str, int]
    bytes: int | None
    rate_sum_mib_s: float | None
    throughput_mib_s: float | None
    rate_min_mib_s: float | None
    rate_max_mib_s: float | None
    rate_mean_mib_s: float | None
    rate_stdev_mib_s: float | None
    first_started_at: str
    last_started_at: str
    first_done_at: str
    last_done_at: str
    start_spread_s: float | None
    done_spread_s: float | None
    wall_seconds: float | None
    hosts: list[str] = field(default_factory=list)
    loop: int | None = None

    @property
    def passed(self) -> int:
        return self.statuses.get(PASSED, 0)

    @property
    def all_passed(self) -> bool:
        return self.passed == self.copies

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CopiesAggregate:
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in known})


def _time(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text) if text else None
    except ValueError:
        return None


def _spread(times: list[datetime]) -> float | None:
    return round((max(times) - min(times)).total_seconds(), 6) if times else None


def _iso(times: list[datetime], pick: Any) -> str:
    return pick(times).isoformat(timespec="microseconds") if times else ""


def aggregate(group: str, records: Sequence[ResultRecord]) -> CopiesAggregate:
    """The aggregate of the copies' final ``records`` (one per copy, every host's)."""
    first = records[0]
    rates = [r.rate_incl_setup_mib_s for r in records if r.status == PASSED and r.rate_incl_setup_mib_s is not None]
    sizes = [r.bytes for r in records if r.bytes is not None]
    starts = [t for t in (_time(r.started_at) for r in records) if t is not None]
    ends = [t for t in (_time(r.ended_at) for r in records) if t is not None]
    wall = round((max(ends) - min(starts)).total_seconds(), 6) if starts and ends else None
    total = sum(sizes) if sizes else None
    loop = first.details.get("loop")
    return CopiesAggregate(
        group=group, scenario=first.scenario, test_id=first.test_id, case=first.case, repeat=first.repeat,
        kind=first.kind, copies=len(records), statuses=dict(Counter(r.status for r in records)), bytes=total,
        rate_sum_mib_s=round(sum(rates), 6) if rates else None,
        throughput_mib_s=round(total / 1048576 / wall, 6) if total is not None and wall else None,
        rate_min_mib_s=round(min(rates), 6) if rates else None, rate_max_mib_s=round(max(rates), 6) if rates else None,
        rate_mean_mib_s=round(statistics.fmean(rates), 6) if rates else None,
        rate_stdev_mib_s=round(statistics.stdev(rates), 6) if len(rates) > 1 else None,
        first_started_at=_iso(starts, min), last_started_at=_iso(starts, max),
        first_done_at=_iso(ends, min), last_done_at=_iso(ends, max),
        start_spread_s=_spread(starts), done_spread_s=_spread(ends), wall_seconds=wall,
        hosts=sorted({r.host for r in records}), loop=loop if isinstance(loop, int) else None,
    )


def summary_text(item: CopiesAggregate) -> str:
    """One line for a console or a log: ``3/3 passed  sum 342.1 MiB/s  9.00 MiB in 0.301s (29.9 MiB/s)
    done spread 0.25s``."""
    parts = [f"{item.passed}/{item.copies} passed"]
    if item.rate_sum_mib_s is not None:
        parts.append(f"sum {rate_text(item.rate_sum_mib_s)} MiB/s")
    if item.bytes is not None and item.wall_seconds:
        together = rate_text(item.throughput_mib_s)
        parts.append(f"{human_bytes(item.bytes)} in {item.wall_seconds:.3f}s ({together} MiB/s together)")
    if item.rate_min_mib_s is not None and item.rate_max_mib_s is not None and item.passed > 1:
        parts.append(f"per copy {rate_text(item.rate_min_mib_s)}..{rate_text(item.rate_max_mib_s)} MiB/s")
    if item.done_spread_s is not None:
        parts.append(f"done spread {item.done_spread_s:.3f}s")
    return "  ".join(parts)


def copies_table(items: Sequence[CopiesAggregate]) -> ReportTable:
    """The report's table of the copies' aggregates, one row per run."""
    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    rows = tuple(((item.group, f"{item.passed}/{item.copies}", rate_text(item.rate_sum_mib_s),
                   rate_text(item.throughput_mib_s), human_bytes(item.bytes), rate_text(item.rate_min_mib_s),
                   rate_text(item.rate_max_mib_s), seconds(item.start_spread_s), seconds(item.done_spread_s)),
                  "" if item.all_passed else "red") for item in items)
    return ReportTable(
        title="Concurrent copies (rates in MiB/s)",
        caption="sum: the copies' rates added up; together: all their bytes over first start to last end.",
        columns=(("run", "left"), ("ok/copies", "right"), ("sum", "right"), ("together", "right"),
                 ("bytes", "right"), ("min", "right"), ("max", "right"), ("start spread s", "right"),
                 ("done spread s", "right")),
        rows=rows)
