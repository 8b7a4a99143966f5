"""The confidence intervals figures are shown with: how each is made, and the fewest runs it is shown
from. Pure; the one place these rules live, so a table, a chart, the JSON, the TUI and ``compare``
never disagree on them.

An interval never leaves the figure's possible range, and is shown only where its coverage was
checked (``tests/test_interval_coverage.py`` draws seeded samples at every n it is shown for and
counts how often it holds the true value). Every figure a kind names is positive (rates, files/s,
IOPS, latencies, a ratio of two rates): what varies from run to run is a factor (a run 10 % slower,
not 10 MiB/s slower), so their intervals are made on the log scale, where they cannot reach 0.

* **The mean** (:func:`mean_interval`): Cox's interval for the mean of a log-normal sample, with
  Student's t: ``exp(ȳ + s²/2 ± t(0.975, n-1) · √(s²/n + s⁴/(2(n-1))))`` of the log values ``y``.
  Positive, not symmetric about the mean (printed as its bounds), and the same as Student's t of
  the values themselves when the spread is small. From :data:`MEAN_MIN_RUNS` runs: two runs give an
  interval from one degree of freedom, 12.7 times their spread (``t(0.975, 1)``), which says no
  more than the two values. A figure that can be 0 or negative (:attr:`Figure.positive` false) gets
  Student's t of its values, from as many runs. A positive figure with a value of 0 or less has no
  interval (the log scale cannot hold it), and says so.
* **The median** (:func:`median_interval`): the order statistics ``[x₍ₖ₎, x₍ₙ₋ₖ₊₁₎]`` with the
  largest ``k`` for which ``P(Binomial(n, ½) < k) <= 2.5 %``: at least 95 % for any continuous
  distribution, within the values measured, from :data:`MEDIAN_MIN_RUNS` runs (with 5, even the
  smallest and largest value hold the median only 93.8 % of the time).
* **A ratio of two means** (:func:`ratio_interval`: guc's efficiency against iperf3, disk against
  memory): Cox's interval of each side's log mean, their difference with Welch's degrees of
  freedom; from :data:`MEAN_MIN_RUNS` runs a side.
* **A change between two samples** (:func:`change_interval`, ``compare``): the interval of B / A
  that inverts the Mann-Whitney test on the log values (Hodges-Lehmann's), ``[d₍ₖ₎, d₍ₙₐₙᵦ₋ₖ₊₁₎]`` of
  the ratios of every run of B to every run of A: at least 95 % under a change by a factor, for any
  distribution, and it exists exactly where that test can decide (4 runs a side; 3 and 5; ...).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

CONFIDENCE = 0.95
MEAN_MIN_RUNS = 3
MEDIAN_MIN_RUNS = 6

MEAN_METHOD = "log-normal mean (Cox, t)"
STUDENT_METHOD = "Student's t"
MEDIAN_METHOD = "order statistics"
RATIO_METHOD = "ratio of log-normal means (Cox, Welch t)"
CHANGE_METHOD = "Mann-Whitney inversion (Hodges-Lehmann)"

# How each interval is said under a table or a chart: what it is of, how it is made, from what n.
MEAN_LEGEND = (f"95 % CI of the mean: log-normal (Cox's interval on the log scale, Student's t), so never below 0; "
               f"none under {MEAN_MIN_RUNS} runs")
MEDIAN_LEGEND = f"95 % CI of the median: order statistics (any distribution); none under {MEDIAN_MIN_RUNS} runs"
CHANGE_LEGEND = ("95 % CI of the change: the Mann-Whitney test inverted over the ratios of every run of B to every "
                 "run of A (any distribution); none where the test cannot decide")
RATIO_LEGEND = (f"95 % CI of the ratio of means: log-normal means (Cox, Welch's t); none under {MEAN_MIN_RUNS} runs "
                "a side")


@dataclass(frozen=True)
class Interval:
    """A confidence interval: its bounds, the level it was computed for, and how it was made."""

    low: float
    high: float
    confidence: float = CONFIDENCE
    method: str = ""

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


@functools.lru_cache(maxsize=4096)
def t_quantile(q: float, df: float) -> float:
    """Student's t quantile (``scipy.special.stdtrit``: ``scipy.stats.t.ppf`` without importing
    scipy.stats, most of a report's start-up); cached, a report asks for the same few."""
    from scipy.special import stdtrit

    return float(stdtrit(df, q))


