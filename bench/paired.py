"""Paired on/off measurements for the overhead benches (harness_stress.py, trace_overhead.py).

Why this exists: on the shared 2-core machine, throughput of the same run spreads by a factor of two
with the other sessions' load, so comparing two groups of runs (Welch) resolves only tens of percent.
What resolves a small overhead is (a) a quantity the load hardly moves, CPU time (user + system) per
unit of work, and (b) statistics on the differences *within* a pair, run back to back, so the drift
of the machine's load cancels. Both are here, next to Welch's test that the issues ask for.

* :func:`cpu_of` / :func:`children_cpu` / :func:`self_cpu`: CPU seconds from /proc and getrusage.
* :func:`pin`: restrict this process (and so everything it starts later) to a CPU set, so the
  measured work and the sampler or trace writer share the same CPUs and contend alike.
* :func:`compare`: per-pair relative change ``x_i / y_i - 1`` with its 95 % t interval, the paired
  t-test and Wilcoxon signed-rank p on the pair differences, and Welch's test with its interval for the
  change of the means.
"""

from __future__ import annotations

import math
import os
import resource
import statistics
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from scipy import stats

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int) -> float:
    """CPU seconds of a live process and of its children it has reaped (utime stime cutime cstime)."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return sum(int(fields[i]) for i in (11, 12, 13, 14)) / CLK_TCK


def children_cpu() -> float:
    """CPU seconds of every descendant this process has waited for (and that they waited for)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def self_cpu() -> float:
    """CPU seconds of this process, every thread."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def pin(cpus: str) -> str:
    """Pin this process to ``cpus`` (``"1"``, ``"0,1"``, ``"0-1"``), as ``taskset -c`` would; children
    started afterwards inherit it. Returns the set as applied, for the report."""
    wanted: set[int] = set()
    for part in cpus.split(","):
        low, _, high = part.partition("-")
        wanted.update(range(int(low), int(high or low) + 1))
    os.sched_setaffinity(0, wanted)
    return ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))


def alternating(pairs: int, a: str, b: str) -> Iterator[tuple[int, tuple[str, str]]]:
    """Pair numbers and the order within each pair: a-b, b-a, a-b, ... (a drift hits both alike)."""
    for i in range(pairs):
        yield i, (a, b) if i % 2 == 0 else (b, a)


@dataclass(frozen=True)
class Change:
    """How ``x`` differs from ``y`` (pairs: ``x[i]`` and ``y[i]`` were measured back to back), in %."""

    n: int
    mean_x: float
    mean_y: float
    paired: float  # mean of x_i / y_i - 1
    paired_low: float
    paired_high: float
    t_p: float  # paired t-test on x_i - y_i
    wilcoxon_p: float
    welch: float  # mean(x) / mean(y) - 1
    welch_low: float
    welch_high: float
    welch_p: float

    def inside(self, target_pct: float) -> bool:
        """True when the paired 95 % interval lies within +-target: the target is shown."""
        return -target_pct <= self.paired_low and self.paired_high <= target_pct

    def row(self) -> str:
        return (f"{self.paired:+.2f} % [{self.paired_low:+.2f}, {self.paired_high:+.2f}] | t p {self.t_p:.3f}, "
                f"Wilcoxon p {self.wilcoxon_p:.3f} | {self.welch:+.2f} % [{self.welch_low:+.2f}, "
                f"{self.welch_high:+.2f}], p {self.welch_p:.3f}")


def compare(x: Sequence[float], y: Sequence[float]) -> Change:
    """The relative change of ``x`` against ``y`` (equal lengths, paired by index, at least 2 pairs)."""
    if len(x) != len(y) or len(x) < 2:
        raise ValueError("compare needs two series of equal length, at least 2 pairs")
    n = len(x)
    ratios = [a / b - 1 for a, b in zip(x, y, strict=True)]
    mean_r = statistics.fmean(ratios)
    half_r = stats.t.ppf(0.975, n - 1) * statistics.stdev(ratios) / math.sqrt(n)
    diffs = [a - b for a, b in zip(x, y, strict=True)]
    t_p = float(stats.ttest_rel(x, y).pvalue) if any(diffs) else 1.0
    wilcoxon_p = float(stats.wilcoxon(diffs).pvalue) if any(diffs) else 1.0
    m_x, m_y = statistics.fmean(x), statistics.fmean(y)
    v_x, v_y = statistics.variance(x) / n, statistics.variance(y) / n
    se = math.sqrt(v_x + v_y)
    if se > 0:
        df = (v_x + v_y) ** 2 / (v_x ** 2 / (n - 1) + v_y ** 2 / (n - 1))
        half_w = stats.t.ppf(0.975, df) * se
        welch_p = float(stats.ttest_ind(x, y, equal_var=False).pvalue)
    else:
        half_w, welch_p = 0.0, 1.0
    d = m_x - m_y
    return Change(n, m_x, m_y, 100 * mean_r, 100 * (mean_r - half_r), 100 * (mean_r + half_r), t_p, wilcoxon_p,
                  100 * d / m_y, 100 * (d - half_w) / m_y, 100 * (d + half_w) / m_y, welch_p)


HEADER = ("| paired change, mean [95 % CI] | paired tests | Welch: change of means [95 % CI], p |", "|---|---|---|")


def loadavg() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.1f} {five:.1f} {fifteen:.1f}"
