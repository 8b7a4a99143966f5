"""The charts every report section gets from its kinds' figures, and the trend across earlier runs.
Pure: chart descriptions (:mod:`gftpwb.core.charts`) from the report data model.

* **per case**: the headline figure's median with its 95 % CI of the median as whiskers;
* **over time**: per case, the rate over each reporting interval of its runs, from their progress
  samples, with stalls shaded;
* **trend**: per case, the headline median of each earlier results directory of the same scenario
  (:class:`TrendPoint` rows from the history, :mod:`gftpwb.shell.history`).

A kind adds charts of its own through its report section (``ReportSection.charts``: gfapi per host
and per thread, an auto-tune's ranking); nothing here knows a kind by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .charts import Chart, IntervalChart, Line, LineChart, Mark, Point, Span, n_label, short_label
from .checks import Check
from .intervals import MEDIAN_LEGEND
from .registry import registry
from .samples import WHOLE, RunSamples, gaps, stalls, step_points
from .summary import CaseSummary, RunRow

MAX_RUNS_PER_CHART = 10  # lines of one rate-over-time chart (counted runs first)
MAX_TIME_CHARTS = 24  # rate-over-time charts per section
MAX_TREND_CHARTS = 40
MAX_CASES_PER_CHART = 60  # categories of one per-case chart (the tables list every case)
TIME_AXIS = "time since the run started (s)"
RATE_AXIS = "MiB/s (over each report interval)"


def case_label(case: CaseSummary) -> str:
    text = f"{case.test_id} #{case.case:03d}"
    return short_label(f"{text} {case.params_text}" if case.params_text else text)


def own_cases(cases: Sequence[CaseSummary]) -> list[CaseSummary]:
    """Cases of a test's own kind (an auto-tune's transfers are guc cases of an autotune test: its
    ranking speaks for them)."""
    return [c for c in cases if c.kind == c.test_kind]


def threshold_marks(case: CaseSummary, checks: Sequence[Check]) -> tuple[Mark, ...]:
    """The thresholds checked on ``case`` that lie on its headline figure's axis (a median, mean,
    min or max of that figure; not a CV or a fact), where they lie and whether they were met."""
    from .expect import ExpectError, metric_of, parse_expectation

    kind = registry().find(case.kind)
    if kind is None or case.headline is None:
        return ()
    marks = []
    for check in checks:
        if check.test_id != case.test_id or check.case != case.case:
            continue
        metric = metric_of(kind, check.metric)
        if metric is None or metric.fact or metric.statistic == "cv" or metric.figure != case.headline.figure.key:
            continue
        try:
            expectation = parse_expectation(metric, check.expression)
        except ExpectError:
            continue  # written by another version; the table still shows it
        marks.append(Mark(expectation.threshold, f"{check.metric} {check.expression}", check.ok))
    return tuple(marks)


def per_case_charts(cases: Sequence[CaseSummary], checks: Sequence[Check] = ()) -> list[Chart]:
    """For each kind among ``cases`` with figures: its headline's median per case, CI as whiskers,
    and the thresholds of ``expect:`` checked on it as marks."""
    by_kind: dict[str, list[CaseSummary]] = {}
    for case in own_cases(cases):
        if case.headline is not None:
            by_kind.setdefault(case.kind, []).append(case)
    charts: list[Chart] = []
    for group in by_kind.values():
        figure = group[0].headline.figure  # type: ignore[union-attr]
        points = []
        for case in group:
            stats = case.headline.stats  # type: ignore[union-attr]
            if stats is None:
                continue
            ci = stats.ci_median
            points.append(Point(n_label(case_label(case), stats.n), stats.median, ci.low if ci else None,
                                ci.high if ci else None, marks=threshold_marks(case, checks)))
        if points:
            marked = " Thresholds (expect:): vertical bars, green met, red violated." if any(
                p.marks for p in points) else ""
            if len(points) > MAX_CASES_PER_CHART:
                marked += f" The first {MAX_CASES_PER_CHART} of {len(points)} cases shown; the table lists every case."
                points = points[:MAX_CASES_PER_CHART]
            charts.append(IntervalChart(
                f"{figure.label} per case", "case", f"{figure.label} ({figure.unit})", tuple(points),
                note=f"Median of the n counted runs (passed, not warm-ups); whiskers: {MEDIAN_LEGEND}.{marked}"))
    return charts


def _lines(runs: Sequence[RunRow], samples: Mapping[str, RunSamples]) -> tuple[list[Line], list[Span], int]:
    with_samples = [r for r in runs if r.run_id in samples and WHOLE in samples[r.run_id].series]
    ordered = sorted(with_samples, key=lambda r: (not r.counted, r.repeat))
    lines, spans = [], []
    for run in ordered[:MAX_RUNS_PER_CHART]:
        series = samples[run.run_id].series[WHOLE]
        points = step_points(series.t, series.b, 1048576)
        if not points:
            continue
        status = "" if run.status == "passed" else f" ({run.status})"
        label = run.run_id + (" (warm-up)" if run.warmup else "") + status
        lines.append(Line(label, tuple(t for t, _ in points), tuple(v for _, v in points), dashed=run.warmup))
        spans.extend(Span(a, b, f"stalled ({run.run_id})") for a, b in stalls(series))
        spans.extend(Span(a, b, f"no progress report ({run.run_id})", "gap") for a, b in gaps(series))
    return lines, spans, len(ordered)


def over_time_charts(cases: Sequence[CaseSummary], samples: Mapping[str, RunSamples]) -> list[Chart]:
    """Per case whose runs kept progress samples: the rate over time of each run."""
    charts: list[Chart] = []
    shown = 0
    eligible = 0
    for case in own_cases(cases):
        lines, spans, total = _lines(case.runs, samples)
        if not lines:
            continue
        eligible += 1
        if shown == MAX_TIME_CHARTS:
            continue
        shown += 1
        note = f"{len(lines)} of {total} runs shown." if total > len(lines) else ""
        charts.append(LineChart(f"{case_label(case)}: rate over time", TIME_AXIS, RATE_AXIS, tuple(lines),
                                tuple(spans), note=note, steps=True))
    if eligible > shown and charts:
        last = charts[-1]
        assert isinstance(last, LineChart)
        charts[-1] = LineChart(last.title, last.x_label, last.y_label, last.lines, last.spans,
                               note=f"{last.note} Rate over time shown for the first {shown} of {eligible} "
                                    "cases.".strip(), steps=True)
    return charts


# --- the trend across earlier runs of a scenario -----------------------------------------------


@dataclass(frozen=True)
class TrendPoint:
    """One case's headline median in one results directory (a row of the history)."""

    directory: str
    created_at: str
    test_id: str
    kind: str
    params_text: str
    median: float
    n: int