def _log_moments(values: Sequence[float]) -> tuple[float, float, int]:
    logs = [math.log(v) for v in values]
    n = len(logs)
    mean = math.fsum(logs) / n
    return mean, math.fsum((y - mean) ** 2 for y in logs) / (n - 1), n


def mean_interval(values: Sequence[float], *, positive: bool = True,
                  confidence: float = CONFIDENCE) -> Interval | None:
    """The interval of the mean (see the module): None below :data:`MEAN_MIN_RUNS` values, or for a
    positive figure with a value of 0 or less."""
    n = len(values)
    if n < MEAN_MIN_RUNS:
        return None
    q = t_quantile(0.5 + confidence / 2, n - 1)
    if not positive:
        mean = math.fsum(values) / n
        sd = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1))
        half = q * sd / math.sqrt(n)
        return Interval(mean - half, mean + half, confidence, STUDENT_METHOD)
    if min(values) <= 0:
        return None
    centre, var, _ = _log_moments(values)
    half = q * math.sqrt(var / n + var * var / (2 * (n - 1)))
    return _exp_interval(centre + var / 2 - half, centre + var / 2 + half, confidence, MEAN_METHOD)


def _exp_interval(low: float, high: float, confidence: float, method: str) -> Interval | None:
    """The interval of the log scale's bounds, back on the figure's; None when a bound is beyond a
    float (runs apart by hundreds of orders of magnitude: no interval says anything of them)."""
    try:
        return Interval(math.exp(low), math.exp(high), confidence, method)
    except OverflowError:
        return None


def no_mean_interval(values: Sequence[float], positive: bool = True) -> str:
    """Why :func:`mean_interval` gives none ("" when it gives one)."""
    if len(values) < MEAN_MIN_RUNS:
        return f"no CI under {MEAN_MIN_RUNS} runs"
    if positive and min(values) <= 0:
        return "no CI: a value of 0"
    if mean_interval(values, positive=positive) is None:
        return "no CI: runs orders of magnitude apart"
    return ""


@functools.lru_cache(maxsize=4096)
def median_rank(n: int, confidence: float = CONFIDENCE) -> int:
    """The largest ``k`` with ``P(Binomial(n, ½) <= k - 1) <= (1 - confidence) / 2``; 0 when none."""
    from scipy.special import bdtr

    tail = (1 - confidence) / 2
    k = 0
    while k < (n + 1) // 2 and float(bdtr(k, n, 0.5)) <= tail:
        k += 1
    return k


def median_interval(values: Sequence[float], confidence: float = CONFIDENCE, *,
                    ordered: Sequence[float] | None = None) -> Interval | None:
    """The order-statistic interval of the median (see the module); None below
    :data:`MEDIAN_MIN_RUNS` values. ``ordered``: the values already sorted, if the caller has them."""
    n = len(values)
    k = median_rank(n, confidence) if n >= MEDIAN_MIN_RUNS else 0
    if k == 0:
        return None
    data = ordered if ordered is not None else sorted(values)
    return Interval(float(data[k - 1]), float(data[n - k]), confidence, MEDIAN_METHOD)


