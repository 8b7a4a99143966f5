"""The guc section's comparison tables as data, for ``report --json`` (numbers, not the console's
text) and ``report --csv`` (one derived figure per row): guc against its iperf3 baseline
(``efficiency``), disk to disk against memory to memory (``disk_vs_memory``) and the striped transfers
(``stripes``). The numbers are the tables' own (:mod:`.efficiency`, :func:`.report.striped_cases`). Pure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import DerivedFigure, ReportData
from gftpwb.core.stats import Ratio
from gftpwb.core.summary import CaseSummary

from .efficiency import GUC_AVG, GUC_RATE, IPERF3_RATE, counted_values, disk_comparisons, efficiencies, mean_of
from .report import striped_cases

RATIO = "ratio"
MIB_S = "MiB/s"


def ratio_data(ratio: Ratio | None) -> dict[str, Any] | None:
    """A ratio of means as JSON (``value`` 0.957 = 95.7 %, ``ci``, the runs on each side); null without one."""
    return None if ratio is None else ratio.to_dict()


def _case_ref(case: CaseSummary) -> dict[str, Any]:
    return {"test_id": case.test_id, "case": case.case, "params_text": case.params_text}


def _figure(case: CaseSummary, name: str, unit: str, statistic: str, value: float | None, n: int,
            ratio: Ratio | None = None) -> DerivedFigure:
    ci = ratio.ci if ratio is not None else None
    return DerivedFigure(case.test_id, case.case, case.kind, case.params_text, name, unit, n, statistic, value,
                         ci.low if ci else None, ci.high if ci else None)


def _ratio_figure(case: CaseSummary, name: str, ratio: Ratio | None) -> DerivedFigure:
    return _figure(case, name, RATIO, "mean", ratio.value if ratio else None,
                   min(ratio.n_numerator, ratio.n_denominator) if ratio else 0, ratio)


def efficiency_data(cases: Sequence[CaseSummary]) -> ReportData:
    rows, figures = [], []
    for e in efficiencies(cases):
        rows.append({**_case_ref(e.guc), "streams": e.streams,
                     "baseline": {"runs": e.baseline.total, "passed": e.baseline.passed,
                                  "counted": len(counted_values(e.baseline, IPERF3_RATE))},
                     "iperf3_mean_mib_s": e.iperf3_mib_s, "guc_avg_mean_mib_s": mean_of(e.guc, GUC_AVG),
                     "guc_rate_mean_mib_s": mean_of(e.guc, GUC_RATE),
                     "efficiency_guc_avg": ratio_data(e.guc_avg), "efficiency_rate": ratio_data(e.guc_rate)})
        figures.append(_ratio_figure(e.guc, f"efficiency.{GUC_AVG}", e.guc_avg))
        figures.append(_ratio_figure(e.guc, f"efficiency.{GUC_RATE}", e.guc_rate))
    return ReportData("efficiency", tuple(rows), tuple(figures))


def disk_data(cases: Sequence[CaseSummary]) -> ReportData:
    rows, figures = [], []
    for d in disk_comparisons(cases):
        f = d.files
        rows.append({**_case_ref(d.disk), "memory_case": _case_ref(d.memory) if d.memory else None,
                     "files": {"count": f.get("count"), "size": f.get("size"), "content": f.get("content"),
                               "source_host": f.get("source_host"), "target_host": f.get("target_host"),
                               "caches": d.caches},
                     "memory_median_mib_s": d.memory_median, "disk_median_mib_s": d.disk_median,
                     "disk_vs_memory": ratio_data(d.ratio), "probe_source_read_mib_s": d.probe.get("source-read"),
                     "probe_target_write_mib_s": d.probe.get("target-write"), "limited_by": d.limit})
        figures.append(_ratio_figure(d.disk, f"disk_vs_memory.{GUC_RATE}", d.ratio))
        for step in ("source-read", "target-write"):
            if step in d.probe:
                figures.append(_figure(d.disk, f"probe.{step}.mib_s", MIB_S, "mean", d.probe[step], 1))
    return ReportData("disk_vs_memory", tuple(rows), tuple(figures))


def stripe_data(cases: Sequence[CaseSummary]) -> ReportData:
    rows, figures = [], []
    for s in striped_cases(cases):
        rows.append({**_case_ref(s.case), "stripes": s.stripes, "runs": s.runs,
                     "median_mib_s": s.total_median, "stripe_median_mib_s": list(s.medians)})
        figures.extend(_figure(s.case, f"stripe[{i}].mib_s", MIB_S, "median", m, s.runs)
                       for i, m in enumerate(s.medians))
    return ReportData("stripes", tuple(rows), tuple(figures))


def data(records: Sequence[ResultRecord], cases: Sequence[CaseSummary]) -> list[ReportData]:
    """The three tables of the section's ``cases``; each is there (maybe empty), so a reader finds its
    key in every guc report."""
    return [efficiency_data(cases), disk_data(cases), stripe_data(cases)]
