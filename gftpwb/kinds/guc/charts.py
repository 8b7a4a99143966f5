"""The guc section's own charts for the HTML report, the figures of the TeraGrid study (seed 002).
Pure (chart descriptions, :mod:`gftpwb.core.charts`).

* **guc vs iperf3 by streams** (per test with a baseline): the mean rates of iperf3, guc's own
  average and guc incl. set-up against the stream count, the paper's first figure; and the
  efficiency of each case with its interval, against a line at 95 % (the paper's GridFTP);
* **memory vs disk**: per disk-to-disk case, the rates that say what limits it side by side (memory
  to memory, disk to disk, the probe's source read and target write), and disk / memory with its
  interval over all cases;
* **striping**: the whole transfer's median rate against the stripe count, and each stripe's median
  of every striped case.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gftpwb.core.charts import Chart, IntervalChart, Line, LineChart, Mark, Point, n_span
from gftpwb.core.intervals import RATIO_LEGEND
from gftpwb.core.records import ResultRecord
from gftpwb.core.report_charts import case_label
from gftpwb.core.stats import Ratio
from gftpwb.core.summary import summarize_cases

from .efficiency import (
    GFAPI,
    GUC_AVG,
    GUC_RATE,
    IPERF3,
    DiskComparison,
    Efficiency,
    disk_comparisons,
    efficiencies,
    mean_of,
)
from .report import StripedCase, striped_cases

RATE_AXIS = "mean rate (MiB/s)"
PAPER = 0.95  # the TeraGrid study's GridFTP against iperf


def _percent_point(label: str, ratio: Ratio | None, *, mark: bool = False) -> Point | None:
    if ratio is None:
        return None
    ci = ratio.ci
    marks = (Mark(PAPER * 100, "95 % (TeraGrid study)", ratio.value >= PAPER),) if mark else ()
    label = f"{label} (n={ratio.n_numerator}/{ratio.n_denominator})"
    return Point(label, ratio.value * 100, ci.low * 100 if ci else None, ci.high * 100 if ci else None, marks=marks)


def by_streams_chart(test_id: str, found: Sequence[Efficiency]) -> Chart | None:
    """iperf3, guc avg and guc incl. set-up against the stream count (one test's cases)."""
    rows = sorted(found, key=lambda e: e.streams)
    lines = []
    for label, values in (("iperf3 (receiver)", [e.iperf3_mib_s for e in rows]),
                          ("guc avg (no set-up)", [mean_of(e.guc, GUC_AVG) for e in rows]),
                          ("guc incl. set-up", [mean_of(e.guc, GUC_RATE) for e in rows])):
        known = [(float(e.streams), v) for e, v in zip(rows, values, strict=True) if v is not None]
        if known:
            lines.append(Line(label, tuple(x for x, _ in known), tuple(y for _, y in known)))
    if len(lines) < 2:
        return None
    runs = [figure.stats.n for e in rows for case in (e.guc, e.baseline) for figure in case.figures[:1]
            if figure.stats is not None]
    return LineChart(f"{test_id}: guc vs iperf3 by parallel streams", "parallel streams (-p, iperf3 -P)", RATE_AXIS,
                     tuple(lines), integer_x=True,
                     note=f"Means of the counted runs ({n_span(runs)}); each guc run follows its iperf3 run on the "
                     "same host pair with the same streams and window. guc avg is missing where every run's was "
                     "quantised (under 1 s).")


def efficiency_chart(found: Sequence[Efficiency]) -> Chart | None:
    points = []
    for e in found:
        label = case_label(e.guc)
        for name, ratio in (("guc avg", e.guc_avg), ("incl. set-up", e.guc_rate)):
            point = _percent_point(f"{label} ({name})", ratio, mark=True)
            if point is not None:
                points.append(point)
    if not points:
        return None
    return IntervalChart("guc efficiency against iperf3", "case (guc figure)", "efficiency = guc / iperf3 (%)",
                         tuple(points), note=f"Ratio of the means, n: guc runs / iperf3 runs; whiskers: "
                         f"{RATIO_LEGEND}. Bar: the 95 % the TeraGrid study's GridFTP reached, green where the case "
                         "reached it.")


def disk_case_chart(d: DiskComparison) -> Chart | None:
    bars = [(name, value) for name, value in (("memory to memory", d.memory_median), ("disk to disk", d.disk_median),
                                              ("probe: source read", d.probe.get("source-read")),
                                              ("probe: target write", d.probe.get("target-write")))
            if value is not None]
    if len(bars) < 2:
        return None
    points = tuple(Point(name, value, highlight=name == "disk to disk") for name, value in bars)
    runs = [f.stats.n for c in (d.disk, d.memory) if c is not None for f in c.figures[:1] if f.stats is not None]
    return IntervalChart(f"{case_label(d.disk)}: what limits disk to disk", "rate", "median rate (MiB/s)", points,
                         note=f"{d.files_text}. Medians of {n_span(runs)}. Limited by: {d.limit}. Disk to disk is "
                         "highlighted; the probe is one O_DIRECT thread per stream on each end's disk.", bars=True)


def disk_ratio_chart(found: Sequence[DiskComparison]) -> Chart | None:
    points = [p for d in found for p in [_percent_point(case_label(d.disk), d.ratio)] if p is not None]
    if not points:
        return None
    return IntervalChart("disk to disk / memory to memory", "disk case", "disk / memory (%)", tuple(points),
                         note=f"Ratio of the mean rates incl. set-up, n: disk runs / memory runs; whiskers: "
                         f"{RATIO_LEGEND}.",
                         bars=True)


def scaling_chart(found: Sequence[StripedCase]) -> Chart | None:
    """The whole transfer's median rate against the stripe count, a line per guc option set (length aside)."""
    groups: dict[tuple, tuple[str, list[tuple[float, float]]]] = {}
    for s in found:
        if s.total_median is None:
            continue
        key = tuple(sorted((k, repr(v)) for k, v in s.case.params.items() if k not in ("length", "stripe")))
        options = _without_length(" ".join(w for w in s.case.params_text.split() if w != "-stripe"))
        name = f"guc {options} -stripe".replace("  ", " ")
        groups.setdefault(key, (name, []))[1].append((float(s.stripes), s.total_median))
    lines = [Line(name, tuple(x for x, _ in sorted(pts)), tuple(y for _, y in sorted(pts)))
             for name, pts in groups.values() if len({x for x, _ in pts}) >= 2]
    if not lines:
        return None
    runs = [s.runs for s in found if s.total_median is not None]
    return LineChart("striped transfers: rate by stripes (data nodes per side)", "stripes",
                     "median rate incl. set-up (MiB/s)", tuple(lines), integer_x=True,
                     note=f"Median of each case's counted runs ({n_span(runs)}); one line per set of guc options "
                     "(length aside). "
                     "Linear growth means each node adds its own path.")


def _without_length(options: str) -> str:
    """guc flags without ``-len N`` (the stripe cases of a study differ in length only)."""
    words = options.split()
    return " ".join(w for i, w in enumerate(words) if w != "-len" and (i == 0 or words[i - 1] != "-len"))


def stripes_chart(found: Sequence[StripedCase]) -> Chart | None:
    points = tuple(Point(f"{case_label(s.case)} stripe {i}", m) for s in found for i, m in enumerate(s.medians)
                   if m is not None)
    if not points:
        return None
    return IntervalChart("rate of each stripe", "case and stripe", "median rate (MiB/s)", points, bars=True,
                         note=f"From the servers' 112 performance markers (-dbg); median over the counted runs "
                         f"({n_span([s.runs for s in found])}).")


def charts(records: Sequence[ResultRecord], samples: Mapping[str, Any]) -> list[Chart]:
    if not any(r.kind in (IPERF3, GFAPI) or r.details.get("files") or r.details.get("stripes") for r in records):
        return []  # no baseline, disk or striped runs: no need to summarise the cases again (large reports)
    cases = summarize_cases(records)
    found = efficiencies(cases)
    out: list[Chart | None] = []
    for test_id in dict.fromkeys(e.guc.test_id for e in found):
        out.append(by_streams_chart(test_id, [e for e in found if e.guc.test_id == test_id]))
    out.append(efficiency_chart(found))
    disks = disk_comparisons(cases)
    out.extend(disk_case_chart(d) for d in disks)
    out.append(disk_ratio_chart(disks))
    striped = striped_cases(cases)
    out.extend((scaling_chart(striped), stripes_chart(striped)))
    return [c for c in out if c is not None]