def ratio_interval(numerator: Sequence[float], denominator: Sequence[float],
                   confidence: float = CONFIDENCE) -> Interval | None:
    """The interval of ``mean(numerator) / mean(denominator)`` (see the module); None below
    :data:`MEAN_MIN_RUNS` values a side or with a value of 0 or less."""
    na, nb = len(numerator), len(denominator)
    if na < MEAN_MIN_RUNS or nb < MEAN_MIN_RUNS or min(numerator) <= 0 or min(denominator) <= 0:
        return None
    ya, va, _ = _log_moments(numerator)
    yb, vb, _ = _log_moments(denominator)
    wa = va / na + va * va / (2 * (na - 1))
    wb = vb / nb + vb * vb / (2 * (nb - 1))
    se2 = wa + wb
    centre = (ya + va / 2) - (yb + vb / 2)
    if se2 <= 0:
        return _exp_interval(centre, centre, confidence, RATIO_METHOD)
    df = se2 * se2 / (wa * wa / (na - 1) + wb * wb / (nb - 1))
    half = t_quantile(0.5 + confidence / 2, df) * math.sqrt(se2)
    return _exp_interval(centre - half, centre + half, confidence, RATIO_METHOD)


# --- the change between two samples (compare) -------------------------------------------------------

#: Pairs of runs up to which every ratio is computed; past it the order statistics are found by
#: bisection, counting the pairs below a value (a case of 100,000 runs a side has 10^10 pairs).
ALL_PAIRS = 1_000_000


def _u_lower_tail(n_a: int, n_b: int, alpha_half: float) -> int:
    """The largest ``k`` with ``P(U <= k - 1) < alpha_half`` for the Mann-Whitney U of ``n_a`` and
    ``n_b`` values without ties: exact while a side has 8 or fewer (the distribution's counts are the
    coefficients of the Gaussian binomial), the normal approximation beyond (scipy's rule)."""
    small, large = sorted((n_a, n_b))
    if small > 8:
        from statistics import NormalDist

        total = n_a * n_b
        sd = math.sqrt(total * (n_a + n_b + 1) / 12)
        # P(U <= k - 1) ~ Phi((k - 1 + 0.5 - total/2) / sd), with the test's continuity correction
        return max(math.floor(total / 2 - NormalDist().inv_cdf(1 - alpha_half) * sd + 0.5), 0)
    return _exact_u_rank(small, large, alpha_half)


def _exact_u_rank(m: int, n: int, alpha_half: float) -> int:
    from .mannwhitney import u_cdf

    cdf = u_cdf(m, n)
    below = alpha_half * (1 - 1e-12)  # strictly under alpha/2, as the test's floor
    k = 0
    while k < len(cdf) and cdf[k] < below:
        k += 1
    return k


def _kth_ratio(la: Sequence[float], lb: Sequence[float], k: int) -> float:
    """The k-th smallest (1-based) of ``lb[j] - la[i]`` over every pair; ``la`` sorted."""
    import numpy as np

    a = np.asarray(la, dtype=float)
    b = np.asarray(lb, dtype=float)
    if a.size * b.size <= ALL_PAIRS:
        d = np.subtract.outer(b, a).ravel()
        return float(np.partition(d, k - 1)[k - 1])
    low, high = float(b.min() - a.max()), float(b.max() - a.min())

    def below(x: float) -> int:  # pairs with lb - la <= x
        return int((a.size - np.searchsorted(a, b - x, side="left")).sum())

    for _ in range(200):
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if below(middle) >= k:
            high = middle
        else:
            low = middle
    return high


def change_interval(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> Interval | None:
    """The interval of the factor B / A (see the module), as a ratio (1.05: 5 % higher); None where
    the Mann-Whitney test cannot decide with these many values, or with a value of 0 or less."""
    if not a or not b or min(a) <= 0 or min(b) <= 0:
        return None
    k = _u_lower_tail(len(a), len(b), (1 - confidence) / 2)
    if k < 1:
        return None
    la = sorted(math.log(v) for v in a)
    lb = [math.log(v) for v in b]
    total = len(a) * len(b)
    return _exp_interval(_kth_ratio(la, lb, k), _kth_ratio(la, lb, total - k + 1), confidence, CHANGE_METHOD)
