"""guc results for people: the console's line for a run, and the report's table of cases (their
statistics from :mod:`gftpwb.core.summary`). Pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gftpwb.core.format import cv_text, human_bytes, rate_text
from gftpwb.core.intervals import MEAN_LEGEND
from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import ReportTable, registry
from gftpwb.core.report import MEAN_CI_COLUMN, N_COLUMN, case_notes, mean_cell, n_cell
from gftpwb.core.summary import CaseSummary, summarize_cases

from .driver import option_args
from .model import GucOptions
from .sizing import FROM_LISTING

MIB_NOTE = "MB and MiB both mean 2^20 bytes here, as in guc and tgftp."


def params_text(params: dict[str, Any]) -> str:
    """guc flags, as tgftp users read them: ``-p 4 -tcp-bs 8M -len 4G``."""
    try:
        return " ".join(option_args(GucOptions.from_mapping(dict(params))))
    except (TypeError, ValueError, KeyError):
        return " ".join(f"{k}={v}" for k, v in params.items())


def headline(record: ResultRecord) -> str:
    text = (f"{human_bytes(record.bytes)} in {record.seconds or 0:.3f}s  "
            f"{rate_text(record.rate_incl_setup_mib_s)} MiB/s incl. set-up  "
            f"{rate_text(record.rate_guc_avg_mib_s)} MiB/s guc avg")
    stripes = (record.details.get("stripes") or {}).get("stripes") or []
    if stripes:  # a striped transfer read with -dbg: each stripe's rate from its performance markers
        text += f"  {len(stripes)} stripes: " + ", ".join(rate_text(s.get("mib_s")) for s in stripes) + " MiB/s"
    return text


def engine_marks(records: Sequence[ResultRecord]) -> str:
    """`` SIMULATED`` when some records come from an engine other than the real one."""
    labels = sorted({registry().engine_label(r.engine) for r in records} - {""})
    return "".join(f" {label}" for label in labels)


def _median(case: CaseSummary, key: str, digits: int = 1) -> str:
    figure = case.figure(key)
    return rate_text(figure.stats.median if figure and figure.stats else None, digits)


def _mode(case: CaseSummary) -> str:
    modes = sorted({str(r.facts["mode"]) for r in case.runs if r.facts.get("mode")})
    text = "/".join(modes)
    if any(r.facts.get("live_progress") is False for r in case.runs):
        text += " (no -vb)"
    return text


def _clock_note(case: CaseSummary) -> str:
    """Runs imported from tgftp's own tag logs carry tgftp's rate, the size over whole seconds (a transfer
    of 0.1 s counts as 1 s), not one timed on gftpwb's clock as the caption says: the row says so."""
    whole = sum(1 for r in case.runs if r.record.details.get("written_by") == "tgftp")
    return f"{whole} timed by tgftp to the whole second" if whole else ""


def _size_note(case: CaseSummary) -> str:
    """Runs without -len whose size gftpwb learned by listing their source after the copy: the row says
    where the bytes of its rates came from (:mod:`gftpwb.kinds.guc.sizing`)."""
    listed = sum(1 for r in case.runs if r.record.details.get("size_from") == FROM_LISTING)
    return f"{listed} sized by listing the source" if listed else ""


def case_row(case: CaseSummary) -> tuple[tuple[str, ...], str]:
    """One row of the results table: the runs the rate incl. set-up rests on, its median, mean with its
    interval and CV, and guc's own average."""
    rate = case.figure("rate_incl_setup_mib_s")
    stats = rate.stats if rate else None
    notes = "; ".join(note for note in (_clock_note(case), _size_note(case), case_notes(case)) if note)
    cells = (case.test_id, f"{case.case:03d}", case.params_text, _mode(case), f"{case.passed}/{case.total}",
             n_cell(rate), _median(case, "rate_incl_setup_mib_s"), mean_cell(stats),
             cv_text(stats.cv if stats else None), _median(case, "rate_guc_avg_mib_s"), notes)
    return cells, "" if case.passed == case.total else "red"


