"""guc results for people: the console's line for a run, and the report's table of cases (their
statistics from :mod:`gftpwb.core.summary`). Pure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gftpwb.core.format import ci_text, cv_text, human_bytes, rate_text
from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import ReportTable, registry
from gftpwb.core.report import case_notes
from gftpwb.core.summary import CaseSummary, summarize_cases

from .driver import option_args
from .model import GucOptions

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


def case_row(case: CaseSummary) -> tuple[tuple[str, ...], str]:
    """One row of the results table: a case's medians, mean ± CI and CV of the rate incl. set-up."""
    rate = case.figure("rate_incl_setup_mib_s")
    stats = rate.stats if rate else None
    ci = stats.ci_mean.half_width if stats and stats.ci_mean else None
    cells = (case.test_id, f"{case.case:03d}", case.params_text, _mode(case), f"{case.passed}/{case.total}",
             _median(case, "rate_incl_setup_mib_s"), ci_text(stats.mean if stats else None, ci),
             cv_text(stats.cv if stats else None), _median(case, "rate_guc_avg_mib_s"), case_notes(case))
    return cells, "" if case.passed == case.total else "red"


COLUMNS = (("test", "left"), ("#", "right"), ("guc options", "left"), ("mode", "left"), ("ok/runs", "right"),
           ("median", "right"), ("mean ± 95 % CI", "right"), ("CV", "right"), ("guc avg", "right"),
           ("notes", "left"))
CAPTION = (f"{MIB_NOTE} Rate incl. set-up (gftpwb's clock, the one to trust): median, mean ± 95 % CI (t), "
           "CV = stdev / mean. guc avg: median of guc's own average; quantised ones (transfers under 1 s) left out. "
           "Warm-ups not counted.")


def tables(records: Sequence[ResultRecord]) -> list[ReportTable]:
    """One row per case: the statistics of the rate incl. set-up, and guc's own average."""
    rows = tuple(case_row(case) for case in summarize_cases(records))
    return [ReportTable(f"Results{engine_marks(records)} (rates in MiB/s)", CAPTION, COLUMNS, rows)]
