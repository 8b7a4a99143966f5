"""gfapi results for people: a one-line headline per run and a per-case table. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median
from typing import Any

from gftpwb.core.format import cv_text, human_bytes
from gftpwb.core.format import rate_text as _f
from gftpwb.core.intervals import MEAN_LEGEND
from gftpwb.core.records import PASSED, ResultRecord
from gftpwb.core.registry import ReportTable, value_at
from gftpwb.core.report import MEAN_CI_COLUMN, N_COLUMN, case_notes, mean, mean_cell, n_cell
from gftpwb.core.summary import CaseSummary, summarize_cases
from gftpwb.core.units import format_size_arg

from .timing import LIMIT_PCT, short_text, too_short

# What a gfapi run's main figures span, said once for the headline and the live line's last sample.
LAST_DONE_SPAN = "last done: first thread start to last thread end"


def gfapi_headline(record: ResultRecord) -> str:
    """'2000 files, 125.00 MiB: 995.4 MiB/s, 15926 files/s, 63705 IOPS (last done: first thread start to last
    thread end, 0.126s); ...': each figure with the window it spans, and a run too short for its timing's
    error (:mod:`.timing`) says so and how to make it long enough."""
    g: dict[str, Any] = record.details.get("gfapi") or {}
    text = figures_text(g.get("cluster") or {}, g.get("found_file_sizes") or ())
    if g.get("start_skew_ms") is not None:
        text += f"; start skew {g['start_skew_ms']:.2f} ms"
    short = short_text(g)
    return f"{text}; {short}" if short else text


def partial_headline(record: ResultRecord) -> str:
    """What a run that did not pass still measured, when some of its threads finished: 'partial result,
    4 of 8 threads: h1: 12000 files, ...; failed: h2 (threads 4-7)'; "" otherwise."""
    g: dict[str, Any] = record.details.get("gfapi") or {}
    part = g.get("partial")
    if not part:
        return ""
    failed = ", ".join(f"{host} (threads {labels})" for host, labels in part["failed_threads"].items())
    return (f"partial result, {part['spans']}: {figures_text(part['survivors'], g.get('found_file_sizes') or ())}"
            + (f"; failed: {failed}" if failed else "; every thread finished, the run's end failed"))


# How gftpwb's own gfapi runs are measured (compare tells it from an imported tool's way); an imported record
# says its own, with the same names.
SLEEP_PER_FILE = "sleep per file (in the timed loop)"
OWN_MEASUREMENT = {"tool": "gftpwb", "aggregate": "all threads' work over one common window (first thread start to "
                   "last thread end)", SLEEP_PER_FILE: "none"}


def measurement(record: ResultRecord) -> dict[str, str]:
    """How a gfapi record's figures were measured: an imported one says (``details.gfapi.measurement``;
    older imports by their ``imported`` block), gftpwb's own are :data:`OWN_MEASUREMENT`."""
    g: dict[str, Any] = record.details.get("gfapi") or {}
    given = g.get("measurement")
    if isinstance(given, dict) and given:
        return {str(k): str(v) for k, v in given.items()}
    imported = g.get("imported")
    if isinstance(imported, dict):
        return {"tool": str(imported.get("tool", "another tool")), "aggregate": str(imported.get("aggregation", "?")),
                SLEEP_PER_FILE: "unknown"}
    return dict(OWN_MEASUREMENT)


def remarks(record: ResultRecord) -> tuple[str, ...]:
    """Short words on a finished run for the front ends' notes: 'too short', 'partial: 4 of 8 threads'."""
    g: dict[str, Any] = record.details.get("gfapi") or {}
    out = []
    if too_short(g) and record.status == PASSED:
        out.append("too short to publish")
    part = g.get("partial")
    if part and record.status != PASSED:
        out.append(f"partial: {part['threads_ok']} of {part['threads']} threads")
    return tuple(out)


def run_facts(record: ResultRecord) -> dict[str, str | float | int | bool | None]:
    """What a report says of one gfapi run besides its figures (``report --json``'s facts)."""
    g: dict[str, Any] = record.details.get("gfapi") or {}
    t = g.get("timing") or {}
    facts: dict[str, str | float | int | bool | None] = {}
    if t:
        last = t.get("last_done") or {}
        facts.update(too_short=bool(last.get("too_short")), timing_share_pct=last.get("share_pct"),
                     timing_limit_pct=t.get("limit_pct"))
    part = g.get("partial")
    if part:
        last = part["survivors"].get("last_done") or {}
        facts.update(partial=part["spans"], partial_files_s=last.get("files_s"), partial_mib_s=last.get("mib_s"),
                     partial_iops=last.get("iops"), partial_seconds=last.get("seconds"))
    return facts


