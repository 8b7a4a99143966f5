"""An auto-tune's chart for the HTML report: its ranking, each candidate's mean rate with its 95 %
confidence interval, the pick highlighted. Pure (:mod:`gftpwb.core.charts`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gftpwb.core.charts import Chart, IntervalChart, Point, n_label
from gftpwb.core.format import certainty_text
from gftpwb.core.records import ResultRecord
from gftpwb.core.units import format_rate

from .ranking import RACE_LEGEND
from .report import AUTOTUNE_KIND, stop_text


def ranking_chart(record: ResultRecord) -> Chart | None:
    d = record.details
    pick = (d.get("pick") or {}).get("params")
    points = []
    for row in d.get("ranking") or []:
        mean = row.get("mean_mib_s")
        if mean is None:
            continue
        points.append(Point(n_label(f"#{row.get('rank')} {row.get('candidate')}", int(row.get("runs") or 0)
                                    - int(row.get("failures") or 0)), float(mean), row.get("ci_low_mib_s"),
                            row.get("ci_high_mib_s"), highlight=row.get("candidate") == pick))
    if not points:
        return None
    margin = d.get("margin_mib_s")
    within = format_rate(margin) if margin else "?"
    stopped = stop_text(d.get("stop_reason") or "", d.get("transfers_used") or 0)
    start = (d.get("warm_start") or {}).get("text")
    sure = certainty_text(d.get("p_within_margin"), d.get("p_with_history"), d.get("history_share") or "")
    note = (f"Pick (highlighted): {pick or 'none'}; P(pick within {within} of the best) = {sure}; stopped: "
            f"{stopped}. " + (f"Start: {start}. " if start else "") + f"n: the candidate's successful runs. Whiskers: "
            f"{RACE_LEGEND}.")
    return IntervalChart(f"{record.test_id}: auto-tune ranking ({d.get('strategy', '?')})",
                         "candidate (guc parameters)", "mean rate incl. set-up (MiB/s)", tuple(points), note=note)


def charts(records: Sequence[ResultRecord], samples: Mapping[str, Any]) -> list[Chart]:
    out = []
    for record in records:
        if record.kind == AUTOTUNE_KIND:
            chart = ranking_chart(record)
            if chart is not None:
                out.append(chart)
    return out
