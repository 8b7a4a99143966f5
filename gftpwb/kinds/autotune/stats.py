"""The statistics the tuners need: means with t confidence intervals, and Welch's t-test.

Small and explicit on purpose, on the standard library only: scipy would do, but importing it loads
subprocess and socket (its test helpers, importlib.metadata), which the sans-I/O core must not.
The Student t distribution is computed from the regularised incomplete beta function (a continued
fraction, Numerical Recipes' betacf); ``tests/test_autotune_stats.py`` checks it against scipy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from statistics import NormalDist

_NORMAL = NormalDist()
_BIG_DF = 1e7  # beyond this many degrees of freedom, t is the normal distribution


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` (not necessarily whole) degrees of freedom."""
    if df >= _BIG_DF:
        return _NORMAL.cdf(t)
    t2 = t * t
    y = t2 / (df + t2)  # 1 - x, computed directly: for small |t|, x = df / (df + t^2) rounds to 1
    tail = 0.5 * (1.0 - betainc(0.5, df / 2.0, y)) if y < 0.5 else 0.5 * betainc(df / 2.0, 0.5, df / (df + t2))
    return 1.0 - tail if t > 0 else tail


def _t_pdf(t: float, df: float) -> float:
    log = (math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
           - (df + 1) / 2 * math.log1p(t * t / df))
    return math.exp(log)


@lru_cache(maxsize=4096)
def _t_quantile(p: float, df: float) -> float:
    z = _NORMAL.inv_cdf(p)
    if df >= _BIG_DF:
        return z
    # Cornish-Fisher start (Abramowitz & Stegun 26.7.5), then Newton steps on the exact CDF.
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    t = z + g1 / df + g2 / df ** 2 + g3 / df ** 3
    if df < 3:  # the expansion is poor for very few degrees of freedom: bracket and bisect first
        low, high = -1.0, 1.0
        while t_cdf(low, df) > p and low > -1e300:
            low *= 16
        while t_cdf(high, df) < p and high < 1e300:
            high *= 16
        for _ in range(400):
            mid = (low + high) / 2
            if t_cdf(mid, df) < p:
                low = mid
            else:
                high = mid
            if high - low < 1e-10 * max(1.0, abs(mid)):
                break
        t = (low + high) / 2
    for _ in range(8):
        step = (t_cdf(t, df) - p) / max(_t_pdf(t, df), 1e-300)
        t -= step
        if abs(step) < 1e-12 * max(1.0, abs(t)):
            break
    return t

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Estimate:
    n: int
    mean: float | None
    sd: float | None  # sample standard deviation (n - 1), None below two samples
    ci_low: float | None
    ci_high: float | None


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs 0 < p < 1, got {p}")
    return _t_quantile(float(p), round(float(df), 3))


def df_floor(df: float) -> float:
    """``df`` rounded down to a coarse grid (quarters below 10, whole numbers below 100, tens below
    1000, ...): fewer degrees of freedom give a larger quantile, so decisions made with it are
    slightly conservative, and the grid makes quantiles cacheable."""
    if df < 1.0:
        return max(math.floor(df * 8) / 8, 0.125)
    if df < 10.0:
        return math.floor(df * 4) / 4
    step = 10.0 ** (math.floor(math.log10(df)) - 1)
    return math.floor(df / step) * step


def critical_t(p: float, df: float) -> float:
    """The ``p`` quantile of t at ``df`` rounded down by :func:`df_floor` (cached, conservative)."""
    return t_quantile(p, df_floor(df))


def estimate(samples: Sequence[float], confidence: float = CONFIDENCE) -> Estimate:
    """Mean and a two-sided t confidence interval (none below two samples)."""
    n = len(samples)
    if n == 0:
        return Estimate(0, None, None, None, None)
    mean = math.fsum(samples) / n
    if n == 1:
        return Estimate(1, mean, None, None, None)
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in samples) / (n - 1))
    half = t_quantile(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
    return Estimate(n, mean, sd, mean - half, mean + half)


def welch_df(var_a: float, n_a: float, var_b: float, n_b: float, df_a: float | None = None,
             df_b: float | None = None) -> float:
    """Welch-Satterthwaite degrees of freedom; ``df_a``/``df_b`` default to n - 1."""
    qa, qb = var_a / n_a, var_b / n_b
    da = n_a - 1 if df_a is None else df_a
    db = n_b - 1 if df_b is None else df_b
    denominator = (qa * qa / da if da > 0 else 0.0) + (qb * qb / db if db > 0 else 0.0)
    if denominator <= 0:
        return 1e9  # both variances zero: the difference is known exactly
    return (qa + qb) ** 2 / denominator


def welch_t(mean_a: float, var_a: float, n_a: float, mean_b: float, var_b: float, n_b: float,
            df_a: float | None = None, df_b: float | None = None) -> tuple[float, float]:
    """Welch's t statistic for mu_a - mu_b and its degrees of freedom."""
    se2 = var_a / n_a + var_b / n_b
    df = welch_df(var_a, n_a, var_b, n_b, df_a, df_b)
    if se2 <= 0:
        return (math.inf if mean_a > mean_b else -math.inf if mean_a < mean_b else 0.0), df
    return (mean_a - mean_b) / math.sqrt(se2), df


def welch_greater(mean_a: float, var_a: float, n_a: float, mean_b: float, var_b: float, n_b: float,
                  df_a: float | None = None, df_b: float | None = None) -> float:
    """One-sided p-value of Welch's t-test for H1: mu_a > mu_b."""
    se2 = var_a / n_a + var_b / n_b
    if se2 <= 0:
        return 0.0 if mean_a > mean_b else 1.0
    t = (mean_a - mean_b) / math.sqrt(se2)
    df = welch_df(var_a, n_a, var_b, n_b, df_a, df_b)
    return t_cdf(-t, df)
