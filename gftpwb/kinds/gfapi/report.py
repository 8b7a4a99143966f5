"""gfapi results for people: a one-line headline per run and a per-case table. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Any

from gftpwb.core.format import human_bytes
from gftpwb.core.format import rate_text as _f
from gftpwb.core.records import PASSED, ResultRecord
from gftpwb.core.registry import ReportTable
from gftpwb.core.units import format_size_arg


def gfapi_headline(record: ResultRecord) -> str:
    """'2000 files, 125.00 MiB: 995.4 MiB/s, 15926 files/s, 63705 IOPS (last done, 0.126s); ...'."""
    g: dict[str, Any] = record.details.get("gfapi") or {}
    cluster = g.get("cluster") or {}
    last = cluster.get("last_done") or {}
    first = cluster.get("first_done") or {}
    files_only = not cluster.get("bytes") and not cluster.get("ios")  # unlink: only files/s mean anything
    if files_only:
        text = (f"{cluster.get('files', 0)} files: {_f(last.get('files_s'), 0)} files/s "
                f"(last done, {_f(last.get('seconds'), 3)}s)")
    else:
        text = (f"{cluster.get('files', 0)} files, {human_bytes(cluster.get('bytes'))}: {_f(last.get('mib_s'))} "
                f"MiB/s, {_f(last.get('files_s'), 0)} files/s, {_f(last.get('iops'), 0)} IOPS "
                f"(last done, {_f(last.get('seconds'), 3)}s)")
    if first:
        text += "; first done " + ("" if files_only else f"{_f(first.get('mib_s'))} MiB/s, ")
        text += f"{_f(first.get('files_s'), 0)} files/s"
        if first.get("pct_done") is not None:
            text += f" at {first['pct_done']:.1f} % of the work"
    if g.get("start_skew_ms") is not None:
        text += f"; start skew {g['start_skew_ms']:.2f} ms"
    return text


def setup_text(params: dict[str, Any]) -> str:
    """'seq-wr 1x2x2 500x64K/16K': workload, hosts x processes x threads, files x file size / record size."""
    hosts = len(params.get("hosts", ["local"]))
    size = format_size_arg(int(params.get("file_size", 0)))
    record = format_size_arg(int(params.get("record_size", 0)))
    extra = " direct" if params.get("direct") else ""
    extra += " fsync" if params.get("fsync") else ""
    return (f"{params.get('workload', '?')} {hosts}x{params.get('processes', 1)}x{params.get('threads', 1)} "
            f"{params.get('files', 0)}x{size}/{record}{extra}")


@dataclass(frozen=True)
class GfapiCaseSummary:
    test_id: str
    case: int
    setup: str
    runs: int
    passed: int
    last_mib_s: float | None
    last_files_s: float | None
    last_iops: float | None
    first_mib_s: float | None
    first_pct: float | None
    max_skew_ms: float | None


def _mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


def summarize_gfapi_cases(records: Sequence[ResultRecord]) -> list[GfapiCaseSummary]:
    """One row per (test, case) in first-seen order; means over passed runs."""
    groups: dict[tuple[str, int], list[ResultRecord]] = {}
    for record in records:
        groups.setdefault((record.test_id, record.case), []).append(record)
    rows = []
    for (test_id, case), group in groups.items():
        ok = [r.details.get("gfapi") or {} for r in group if r.status == PASSED]
        last = [(g.get("cluster") or {}).get("last_done") or {} for g in ok]
        first = [(g.get("cluster") or {}).get("first_done") or {} for g in ok]
        skews = [g.get("start_skew_ms") for g in ok if g.get("start_skew_ms") is not None]
        rows.append(GfapiCaseSummary(
            test_id=test_id, case=case, setup=setup_text(group[0].params), runs=len(group), passed=len(ok),
            last_mib_s=_mean([x.get("mib_s") for x in last]), last_files_s=_mean([x.get("files_s") for x in last]),
            last_iops=_mean([x.get("iops") for x in last]), first_mib_s=_mean([x.get("mib_s") for x in first]),
            first_pct=_mean([x.get("pct_done") for x in first]), max_skew_ms=max(skews) if skews else None))
    return rows


def tables(records: Sequence[ResultRecord]) -> list[ReportTable]:
    """One row per case: means of the passed runs at last done, first done, and the worst start skew."""
    columns = (("test", "left"), ("#", "right"), ("workload hosts x procs x threads files", "left"),
               ("ok/runs", "right"), ("MiB/s", "right"), ("files/s", "right"), ("IOPS", "right"),
               ("first done MiB/s", "right"), ("% done", "right"), ("max skew ms", "right"))
    rows = tuple(((row.test_id, f"{row.case:03d}", row.setup, f"{row.passed}/{row.runs}", _f(row.last_mib_s),
                   _f(row.last_files_s, 0), _f(row.last_iops, 0), _f(row.first_mib_s), _f(row.first_pct),
                   _f(row.max_skew_ms, 2)), "" if row.passed == row.runs else "red")
                 for row in summarize_gfapi_cases(records))
    return [ReportTable("gfapi results (means of passed runs; MiB/s, files/s, IOPS at last done)",
                        "first done: stonewalled when the first thread finished; skew: latest minus earliest "
                        "thread start", columns, rows)]

