"""The statistics the tuners need: Student's t and Welch's t-test.

Student's t comes from scipy (``scipy.stats.t``): its cdf and quantile function for fractional degrees
of freedom, which Welch's test needs. Quantiles are cached on a coarse grid of degrees of freedom
(:func:`df_floor`), since the adaptive strategy asks for the same few thousands of times per tune.
"""

from __future__ import annotations

import math
from functools import lru_cache

CONFIDENCE = 0.95


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with ``df`` (not necessarily whole) degrees of freedom."""
    from scipy import stats  # not at import time: reports import this module, and most never ask

    return float(stats.t.cdf(t, df))


@lru_cache(maxsize=4096)
def _t_quantile(p: float, df: float) -> float:
    from scipy import stats

    return float(stats.t.ppf(p, df))


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
