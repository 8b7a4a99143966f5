"""gfapi results for people: a one-line headline per run and a per-case table. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gftpwb.core.format import ci_text, cv_text, human_bytes
from gftpwb.core.format import rate_text as _f
from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import ReportTable
from gftpwb.core.report import case_notes, mean
from gftpwb.core.summary import CaseSummary, summarize_cases
from gftpwb.core.units import format_size_arg


def gfapi_headline(record: ResultRecord) -> str:
    """'2000 files, 125.00 MiB: 995.4 MiB/s, 15926 files/s, 63705 IOPS (last done, 0.126s); ...'."""
    g: dict[str, Any] = record.details.get("gfapi") or {}
    cluster = g.get("cluster") or {}
    last = cluster.get("last_done") or {}
    first = cluster.get("first_done") or {}
    files_only = cluster.get("bytes", 0) == 0 and cluster.get("ios", 0) == 0  # unlink: only files/s mean anything
    counted = "" if cluster.get("files") is None else f"{cluster['files']} files"  # imported results may not know
    if files_only:
        counted += found_text(g.get("found_file_sizes") or ())
        text = (f"{counted or 'files'}: {_f(last.get('files_s'), 0)} files/s "
                f"(last done, {_f(last.get('seconds'), 3)}s)")
    else:
        size = "" if cluster.get("bytes") is None else human_bytes(cluster.get("bytes"))
        text = (f"{', '.join(x for x in (counted, size) if x) or 'rates'}: {_f(last.get('mib_s'))} "
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


def found_text(sizes: Sequence[int]) -> str:
    """' of 64K' (the size of the files a run found before its start), ' of 4K to 64K', or ''."""
    if not sizes:
        return ""
    low, high = format_size_arg(min(sizes)), format_size_arg(max(sizes))
    return f" of {low}" if low == high else f" of {low} to {high}"


def setup_text(params: dict[str, Any], found_sizes: Sequence[int] = ()) -> str:
    """'seq-wr 1x2x2 500x64K/16K': workload, hosts x processes x threads, files x file size / record size.
    An operation that moves no data (unlink) uses neither size: 'unlink 1x1x4 200 files of 64K', the
    size being that of the files its runs found (``found_sizes``), when known."""
    hosts = len(params.get("hosts", ["local"]))
    layout = f"{params.get('workload', '?')} {hosts}x{params.get('processes', 1)}x{params.get('threads', 1)}"
    if params.get("workload") == "unlink":
        return f"{layout} {params.get('files', 0)} files{found_text(found_sizes)}"
    size = format_size_arg(int(params.get("file_size", 0)))
    record = format_size_arg(int(params.get("record_size", 0)))
    extra = " direct" if params.get("direct") else ""
    extra += " fsync" if params.get("fsync") else ""
    return f"{layout} {params.get('files', 0)}x{size}/{record}{extra}"


def _median(case: CaseSummary, key: str, digits: int) -> str:
    figure = case.figure(key)
    return _f(figure.stats.median if figure and figure.stats else None, digits)


def _counted(case: CaseSummary) -> list[dict[str, Any]]:
    return [r.record.details.get("gfapi") or {} for r in case.runs if r.counted]


def case_row(case: CaseSummary) -> tuple[tuple[str, ...], str]:
    """One row: medians at last done, files/s mean ± CI and CV, first done and the worst start skew."""
    files = case.figure("files_s")
    stats = files.stats if files else None
    half = stats.ci_mean.half_width if stats and stats.ci_mean else None
    counted = _counted(case)
    first = [((g.get("cluster") or {}).get("first_done") or {}) for g in counted]
    skews = [g["start_skew_ms"] for g in counted if g.get("start_skew_ms") is not None]
    notes = case_notes(case)
    imported = sum(1 for g in counted if g.get("imported"))
    if imported:  # other tools' totals: a sum of per-process rates, not one common window
        notes = "; ".join(n for n in (f"{imported} imported: sums of per-process rates", notes) if n)
    found = sorted({size for r in case.runs for size in (r.record.details.get("gfapi") or {}).get("found_file_sizes")
                    or ()})
    cells = (case.test_id, f"{case.case:03d}", setup_text(case.params, found), f"{case.passed}/{case.total}",
             _median(case, "files_s", 0), ci_text(stats.mean if stats else None, half, 0),
             cv_text(stats.cv if stats else None), _median(case, "mib_s", 1), _median(case, "iops", 0),
             _f(mean([x.get("mib_s") for x in first])), _f(mean([x.get("pct_done") for x in first])),
             _f(max(skews) if skews else None, 2), notes)
    return cells, "" if case.passed == case.total else "red"


COLUMNS = (("test", "left"), ("#", "right"), ("workload hosts x procs x threads files", "left"),
           ("ok/runs", "right"), ("files/s", "right"), ("mean ± 95 % CI", "right"), ("CV", "right"),
           ("MiB/s", "right"), ("IOPS", "right"), ("first done MiB/s", "right"), ("% done", "right"),
           ("max skew ms", "right"), ("notes", "left"))


def tables(records: Sequence[ResultRecord]) -> list[ReportTable]:
    """One row per case: statistics of the counted runs at last done, first done, and the worst start skew."""
    rows = tuple(case_row(case) for case in summarize_cases(records))
    return [ReportTable("gfapi results (medians of passed runs at last done; files/s also mean ± 95 % CI and CV)",
                        "first done: stonewalled when the first thread finished (means); skew: latest minus "
                        "earliest thread start. Warm-ups are not counted.", COLUMNS, rows, keys=2)]
