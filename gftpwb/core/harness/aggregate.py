"""The aggregate of runs that ran at the same time: a run's copies (a test's ``concurrency``), and a
test's runs on several hosts at once (``on: [client1, client2]``): what they did together.

Pure: computed from the runs' records alone (their bytes, rates and UTC start and end times, and the
``group`` they started in), so it can be recomputed from ``results.jsonl`` at any time, and a resumed
run that finishes the last copies gives the same aggregate as an uninterrupted one.
``aggregates.jsonl`` in the results directory keeps one line per group whose runs all finished; the
reports make them again from the records (:func:`concurrent_aggregates`), so a directory that has no
such file (older, or imported) gets them too.

The figure of the group is **together**: all their bytes over the span from the first start to the
last end, what the servers or the links carried. Their rates added up (``sum``) are shown beside it,
never instead: runs that did not fully overlap add up to more than what moved at once.
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
    """The aggregate of the final ``records`` of runs that started together (copies, hosts: every one's)."""
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


def group_of(record: ResultRecord) -> str:
    """The group a run started in with others ("" when it ran alone)."""
    group = record.details.get("group")
    return group if isinstance(group, str) else ""


def concurrent_groups(records: Sequence[ResultRecord]) -> dict[str, list[ResultRecord]]:
    """Runs that started together, by group (first-seen order): groups of more than one run only."""
    groups: dict[str, list[ResultRecord]] = {}
    for record in records:
        group = group_of(record)
        if group:
            groups.setdefault(group, []).append(record)
    return {group: runs for group, runs in groups.items() if len(runs) > 1}


def concurrent_aggregates(records: Sequence[ResultRecord]) -> list[CopiesAggregate]:
    """The aggregate of every group of runs that ran at the same time among ``records`` (each run's latest
    record, as reports count them)."""
    return [aggregate(group, runs) for group, runs in concurrent_groups(records).items()]


def together_note(records: Sequence[ResultRecord]) -> str:
    """A case's note when its runs ran several at a time: ``2 at once (client1, client2): together 512.3
    MiB/s, median of 2 groups``; its per-run figures are each run's own, this is what they moved at once.
    Only groups whose runs all passed (and are not warm-ups) count. "" when none ran with others."""
    groups = [runs for runs in concurrent_groups(records).values()
              if all(r.status == PASSED and not r.details.get("warmup") for r in runs)]
    figures = [a.throughput_mib_s for a in (aggregate(group_of(runs[0]), runs) for runs in groups)
               if a.throughput_mib_s is not None]
    if not figures:
        return ""
    sizes = sorted({len(runs) for runs in groups})
    hosts = sorted({r.host for runs in groups for r in runs})
    at_once = "/".join(str(n) for n in sizes)
    where = f" ({', '.join(hosts)})" if len(hosts) > 1 else ""
    median = statistics.median(figures)
    return (f"{at_once} at once{where}: together {rate_text(median)} MiB/s (first start to last end), "
            f"{'median of ' + str(len(figures)) + ' groups' if len(figures) > 1 else '1 group'}")


def summary_text(item: CopiesAggregate) -> str:
    """One line for a console or a log: ``3/3 passed  sum 342.1 MiB/s  9.00 MiB in 0.301s (29.9 MiB/s together)
    done spread 0.25s``."""
    parts = [f"{item.passed}/{item.copies} passed"]
    if item.rate_sum_mib_s is not None:
        parts.append(f"sum {rate_text(item.rate_sum_mib_s)} MiB/s")
    if item.bytes is not None and item.wall_seconds:
        together = rate_text(item.throughput_mib_s)
        parts.append(f"{human_bytes(item.bytes)} in {item.wall_seconds:.3f}s ({together} MiB/s together)")
    if item.rate_min_mib_s is not None and item.rate_max_mib_s is not None and item.passed > 1:
        parts.append(f"per run {rate_text(item.rate_min_mib_s)}..{rate_text(item.rate_max_mib_s)} MiB/s")
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
        title="Runs at the same time: copies, hosts (rates in MiB/s)",
        caption="together: all their bytes over the span from the first start to the last end (what moved at "
                "once); sum: the runs' rates added up.",
        columns=(("run", "left"), ("ok/copies", "right"), ("sum", "right"), ("together", "right"),
                 ("bytes", "right"), ("min", "right"), ("max", "right"), ("start spread s", "right"),
                 ("done spread s", "right")),
        rows=rows)
