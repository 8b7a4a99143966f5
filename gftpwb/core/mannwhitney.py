"""The two-sided Mann-Whitney U test as ``scipy.stats.mannwhitneyu`` computes it, without importing
``scipy.stats``. Pure.

``gftpwb compare`` tests each case (1000 of them on a large base): importing ``scipy.stats`` took
0.3-0.8 s of its CPU and its per-call machinery (axis and NaN policies, array-API dispatch) about
half a millisecond a case, for a sum of ranks and one normal tail. Here the normal approximation
(the method scipy picks when both samples have more than 8 values, or when there are ties) is
computed with the same operations in the same order: the average ranks, U, the tie-corrected
standard deviation, the continuity correction and ``scipy.special.ndtr``, so U and p are scipy's.
The exact distribution (small samples without ties) is left to ``scipy.stats``, imported only then.
``tests/test_mannwhitney.py`` holds both to scipy with hypothesis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def _chooses_exact(n1: int, n2: int, ties: bool) -> bool:
    """scipy's ``method="auto"``: exact for small samples (either side 8 or fewer) without ties."""
    return not (n1 > 8 and n2 > 8) and not ties


def mann_whitney_u(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """(U of ``x``, two-sided p-value) of ``scipy.stats.mannwhitneyu(x, y, alternative="two-sided")``
    (continuity correction, ``method="auto"``); both samples non-empty and finite."""
    import numpy as np
    from scipy.special import ndtr

    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    n1, n2 = a.size, b.size
    xy = np.concatenate((a, b))
    _, inverse, counts = np.unique(xy, return_inverse=True, return_counts=True)
    ties = bool((counts > 1).any())
    if _chooses_exact(n1, n2, ties):
        from scipy.stats import mannwhitneyu

        result = mannwhitneyu(x, y, alternative="two-sided")
        return float(result.statistic), float(result.pvalue)
    # average ranks: a value's rank is the mean of the 1-based positions its equals take
    ends = np.cumsum(counts)
    ranks = (ends - (counts - 1) / 2)[inverse]
    r1 = np.sum(ranks[:n1])
    u1 = r1 - n1 * (n1 + 1) / 2
    u2 = n1 * n2 - u1
    u = np.maximum(u1, u2)
    t = counts.astype(float)
    mu = n1 * n2 / 2
    n = n1 + n2
    tie_term = np.sum(t**3 - t, axis=-1)
    s = np.sqrt(n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1))))
    numerator = u - mu
    numerator -= 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        z = numerator / s
    p: Any = ndtr(-z)
    p *= 2
    p = np.clip(p, 0.0, 1.0)
    return float(u1), float(p)