COLUMNS = (("test", "left"), ("#", "right"), ("guc options", "left"), ("mode", "left"), ("ok/runs", "right"),
           (N_COLUMN, "right"), ("median", "right"), (MEAN_CI_COLUMN, "right"), ("CV", "right"), ("guc avg", "right"),
           ("notes", "left"))
CAPTION = (f"{MIB_NOTE} Rate incl. set-up (gftpwb's clock, the one to trust) of the n runs that have one: median, "
           f"mean, CV = stdev / mean; {MEAN_LEGEND}. guc avg: median of guc's own average; quantised ones (transfers "
           "under 1 s) left out. Warm-ups not counted.")


def tables(records: Sequence[ResultRecord]) -> list[ReportTable]:
    """One row per case: the statistics of the rate incl. set-up, and guc's own average; then, for
    tests with a baseline, guc against iperf3 (and the baseline runs' own table), and for striped
    runs, each stripe's rate."""
    from gftpwb.kinds.iperf3.report import tables as iperf3_tables

    from .efficiency import (
        GFAPI,
        IPERF3,
        baseline_records,
        disk_table,
        efficiencies,
        efficiency_table,
        is_companion,
    )

    cases = summarize_cases(records)
    baselines = baseline_records(records)
    guc_records = [r for r in records if r.kind not in (IPERF3, GFAPI)]
    rows = tuple(case_row(case) for case in cases if not is_companion(case))
    out = [ReportTable(f"Results{engine_marks(guc_records)} (rates in MiB/s)", CAPTION, COLUMNS, rows, keys=2)]
    found = efficiencies(cases)
    if found:
        out.append(efficiency_table(found))
        out.extend(iperf3_tables(baselines))
    out.extend(table for table in (disk_table(cases), stripe_table(cases)) if table is not None)
    return out


@dataclass(frozen=True)
class StripedCase:
    """A striped case (``stripe: true``): its stripe count and each stripe's median rate from the
    servers' performance markers over the counted runs (a median: a server may send a stripe's only
    marker early, which makes that run's rate of the stripe meaningless), and how many runs had it."""

    case: CaseSummary
    stripes: int
    medians: tuple[float | None, ...]
    runs: int

    @property
    def total_median(self) -> float | None:
        figure = self.case.figure("rate_incl_setup_mib_s")
        return figure.stats.median if figure and figure.stats else None


def striped_cases(cases: Sequence[CaseSummary]) -> list[StripedCase]:
    """The cases whose counted runs carry ``details.stripes`` (read from guc's ``-dbg``)."""
    from .efficiency import median_of
    out = []
    for case in cases:
        per_run = [(r.record.details.get("stripes") or {}).get("stripes") or [] for r in case.runs if r.counted]
        per_run = [s for s in per_run if s]
        if not per_run:
            continue
        count = max(len(s) for s in per_run)
        medians = tuple(median_of([s[i]["mib_s"] for s in per_run if i < len(s) and s[i].get("mib_s") is not None])
                        for i in range(count))
        out.append(StripedCase(case, count, medians, len(per_run)))
    return out


STRIPE_CAPTION = ("Per stripe: median rate from the servers' 112 performance markers (-dbg) over the passed runs; "
                  "median: the whole transfer incl. set-up.")


def stripe_table(cases: Sequence[CaseSummary]) -> ReportTable | None:
    """Striped cases: how many stripes, the whole transfer's median and each stripe's (:func:`striped_cases`)."""
    rows = tuple(((s.case.test_id, f"{s.case.case:03d}", s.case.params_text, str(s.stripes), rate_text(s.total_median),
                   ", ".join(rate_text(m) for m in s.medians)), "") for s in striped_cases(cases))
    if not rows:
        return None
    return ReportTable("Striped transfers (MiB/s)", STRIPE_CAPTION,
                       (("test", "left"), ("#", "right"), ("guc options", "left"), ("stripes", "right"),
                        ("median", "right"), ("per stripe", "left")), rows, keys=2)