def _when(point: TrendPoint) -> str:
    """``2026-11-22 10:00`` from an ISO time; the directory's name when there is none."""
    text = point.created_at.replace("T", " ")
    return text[:16] if len(text) >= 16 else point.directory


def trend_charts(points: Sequence[TrendPoint], current: str) -> list[Chart]:
    """Per case seen in at least two directories: its headline median per directory, oldest first;
    ``current`` (a directory name) is highlighted."""
    cases: dict[tuple[str, str, str], list[TrendPoint]] = {}
    for point in points:
        cases.setdefault((point.test_id, point.kind, point.params_text), []).append(point)
    reg = registry()
    charts: list[Chart] = []
    for (test_id, kind_name, params), rows in cases.items():
        if len({r.directory for r in rows}) < 2 or len(charts) == MAX_TREND_CHARTS:
            continue
        kind = reg.find(kind_name)
        figure = kind.report.figures[0] if kind is not None and kind.report.figures else None
        value = f"median {figure.label} ({figure.unit})" if figure else "median"
        rows = sorted(rows, key=lambda r: (r.created_at, r.directory))
        charts.append(IntervalChart(
            short_label(f"{test_id} {params}".strip()) + ": median across runs of the scenario", "results directory "
            "(created)", value, tuple(Point(f"{_when(r)} (n={r.n})", r.median, highlight=r.directory == current)
                                      for r in rows), connect=True,
            note="One point per results directory of the same scenario under the same base; this run highlighted."))
    return charts
