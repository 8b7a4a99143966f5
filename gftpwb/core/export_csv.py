"""What the TUI's export writes next to the results it describes, at full precision (``repr`` of the
floats the journal holds, never the values as rounded on screen): every run's figures, and a
comparison's changes. The cases' statistics are ``gftpwb report --csv``'s (:mod:`report_csv`). Pure."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from .compare import Comparison
from .summary import DirectorySummary

RUN_COLUMNS = ("test", "case", "kind", "params", "run", "repeat", "host", "status", "warmup", "counted", "figure",
               "unit", "value", "excluded", "outlier", "seconds", "bytes", "started_at")
COMPARE_COLUMNS = ("a", "b", "test", "kind", "params", "case_a", "case_b", "figure", "unit", "higher_is_better",
                   "a_n", "a_median", "a_ci_median_low", "a_ci_median_high", "b_n", "b_median", "b_ci_median_low",
                   "b_ci_median_high", "change_pct", "change_ci_low_pct", "change_ci_high_pct", "p_value",
                   "significant", "verdict", "basis", "runs_needed_a", "runs_needed_b")


def full(value: Any) -> str:
    """A number as the journal holds it (``repr``: round-trips exactly); "" for none."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(float(value)) if isinstance(value, float) else str(value)  # numpy floats too


def csv_text(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A header and rows as CSV text (quoted where a cell needs it)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


def runs_csv(summary: DirectorySummary) -> str:
    """One row per run and figure of its kind (long format), every run, counted or not."""
    rows = []
    for case in summary.cases:
        for run in case.runs:
            for stats in case.figures or ():
                key = stats.figure.key
                rows.append([case.test_id, str(case.case), case.kind, case.params_text, run.run_id, str(run.repeat),
                             run.host, run.status, full(run.warmup), full(run.counted), key, stats.figure.unit,
                             full(run.values.get(key)), run.excluded.get(key, ""), full(key in run.outlier),
                             full(run.seconds), full(run.bytes), run.started_at])
            if not case.figures:
                rows.append([case.test_id, str(case.case), case.kind, case.params_text, run.run_id, str(run.repeat),
                             run.host, run.status, full(run.warmup), full(run.counted), "", "", "", "", "",
                             full(run.seconds), full(run.bytes), run.started_at])
    return csv_text(RUN_COLUMNS, rows)


def comparison_csv(c: Comparison) -> str:
    """One row per compared case and figure, as ``gftpwb compare --json`` says it but unrounded."""
    rows = []
    for x in c.changes:
        rows.append([c.a.path, c.b.path, x.test_id, x.kind, x.params_text, str(x.case_a), str(x.case_b), x.figure.key,
                     x.figure.unit, full(x.figure.higher_is_better), str(x.a.n), full(x.a.median), full(x.a.ci_low),
                     full(x.a.ci_high), str(x.b.n), full(x.b.median), full(x.b.ci_low), full(x.b.ci_high),
                     full(x.change_pct), full(x.ci_low_pct), full(x.ci_high_pct), full(x.p_value),
                     full(x.significant), x.verdict, x.basis or "",
                     *(("", "") if x.runs_needed is None else (str(x.runs_needed[0]), str(x.runs_needed[1])))])
    return csv_text(COMPARE_COLUMNS, rows)
