"""The two-sided Mann-Whitney U test: ``scipy.stats.mannwhitneyu``'s U and p, except that small
samples with ties get the exact p too, without importing ``scipy.stats`` for large ones. Pure.

``gftpwb compare`` tests each case (1000 of them on a large base): importing ``scipy.stats`` took
0.3-0.8 s of its CPU and its per-call machinery (axis and NaN policies, array-API dispatch) about
half a millisecond a case, for a sum of ranks and one normal tail. Here the normal approximation
(the method scipy picks when both samples have more than 8 values) is computed with the same
operations in the same order: the average ranks, U, the tie-corrected standard deviation, the
continuity correction and ``scipy.special.ndtr``, so U and p are scipy's. The exact distribution of
small samples without ties (:func:`u_cdf`) is counted here too: scipy's call cost 1.7 ms for it, and
compare's error rates are checked on tens of thousands of such tests.

Small samples with ties are where this departs from scipy: its ``method="auto"`` switches to the
normal approximation on any tie, whose p at such sizes is far too small (2 runs a side, one side's
two equal: 0.221, where no arrangement of 4 values can give under 0.333: tgftp's whole-second
timing makes such ties common). Here they get the exact p of the permutation test on the average
ranks (:func:`_exact_tied_p`: what ``scipy.stats.permutation_test`` gives with every arrangement
enumerated), so a p is never smaller than the data can support. ``tests/test_mannwhitney.py``
holds all three to scipy with hypothesis.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

#: The work (tie groups x arrangements' sums) up to which small tied samples get the exact p; past
#: it (thousands of runs on the larger side) the normal approximation is close enough.
EXACT_TIED_BUDGET = 50_000_000


def _chooses_exact(n1: int, n2: int, ties: bool) -> bool:
    """scipy's ``method="auto"``: exact for small samples (either side 8 or fewer) without ties."""
    return not (n1 > 8 and n2 > 8) and not ties


def _small(n1: int, n2: int) -> bool:
    """Samples small enough for the exact distribution (scipy's rule: either side 8 or fewer)."""
    return not (n1 > 8 and n2 > 8)


def mann_whitney_u(x: Sequence[float], y: Sequence[float]) -> tuple[float, float]:
    """(U of ``x``, two-sided p-value): ``scipy.stats.mannwhitneyu(x, y, alternative="two-sided")``
    (continuity correction, ``method="auto"``), but the exact p for small samples with ties; both
    samples non-empty and finite."""
    import numpy as np
    from scipy.special import ndtr

    a = np.asarray(x, dtype=float)
    b = np.asarray(y, dtype=float)
    n1, n2 = a.size, b.size
    xy = np.concatenate((a, b))
    _, inverse, counts = np.unique(xy, return_inverse=True, return_counts=True)
    ties = bool((counts > 1).any())
    # average ranks: a value's rank is the mean of the 1-based positions its equals take
    ends = np.cumsum(counts)
    ranks = (ends - (counts - 1) / 2)[inverse]
    r1 = np.sum(ranks[:n1])
    u1 = r1 - n1 * (n1 + 1) / 2
    if _chooses_exact(n1, n2, ties):
        # scipy's exact two-sided p: twice the tail of the smaller U, at most 1
        smaller = int(min(u1, n1 * n2 - u1) + 0.5)  # U is whole without ties
        return float(u1), min(1.0, 2 * float(u_cdf(min(n1, n2), max(n1, n2))[smaller]))
    if _small(n1, n2):
        exact = _exact_tied_p(counts, inverse[:n1], n1, n2)
        if exact is not None:
            return float(u1), exact
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


@functools.lru_cache(maxsize=32)
def u_cdf(m: int, n: int) -> Any:
    """``P(U <= u)`` for ``u = 0 .. m·n``: the exact distribution of the Mann-Whitney U of ``m`` and
    ``n`` values without ties (``m <= n``). The numbers of arrangements with each U are the
    coefficients of the Gaussian binomial ``prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i)``: each factor
    multiplied in, then divided out as a running sum along every residue of its step (O(m² n))."""
    import numpy as np

    degree = m * n
    counts = np.zeros(degree + 1)
    counts[0] = 1.0
    for i in range(1, m + 1):
        counts[n + i:] -= counts[:degree + 1 - n - i].copy()  # times (1 - q^(n+i))
        for residue in range(i):  # divided by (1 - q^i)
            counts[residue::i] = np.cumsum(counts[residue::i])
    cdf = np.cumsum(counts) / math.comb(m + n, m)
    cdf.flags.writeable = False
    return cdf


def _exact_tied_p(counts: Any, groups_of_x: Any, n1: int, n2: int) -> float | None:
    """The exact two-sided p of the rank-sum test with ties, as ``scipy.stats.permutation_test`` gives
    it with every arrangement enumerated: of all C(n1 + n2, n1) ways to split the values into samples
    of n1 and n2, twice the share on the rarer side of the observed rank sum (at or beyond it), at
    most 1. (With ties the average ranks need not be symmetric about their mean, so the two tails
    differ.) ``counts``: how many values each distinct value (in order) has; ``groups_of_x``: the
    distinct value each x is. None when the work would exceed :data:`EXACT_TIED_BUDGET`.

    Counted by dynamic programming over the tie groups, in doubled ranks (whole numbers): ways[j, s]
    is the number of ways to take j values with doubled rank sum s, for the smaller sample (the
    tails of the other's sum are the same, swapped)."""
    import numpy as np

    n = n1 + n2
    k = min(n1, n2)  # count the smaller side: fewer rows
    ends = np.cumsum(counts)
    doubled = (2 * ends - (counts - 1)).astype(np.int64)  # twice each group's average rank
    top = int(doubled[-1]) * k
    if len(counts) * (k + 1) * (top + 1) > EXACT_TIED_BUDGET:
        return None
    observed = int(np.sum(doubled[groups_of_x]))
    if n1 > n2:
        observed = int(np.sum(doubled * counts)) - observed  # the other side's sum
    ways = np.zeros((k + 1, top + 1))
    ways[0, 0] = 1.0
    for size, rank in zip(counts.tolist(), doubled.tolist(), strict=True):
        before = ways.copy()
        for c in range(1, min(size, k) + 1):  # take c of the group's equal values
            shift = c * rank
            ways[c:, shift:] += math.comb(size, c) * before[:-c, :top + 1 - shift]
    below = float(ways[k, :observed + 1].sum())
    above = float(ways[k, observed:].sum())
    return min(1.0, 2 * min(below, above) / math.comb(n, k))
