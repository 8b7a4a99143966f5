"""``gftpwb report --csv FILE``: the statistics of every case and figure as one CSV table, one row per
(directory, case, figure) — the long format spreadsheets and pandas pivot easily. Pure."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from .summary import DirectorySummary

COLUMNS = ("directory", "scenario", "test", "case", "kind", "params", "figure", "unit", "runs", "passed", "warmups",
           "n", "median", "mean", "stdev", "cv", "min", "max", "ci_mean_low", "ci_mean_high", "ci_median_low",
           "ci_median_high", "outliers", "excluded")


def _cell(value: float | None) -> str:
    return "" if value is None else repr(round(value, 6))


def report_csv(summaries: Sequence[DirectorySummary]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for summary in summaries:
        for case in summary.cases:
            for fig in case.figures:
                s = fig.stats
                outliers = [r.run_id for r in case.runs if fig.figure.key in r.outlier]
                writer.writerow([
                    summary.path, summary.scenario, case.test_id, case.case, case.kind, case.params_text,
                    fig.figure.key, fig.figure.unit, case.total, case.passed, case.warmups, s.n if s else 0,
                    *(_cell(getattr(s, k) if s else None) for k in ("median", "mean", "stdev", "cv", "min", "max")),
                    _cell(s.ci_mean.low if s and s.ci_mean else None),
                    _cell(s.ci_mean.high if s and s.ci_mean else None),
                    _cell(s.ci_median.low if s and s.ci_median else None),
                    _cell(s.ci_median.high if s and s.ci_median else None),
                    " ".join(outliers), " ".join(f"{k}={v}" for k, v in sorted(fig.excluded.items())),
                ])
    return out.getvalue()
