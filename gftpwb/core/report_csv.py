"""``gftpwb report --csv FILE``: the statistics of every case and figure as one CSV table, one row per
(directory, case, figure) — the long format spreadsheets and pandas pivot easily. Pure.

After a directory's cases come the figures its report sections derive across cases
(:class:`~gftpwb.core.registry.DerivedFigure`: guc's efficiency against iperf3, disk / memory, each
stripe's median), in the same columns: the figure is named after its table (``efficiency.…``), the
unit ``ratio`` is a fraction (0.957 = 95.7 %), and the value sits in the column of its statistic."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence

from .registry import DerivedFigure
from .report import section_data
from .summary import DirectorySummary

COLUMNS = ("directory", "scenario", "test", "case", "kind", "params", "figure", "unit", "runs", "passed", "warmups",
           "n", "median", "mean", "stdev", "cv", "min", "max", "ci_mean_low", "ci_mean_high", "ci_median_low",
           "ci_median_high", "outliers", "excluded")


def _cell(value: float | None) -> str:
    return "" if value is None else repr(round(value, 6))


def derived_row(summary: DirectorySummary, f: DerivedFigure) -> list:
    """A figure a report section derives across cases (``efficiency.rate_guc_avg_mib_s``, unit
    ``ratio``): its value in the column of its statistic (``mean`` for a ratio of means, with its
    interval in the ci_mean columns; ``median`` for a median); runs, passed and warm-ups
    are left empty (they are the case's rows above)."""
    stats = {"median": None, "mean": None, "stdev": None, "cv": None, "min": None, "max": None}
    stats[f.statistic] = f.value
    ci = (f.low, f.high) if f.statistic == "mean" else (None, None)
    ci_median = (f.low, f.high) if f.statistic == "median" else (None, None)
    return [summary.path, summary.scenario, f.test_id, f.case, f.kind, f.params_text, f.figure, f.unit, "", "", "",
            f.n, *(_cell(v) for v in stats.values()), _cell(ci[0]), _cell(ci[1]), _cell(ci_median[0]),
            _cell(ci_median[1]), "", ""]


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
        for derived in (f for data in section_data(summary) for f in data.figures):
            writer.writerow(derived_row(summary, derived))
    return out.getvalue()
