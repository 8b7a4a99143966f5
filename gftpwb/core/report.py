"""What the reports of a scenario run say besides the figures' statistics (those are in
:mod:`gftpwb.core.summary`): notes on a case for its table row. Pure."""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean
from typing import Any

from .format import estimate_text
from .harness.aggregate import together_note
from .intervals import MEAN_MIN_RUNS
from .records import ResultRecord
from .registry import ReportData, ReportSection, registry
from .stats import Stats
from .summary import CaseSummary, DirectorySummary, FigureStats

#: The column of a figure's mean and its interval in every case table (the legend: MEAN_LEGEND of
#: gftpwb.core.intervals); the column ``n`` beside it: the runs that figure rests on.
MEAN_CI_COLUMN = "mean [95 % CI]"
N_COLUMN = "n"


def mean_cell(stats: Stats | None, digits: int = 1) -> str:
    """A figure's mean and its 95 % interval (``813.8 [702.4, 941.6]``; the mean alone when too few
    runs give none), as every case table shows it."""
    ci = stats.ci_mean if stats is not None else None
    return estimate_text(stats.mean if stats is not None else None, ci.low if ci else None, ci.high if ci else None,
                         digits)


def n_cell(figure: FigureStats | None) -> str:
    """The runs a figure's statistics rest on (``0`` when none has it)."""
    return str(figure.stats.n if figure is not None and figure.stats is not None else 0)


def figure_shortfall(case: CaseSummary, figure: FigureStats) -> str:
    """``rate incl. set-up from 1 of 3 runs``: a figure shown from fewer runs than the case ran
    (warm-ups aside). Said of the headline, and of another figure whose runs are not the headline's
    and whose missing values the values left out (quantised) do not explain; "" otherwise, and for a
    figure no run has (shown as ``-``)."""
    runs = case.total - case.warmups
    n = figure.stats.n if figure.stats is not None else 0
    if not 0 < n < runs:
        return ""
    headline = case.headline
    if figure is not headline:
        head_n = headline.stats.n if headline is not None and headline.stats is not None else 0
        if n == head_n or runs - n <= sum(figure.excluded.values()):
            return ""
    return f"{figure.figure.label} from {n} of {runs} runs"


def case_notes(case: CaseSummary) -> str:
    """``1 warm-up; outlier sweep[0]/3; guc avg: 2 quantised; 2 at once (client1, client2): together ...``:
    what a reader of the row should know."""
    notes: list[str] = []
    if case.warmups:
        notes.append(f"{case.warmups} warm-up{'s' if case.warmups > 1 else ''}")
    notes.extend(note for note in (figure_shortfall(case, f) for f in case.figures) if note)
    stats = case.headline.stats if case.headline is not None else None
    if stats is not None and stats.n >= MEAN_MIN_RUNS and stats.no_ci_mean:  # runs enough, yet none: say why
        notes.append(f"{case.headline.figure.label}: {stats.no_ci_mean}")  # type: ignore[union-attr]
    headline = case.headline
    if headline is not None:
        flagged = [r.run_id for r in case.runs if headline.figure.key in r.outlier]
        if flagged:
            notes.append(f"outlier{'s' if len(flagged) > 1 else ''} {', '.join(flagged)}")
    for stats in case.figures:
        for reason, count in sorted(stats.excluded.items()):
            notes.append(f"{stats.figure.label}: {count} {reason}")
    together = together_note([r.record for r in case.runs])
    if together:  # each run's figure is its own; what the runs of a group moved at once is this
        notes.append(together)
    return "; ".join(notes)


def mean(values: Sequence[Any]) -> float | None:
    """The mean of the values that are known, None when none is."""
    known = [v for v in values if v is not None]
    return fmean(known) if known else None


def report_sections(records: Sequence[ResultRecord],
                    kind_of_test: dict[str, str]) -> list[tuple[ReportSection, list[ResultRecord]]]:
    """Records grouped by the report section of their test's kind (``kind_of_test``; a record of a
    test not in it goes by its own kind), sections in order; records of kinds without one are left out."""
    reg = registry()
    grouped: dict[str, tuple[ReportSection, list[ResultRecord]]] = {}
    by_kind: dict[str, list[ResultRecord]] = {}
    for record in records:
        name = kind_of_test.get(record.test_id, record.kind)
        by_kind.setdefault(name, []).append(record)
        kind = reg.find(name)
        section = kind.report.section if kind is not None else None
        if section is None:
            continue
        grouped.setdefault(section.name, (section, []))[1].append(record)
    for section, own in grouped.values():
        if section.also:  # a section across kinds: their tests' records in the order they came
            ids = {id(r) for r in own} | {id(r) for name in section.also for r in by_kind.get(name, ())}
            own[:] = [r for r in records if id(r) in ids]
    return sorted(grouped.values(), key=lambda item: item[0].order)


def own_records(section: ReportSection, records: Sequence[ResultRecord],
                kind_of_test: dict[str, str]) -> list[ResultRecord]:
    """Those of a section's records whose test's kind names it: without what it gets from other
    kinds' tests (``ReportSection.also``), which their own sections chart and list."""
    if not section.also:
        return list(records)
    reg = registry()
    out = []
    for record in records:
        kind = reg.find(kind_of_test.get(record.test_id, record.kind))
        if kind is not None and kind.report.section is not None and kind.report.section.name == section.name:
            out.append(record)
    return out


def section_data(summary: DirectorySummary) -> list[ReportData]:
    """Every report section's tables as data (``ReportSection.data``), sections in order: what
    ``report --json`` and ``--csv`` carry besides the cases. Each section gets its own cases of the
    summary (not summarised again)."""
    out: list[ReportData] = []
    for section, section_records in report_sections(summary.records, summary.kinds):
        ids = {id(r) for r in section_records}
        cases = [c for c in summary.cases if c.runs and id(c.runs[0].record) in ids]
        out.extend(section.build_data(section_records, cases))
    return out
