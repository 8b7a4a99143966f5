"""gfapi's own charts for the HTML report: per host and per thread. Pure (chart descriptions,
:mod:`gftpwb.core.charts`).

* **per host** (tests on two or more hosts): files/s at last done of each host, the median over the
  case's counted runs, whiskers from the slowest to the fastest run;
* **per thread**: files/s of each thread in the case's median run (the counted run whose files/s is
  nearest the case's median), and its threads' files/s over time from their progress samples.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from statistics import median
from typing import Any

from gftpwb.core.charts import Chart, IntervalChart, Line, LineChart, Point, n_span
from gftpwb.core.records import ResultRecord
from gftpwb.core.report_charts import TIME_AXIS, case_label, own_cases
from gftpwb.core.samples import WHOLE, RunSamples, Series, step_points
from gftpwb.core.summary import CaseSummary, RunRow, summarize_cases

MAX_THREADS = 32  # bars and lines of one per-thread chart


def _gfapi(run: RunRow) -> dict[str, Any]:
    return run.record.details.get("gfapi") or {}


def _host_files_s(run: RunRow) -> dict[str, float]:
    out = {}
    for host, stats in (_gfapi(run).get("hosts") or {}).items():
        value = ((stats or {}).get("last_done") or {}).get("files_s")
        if isinstance(value, int | float):
            out[host] = float(value)
    return out


def per_host_chart(case: CaseSummary) -> Chart | None:
    values: dict[str, list[float]] = {}
    for run in case.runs:
        if run.counted:
            for host, value in _host_files_s(run).items():
                values.setdefault(host, []).append(value)
    if len(values) < 2:
        return None
    points = tuple(Point(host, median(v), min(v), max(v)) for host, v in sorted(values.items()))
    return IntervalChart(f"{case_label(case)}: files/s per host", "host", "files/s at last done", points,
                         note=f"Median over the counted runs ({n_span([len(v) for v in values.values()])}); whiskers "
                         "from the slowest to the fastest run.", bars=True)


def median_run(case: CaseSummary) -> RunRow | None:
    """The counted run whose headline figure is nearest the case's median."""
    headline = case.headline
    if headline is None or headline.stats is None:
        return None
    key, centre = headline.figure.key, headline.stats.median
    runs = [r for r in case.runs if r.counted and r.values.get(key) is not None]
    return min(runs, key=lambda r: abs(r.values[key] - centre)) if runs else None  # type: ignore[operator]


def per_thread_chart(case: CaseSummary, run: RunRow) -> Chart | None:
    threads = [t for t in _gfapi(run).get("threads") or [] if isinstance(t.get("files_s"), int | float)]
    if not threads:
        return None
    points = tuple(Point(f"{t.get('host')}/{t.get('thread')}", float(t["files_s"])) for t in threads[:MAX_THREADS])
    note = f"{len(points)} of {len(threads)} threads shown." if len(threads) > len(points) else ""
    return IntervalChart(f"{case_label(case)}: files/s per thread ({run.run_id}, the median run)", "host/thread",
                         "files/s of the thread", points, note=note, bars=True)


def files_rates(series: Series) -> list[tuple[float, float]]:
    """files/s of each interval of a series that counts files, as the points of a step plot."""
    return step_points(series.t, series.f) if series.f is not None else []


def threads_over_time(case: CaseSummary, run: RunRow, samples: Mapping[str, RunSamples]) -> Chart | None:
    got = samples.get(run.run_id)
    if got is None:
        return None
    lines = []
    for name, series in sorted(got.series.items()):
        points = files_rates(series) if name != WHOLE else []
        if points:
            lines.append(Line(name, tuple(t for t, _ in points), tuple(v for _, v in points)))
    if not lines:
        return None
    shown = lines[:MAX_THREADS]
    note = f"{len(shown)} of {len(lines)} threads shown." if len(lines) > len(shown) else ""
    return LineChart(f"{case_label(case)}: files/s per thread over time ({run.run_id})", TIME_AXIS,
                     "files/s (over each report interval)", tuple(shown), note=note, steps=True)


def charts(records: Sequence[ResultRecord], samples: Mapping[str, RunSamples]) -> list[Chart]:
    out: list[Chart] = []
    for case in own_cases(summarize_cases(records)):
        host = per_host_chart(case)
        if host is not None:
            out.append(host)
        run = median_run(case)
        if run is None:
            continue
        for chart in (per_thread_chart(case, run), threads_over_time(case, run, samples)):
            if chart is not None:
                out.append(chart)
    return out
