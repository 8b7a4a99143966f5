"""guc against its iperf3 baseline: each guc case paired with the iperf3 runs planned next to it
(``baseline:``, same test and case), and the efficiency = guc rate / iperf3 rate. Pure.

The efficiency is the ratio of the means of the counted runs (passed, not warm-ups) with its 95 %
interval (:func:`gftpwb.core.stats.ratio_of_means`, made as :mod:`gftpwb.core.intervals` says). Two
ratios are given: guc's own average (without connection set-up: the closer match to iperf3's rate,
which leaves out the omitted seconds) and the rate incl. set-up on gftpwb's clock (what a user of
guc gets).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import median

from gftpwb.core.format import interval_text, rate_text
from gftpwb.core.intervals import RATIO_LEGEND
from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import ReportTable
from gftpwb.core.stats import Ratio, ratio_of_means
from gftpwb.core.summary import CaseSummary

IPERF3 = "iperf3"
GFAPI = "gfapi"
GUC_AVG, GUC_RATE, IPERF3_RATE = "rate_guc_avg_mib_s", "rate_incl_setup_mib_s", "rate_guc_avg_mib_s"


@dataclass(frozen=True)
class Efficiency:
    """One guc case against its baseline."""

    guc: CaseSummary
    baseline: CaseSummary
    iperf3_mib_s: float | None  # mean receiver rate
    guc_avg: Ratio | None
    guc_rate: Ratio | None

    @property
    def streams(self) -> int:
        return int(self.guc.params.get("parallel") or 1)


def counted_values(case: CaseSummary, key: str) -> list[float]:
    """The values of a figure that are statistics of the case (passed, not a warm-up, not excluded)."""
    return [v for r in case.runs if r.counted and key not in r.excluded
            for v in [r.values.get(key)] if v is not None]


def is_baseline(case: CaseSummary) -> bool:
    """An iperf3 case inside a guc test: the runs ``baseline:`` planned."""
    return case.kind == IPERF3


def is_companion(case: CaseSummary) -> bool:
    """Runs of another kind a guc test planned next to its own: iperf3 baselines, gfapi disk probes."""
    return case.kind in (IPERF3, GFAPI)


def probe_rates(cases: Sequence[CaseSummary], case: CaseSummary) -> dict[str, float]:
    """The disk probe's rates of a case (``source-read``, ``target-write`` -> MiB/s), from its gfapi runs."""
    probe = next((c for c in cases if c.kind == GFAPI and (c.test_id, c.case) == (case.test_id, case.case)), None)
    if probe is None:
        return {}
    return {str(r.record.details.get("probe")): v for r in probe.runs if r.counted
            for v in [r.values.get("mib_s")] if v is not None}


def limit_text(disk: float | None, memory: float | None, probe: dict[str, float]) -> str:
    """What limits a disk-to-disk case: the slowest of the source disk's reads, the target disk's
    writes (the probe) and the memory-to-memory transfer (network and guc), when the disk-to-disk
    rate comes near it (80 %); a rate well below all of them is the servers' file I/O (one file at a
    time through the page cache), or, without a memory case, any of network, guc and file I/O.
    "-" without a probe."""
    known = {name: value for name, value in (("source disk", probe.get("source-read")),
                                             ("target disk", probe.get("target-write")),
                                             ("network/guc", memory)) if value is not None}
    if disk is None or not probe or not known:
        return "-"
    slowest = min(known, key=lambda k: known[k])
    if disk >= 0.8 * known[slowest]:
        return f"{slowest} ({known[slowest]:.1f})"
    if memory is None:
        return "network, guc or file I/O (the disks are faster)"
    return "the servers' file I/O (every probe is faster)"


