"""A copy-tool kind's table of cases (XRootD's, HTTP's), as guc's results table is guc's: one row per
case with its options (``copy_mode=pull``: two cases never read alike), its mode, the statistics of
its rate incl. set-up, the tool's own average where the tool reports one (xrdcp) and the notes a
reader of the row needs (warm-ups, outliers, averages left out as quantised or per file). Pure."""

from __future__ import annotations

from collections.abc import Sequence

from gftpwb.core.format import cv_text, rate_text
from gftpwb.core.intervals import MEAN_LEGEND
from gftpwb.core.registry import ReportTable, registry
from gftpwb.core.report import MEAN_CI_COLUMN, N_COLUMN, case_notes, mean_cell, n_cell
from gftpwb.core.summary import CaseSummary

from .session import QUANTISED_STEPS

RATE = "rate_incl_setup_mib_s"
OWN_AVG = "rate_guc_avg_mib_s"  # the tool's own average, where a record keeps guc's
CAPTION = (f"Rate incl. set-up (gftpwb's clock, the one to trust) of the n runs that have one: median, mean, CV = "
           f"stdev / mean; {MEAN_LEGEND}. Warm-ups not counted.")


def _median(case: CaseSummary, key: str) -> str:
    figure = case.figure(key)
    return rate_text(figure.stats.median if figure and figure.stats else None)


def _mode(case: CaseSummary) -> str:
    modes = sorted({str(r.facts["mode"]) for r in case.runs if r.facts.get("mode")})
    text = "/".join(modes) or "-"
    if any(r.facts.get("live_progress") is False for r in case.runs):
        text += " (no live progress)"
    return text


def own_label(cases: Sequence[CaseSummary]) -> str:
    """``xrdcp avg``: the label of the tool's own average, "" when the kind has none (gfal-copy)."""
    for case in cases:
        figure = case.figure(OWN_AVG)
        if figure is not None:
            return figure.figure.label
    return ""


def case_row(case: CaseSummary, own: bool) -> tuple[tuple[str, ...], str]:
    rate = case.figure(RATE)
    stats = rate.stats if rate else None
    cells = (case.test_id, f"{case.case:03d}", case.params_text, _mode(case), f"{case.passed}/{case.total}",
             n_cell(rate), _median(case, RATE), mean_cell(stats), cv_text(stats.cv if stats else None),
             *((_median(case, OWN_AVG),) if own else ()), case_notes(case))
    return cells, "" if case.passed == case.total else "red"


def _tool(kind: str) -> tuple[str, float | None]:
    """The kind's program and the step in seconds its own average is timed in (None: unknown)."""
    found = registry().find(kind)
    tool = getattr(found.present, "tool", None) if found is not None else None
    return str(getattr(tool, "program", kind)), getattr(tool, "own_rate_step_s", None)


def kind_table(kind: str, protocol: str, cases: Sequence[CaseSummary]) -> ReportTable:
    """The cases of one copy-tool kind (``protocol``: its name for people, XRootD)."""
    (program, step), label = _tool(kind), own_label(cases)
    columns = (("test", "left"), ("#", "right"), (f"{program} options", "left"), ("mode", "left"),
               ("ok/runs", "right"), (N_COLUMN, "right"), ("median", "right"), (MEAN_CI_COLUMN, "right"),
               ("CV", "right"),
               *(((label, "right"),) if label else ()), ("notes", "left"))
    caption = CAPTION
    if label:
        short = f"transfers under {QUANTISED_STEPS * step:g} s" if step else f"under {QUANTISED_STEPS} time steps"
        caption += (f" {label}: median of {program}'s own average; quantised ones ({short}) and those of multi-file "
                    "copies (per file) left out.")
    else:
        caption += f" {program} reports no average of its own."
    return ReportTable(f"{protocol} copies (rates in MiB/s)", caption, columns,
                       tuple(case_row(case, bool(label)) for case in cases), keys=2)


def tables(cases: Sequence[CaseSummary], protocols: dict[str, str]) -> list[ReportTable]:
    """A table per copy-tool kind among ``cases`` (a test's own cases of the kinds ``protocols`` names),
    kinds in the order of ``protocols``."""
    out = []
    for kind, protocol in protocols.items():
        own = [c for c in cases if c.kind == kind and c.test_kind == kind]
        if own:
            out.append(kind_table(kind, protocol, own))
    return out