def figures_text(group: dict[str, Any], found_sizes: Sequence[int]) -> str:
    """A group of threads' counters and rates, each rate with the window it spans."""
    last = group.get("last_done") or {}
    first = group.get("first_done") or {}
    files_only = group.get("bytes", 0) == 0 and group.get("ios", 0) == 0  # unlink: only files/s mean anything
    counted = "" if group.get("files") is None else f"{group['files']} files"  # imported results may not know
    if files_only:
        counted += found_text(found_sizes)
        text = f"{counted or 'files'}: {_f(last.get('files_s'), 0)} files/s"
    else:
        size = "" if group.get("bytes") is None else human_bytes(group.get("bytes"))
        text = (f"{', '.join(x for x in (counted, size) if x) or 'rates'}: {_f(last.get('mib_s'))} "
                f"MiB/s, {_f(last.get('files_s'), 0)} files/s, {_f(last.get('iops'), 0)} IOPS")
    text += f" ({LAST_DONE_SPAN}, {_f(last.get('seconds'), 3)}s)"
    if first:
        text += "; first done " + ("" if files_only else f"{_f(first.get('mib_s'))} MiB/s, ")
        text += f"{_f(first.get('files_s'), 0)} files/s (at {_f(first.get('seconds'), 3)}s"
        if first.get("pct_done") is not None:
            text += f", {first['pct_done']:.1f} % of the work done"
        text += ")"
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
    """One row: medians at last done, files/s mean with its interval and CV, first done and the worst
    start skew."""
    files = case.figure("files_s")
    stats = files.stats if files else None
    counted = _counted(case)
    first = [((g.get("cluster") or {}).get("first_done") or {}) for g in counted]
    skews = [g["start_skew_ms"] for g in counted if g.get("start_skew_ms") is not None]
    notes = case_notes(case)
    imported = sum(1 for g in counted if g.get("imported"))
    if imported:  # other tools' totals: a sum of per-process rates, not one common window
        delays = sorted({measurement(r.record).get(SLEEP_PER_FILE, "none") for r in case.runs if r.counted}
                        - {"none", "unknown"})
        slept = f", {' or '.join(delays)} sleep after each file" if delays else ""
        notes = "; ".join(n for n in (f"{imported} imported: sums of per-process rates{slept}", notes) if n)
    short = sum(1 for g in counted if too_short(g))
    if short:
        notes = "; ".join(n for n in (f"{short} of {len(counted)} too short to publish", notes) if n)
    found = sorted({size for r in case.runs for size in (r.record.details.get("gfapi") or {}).get("found_file_sizes")
                    or ()})
    cells = (case.test_id, f"{case.case:03d}", setup_text(case.params, found), f"{case.passed}/{case.total}",
             n_cell(files), _median(case, "files_s", 0), mean_cell(stats, 0),
             cv_text(stats.cv if stats else None), _median(case, "mib_s", 1), _median(case, "iops", 0),
             _f(mean([x.get("mib_s") for x in first])), _f(mean([x.get("pct_done") for x in first])),
             _f(max(skews) if skews else None, 2), notes)
    return cells, "" if case.passed == case.total else "red"


def partial_row(case: CaseSummary) -> tuple[tuple[str, ...], str] | None:
    """A row under a case for its runs that did not pass but whose surviving threads finished (a lost host):
    the survivors' figures (medians over those runs), apart from the passed runs' statistics, and which
    hosts and threads they span. None when the case has no such run."""
    parts = [(r, (r.record.details.get("gfapi") or {}).get("partial")) for r in case.runs
             if not r.counted and not r.warmup]
    parts = [(r, p) for r, p in parts if p]
    if not parts:
        return None

    def values_of(path: tuple[str, ...]) -> list[float]:
        return [v for v in (value_at(p["survivors"], path) for _, p in parts) if v is not None]

    def median_of(path: tuple[str, ...]) -> float | None:
        values = values_of(path)
        return median(values) if values else None

    spans = "; ".join(dict.fromkeys(p["spans"] for _, p in parts))
    failed = "; ".join(dict.fromkeys(", ".join(f"{h} threads {t}" for h, t in p["failed_threads"].items())
                                     or "no thread" for _, p in parts))
    skews = [p["survivors"].get("start_skew_ms") for _, p in parts if p["survivors"].get("start_skew_ms") is not None]
    n = len(values_of(("last_done", "files_s")))  # the runs the survivors' files/s rests on
    cells = ("", "", f"partial: {spans}", f"{len(parts)} partial", str(n), _f(median_of(("last_done", "files_s")), 0),
             "", "",
             _f(median_of(("last_done", "mib_s")), 1), _f(median_of(("last_done", "iops")), 0),
             _f(median_of(("first_done", "mib_s"))), _f(median_of(("first_done", "pct_done"))),
             _f(max(skews) if skews else None, 2),
             f"{', '.join(r.run_id for r, _ in parts)}: survivors only (failed: {failed})")
    return cells, "yellow"


COLUMNS = (("test", "left"), ("#", "right"), ("workload hosts x procs x threads files", "left"),
           ("ok/runs", "right"), (N_COLUMN, "right"), ("files/s", "right"), (MEAN_CI_COLUMN, "right"), ("CV", "right"),
           ("MiB/s", "right"), ("IOPS", "right"), ("first done MiB/s", "right"), ("% done", "right"),
           ("max skew ms", "right"), ("notes", "left"))


def tables(records: Sequence[ResultRecord]) -> list[ReportTable]:
    """One row per case: statistics of the counted runs at last done, first done, and the worst start skew;
    under a case, a row of its partial runs' surviving threads. The caption explains the notes shown."""
    rows = []
    short = partial = False
    for case in summarize_cases(records):
        rows.append(case_row(case))
        short = short or any(too_short(g) for g in _counted(case))
        extra = partial_row(case)
        if extra is not None:
            rows.append(extra)
            partial = True
    caption = (f"n: the runs files/s rests on; {MEAN_LEGEND}. first done: stonewalled when the first thread "
               "finished (means); skew: latest minus earliest thread start. Warm-ups are not counted.")
    if short:
        caption += (f" Too short to publish: start skew, clock uncertainty and resolution are over {LIMIT_PCT:g} % "
                    "of the run; make it longer with more files per thread or larger files.")
    if partial:
        caption += (" partial: runs that failed on some hosts or threads, the figures of the threads that finished, "
                    "over their own window.")
    return [ReportTable("gfapi results (medians of passed runs at last done; files/s also mean [95 % CI] and CV)",
                        caption, COLUMNS, tuple(rows), keys=2)]