def efficiencies(cases: Sequence[CaseSummary]) -> list[Efficiency]:
    """Every guc case that has baseline runs (same test and case), in order."""
    baselines = {(c.test_id, c.case): c for c in cases if is_baseline(c)}
    out = []
    for case in cases:
        base = baselines.get((case.test_id, case.case))
        if is_baseline(case) or base is None:
            continue
        iperf3 = counted_values(base, IPERF3_RATE)
        ratios = {key: ratio_of_means(counted_values(case, key), iperf3) for key in (GUC_AVG, GUC_RATE)}
        out.append(Efficiency(case, base, sum(iperf3) / len(iperf3) if iperf3 else None,
                              ratios[GUC_AVG], ratios[GUC_RATE]))
    return out


def percent_text(ratio: Ratio | None) -> str:
    return "-" if ratio is None else f"{ratio.value * 100:.1f} %"


def ratio_interval_text(ratio: Ratio | None) -> str:
    """A ratio's interval in percent, as its bounds: ``[91.2, 97.0] %`` (not symmetric about
    the ratio: :mod:`gftpwb.core.format`)."""
    if ratio is None or ratio.ci is None:
        return "-"
    return interval_text(ratio.ci.low * 100, ratio.ci.high * 100, unit="%")


def mean_of(case: CaseSummary, key: str) -> float | None:
    values = counted_values(case, key)
    return sum(values) / len(values) if values else None


def efficiency_table(found: Sequence[Efficiency]) -> ReportTable:
    rows = []
    for e in found:
        ok = e.guc.passed == e.guc.total and e.baseline.passed == e.baseline.total
        rows.append(((e.guc.test_id, f"{e.guc.case:03d}", e.guc.params_text, str(e.streams),
                      f"{e.baseline.passed}/{e.baseline.total}", rate_text(e.iperf3_mib_s),
                      rate_text(mean_of(e.guc, GUC_AVG)), percent_text(e.guc_avg), ratio_interval_text(e.guc_avg),
                      rate_text(mean_of(e.guc, GUC_RATE)), percent_text(e.guc_rate), ratio_interval_text(e.guc_rate)),
                     "" if ok else "red"))
    columns = (("test", "left"), ("#", "right"), ("guc options", "left"), ("streams", "right"),
               ("iperf3 ok/runs", "right"), ("iperf3 MiB/s", "right"), ("guc avg", "right"), ("efficiency", "right"),
               ("95 % CI", "right"), ("incl. set-up", "right"), ("efficiency", "right"), ("95 % CI", "right"))
    caption = ("Efficiency = mean guc rate / mean iperf3 receiver rate of the runs paired by baseline: (same host "
               f"pair, streams and window, iperf3 run just before each guc run); {RATIO_LEGEND}. guc avg leaves out "
               "connection set-up; incl. set-up is gftpwb's clock. The TeraGrid study's GridFTP reached about 95 % "
               "of iperf.")
    return ReportTable("guc vs iperf3 baseline (MiB/s)", caption, columns, tuple(rows), keys=2)


def baseline_records(records: Sequence[ResultRecord]) -> list[ResultRecord]:
    return [r for r in records if r.kind == IPERF3]


# --- memory to memory against disk to disk ------------------------------------------------------------


MEMORY_DIRS = ("/dev/shm/", "/run/")  # tmpfs on Debian: test files there never touch a disk


def files_in_memory(files: dict) -> bool:
    """Whether a case's test files are on tmpfs at both ends (memory to memory with files)."""
    return all(str(files.get(end, "")).startswith(MEMORY_DIRS) for end in ("source_dir", "target_dir"))


def files_of_case(case: CaseSummary) -> dict | None:
    """The ``details.files`` of a disk-to-disk case (its first run's), None for a memory one (no
    test files, or test files on tmpfs at both ends)."""
    files = next((r.record.details.get("files") for r in case.runs if r.record.details.get("files")), None)
    return None if files is None or files_in_memory(files) else files


def _without_length(params: dict) -> dict:
    return {k: v for k, v in params.items() if k != "length"}


