"""The HTML report of results directories, written to a file: what ``gftpwb report --html`` writes
and what the TUI's ``R`` writes, one code path (:func:`write_html`). matplotlib and DuckDB (the
trend) are imported only when a report is made."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from gftpwb.core.errors import UsageError
from gftpwb.core.report_charts import TrendPoint, own_cases
from gftpwb.core.summary import DirectorySummary
from gftpwb.shell.files import atomic_write

DEFAULT_TREND = 20  # each case's median in this many latest runs of the scenario (``--trend``)


def _stderr(line: str) -> None:
    print(f"gftpwb: {line}", file=sys.stderr)


def trends(summaries: list[DirectorySummary], limit: int,
           warn: Callable[[str], None] = _stderr) -> dict[str, list[TrendPoint]]:
    """Per directory, its own cases' headline medians in the ``limit`` latest results directories of
    the same scenario beside it (the history's DuckDB views); a base that cannot be read gives none
    (and a warning: on stderr, or in the TUI a notification)."""
    from gftpwb.shell.history import trend_points

    out: dict[str, list[TrendPoint]] = {}
    for summary in summaries:
        path = os.path.abspath(summary.path.rstrip("/"))
        own = {(c.test_id, c.kind, c.params_text) for c in own_cases(summary.cases)}
        try:
            points = trend_points(os.path.dirname(path), os.path.basename(path), summary.scenario, limit)
        except UsageError as exc:
            warn(f"warning: no trend for {summary.path}: {exc}")
            continue
        out[summary.path] = [p for p in points if (p.test_id, p.kind, p.params_text) in own]
    return out


def write_html(path: str, summaries: list[DirectorySummary], generator: str, trend: int,
               warn: Callable[[str], None] = _stderr) -> None:
    """Write the self-contained HTML report of ``summaries`` to ``path`` (atomically); UsageError when
    it cannot be written."""
    from gftpwb.core.report_html import report_html
    from gftpwb.shell.html_charts import SvgCharts  # matplotlib: only for --html

    points = trends(summaries, trend, warn) if trend else {}
    html = report_html(summaries, SvgCharts(), generator=generator, trends=points)
    try:
        atomic_write(path, html)
    except OSError as exc:
        raise UsageError(f"cannot write the HTML report to {path}: {exc.strerror or exc}") from None