@dataclass(frozen=True)
class DiskComparison:
    """A disk-to-disk case against its memory-to-memory case (None when there is none)."""

    disk: CaseSummary
    memory: CaseSummary | None
    files: dict
    memory_median: float | None
    disk_median: float | None
    ratio: Ratio | None  # mean disk rate / mean memory rate
    probe: dict[str, float]  # source-read, target-write -> MiB/s
    limit: str

    @property
    def caches(self) -> str:
        caches = self.files.get("caches")
        return ("caches dropped" if caches and all(v == "dropped" for v in caches.values()) else
                "caches NOT dropped" if caches else "cached")

    @property
    def files_text(self) -> str:
        f = self.files
        return (f"{f.get('count')} x {(f.get('size') or 0) // 2**20} MiB {f.get('content')}, "
                f"{f.get('source_host')} -> {f.get('target_host')}, {self.caches}")


def disk_comparisons(cases: Sequence[CaseSummary]) -> list[DiskComparison]:
    """Each disk-to-disk case against the nearest memory-to-memory case before it with the same guc
    options (its length aside; else the first after it): both medians and disk / memory with its
    interval (ratio of means)."""
    guc = [c for c in cases if not is_companion(c)]
    memory = [c for c in guc if files_of_case(c) is None]
    out = []
    for case in guc:
        files = files_of_case(case)
        if files is None:
            continue
        same = [m for m in memory if _without_length(m.params) == _without_length(case.params)]
        before = [m for m in same if cases.index(m) < cases.index(case)]
        match = before[-1] if before else (same[0] if same else None)  # the nearest memory case before it
        disk_rates = counted_values(case, GUC_RATE)
        mem_rates = counted_values(match, GUC_RATE) if match else []
        ratio = ratio_of_means(disk_rates, mem_rates)
        probe = probe_rates(cases, case)
        disk_median, memory_median = median_of(disk_rates), median_of(mem_rates)
        out.append(DiskComparison(case, match, files, memory_median, disk_median, ratio, probe,
                                  limit_text(disk_median, memory_median, probe)))
    return out


def disk_table(cases: Sequence[CaseSummary]) -> ReportTable | None:
    """The memory-to-memory against disk-to-disk table (:func:`disk_comparisons`); None without disk cases."""
    rows = []
    for d in disk_comparisons(cases):
        case, match = d.disk, d.memory
        rows.append(((case.test_id, f"{case.case:03d}", case.params_text, d.files_text,
                      f"{match.test_id}[{match.case:03d}]" if match else "-",
                      rate_text(d.memory_median), rate_text(d.disk_median), percent_text(d.ratio),
                      ratio_interval_text(d.ratio), rate_text(d.probe.get("source-read")),
                      rate_text(d.probe.get("target-write")), d.limit),
                     "" if case.passed == case.total else "red"))
    if not rows:
        return None
    columns = (("disk test", "left"), ("#", "right"), ("guc options", "left"), ("files", "left"),
               ("memory case", "left"), ("memory", "right"), ("disk", "right"), ("disk / memory", "right"),
               ("95 % CI", "right"), ("source read", "right"), ("target write", "right"), ("limited by", "left"))
    return ReportTable("Memory to memory vs disk to disk", DISK_CAPTION, columns, tuple(rows), keys=2)


DISK_CAPTION = (
    "Rates incl. set-up, medians in MiB/s. Memory: /dev/zero to /dev/null, or test files on tmpfs at both "
    "ends, with the same guc options (length aside); disk: files made on the source and written on the "
    f"target. disk / memory: ratio of means, {RATIO_LEGEND}. Source read, target write: the disk probe (files: "
    "{probe: true}), "
    "one O_DIRECT thread per stream with the gfapi kind's POSIX worker; limited by: the slowest of the "
    "two disks and the memory-to-memory rate when the disk rate is within 80 % of it, else the servers' "
    "file I/O.")


def median_of(values: Sequence[float]) -> float | None:
    return median(values) if values else None
