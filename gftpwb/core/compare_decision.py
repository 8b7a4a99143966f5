"""How ``gftpwb compare`` decides a case's verdict, and when it cannot. Pure.

The test is the two-sided Mann-Whitney U test. Its p-value cannot fall below a floor set by the
numbers of runs alone: when every run of B beats every run of A, the exact p is ``2 / C(n_a + n_b,
n_a)``, so with 3 runs a side it is never below 0.100, and with 2 a side never below 0.333. Below
:data:`ALPHA` the test can decide only from 4 runs a side (p >= 0.029), or 3 and 5, 2 and 8, 1 and
40. A comparison of fewer runs would say "no significant change" for any change at all, which reads
as evidence that nothing changed. So:

* when the test can decide (its floor is below alpha), it decides: significant when p < alpha and
  the change is at least the threshold, else no significant change;
* when it cannot, the verdict is *too few runs*, with the runs each side needs. No other rule
  decides in its place. A rule that needs no model of the noise (rates are skewed and have
  outliers) cannot do better than the ranks: with 3 runs a side, every run of B beating every run
  of A happens by chance 1 time in 10; and a percentile bootstrap of the change, between runs of one
  link, leaves 0 out of its "95 %" interval far more often than 5 % at such sizes.

Its false alarms (a verdict of faster or slower between samples of one distribution) are at most
alpha wherever it decides, and it never calls a known change the wrong way: both checked by seeded
simulation at every size and noise it gives a verdict for (``tests/test_compare_error_rates.py``).

The floor is that of the exact test, which small samples get with or without ties
(:mod:`gftpwb.core.mannwhitney`: scipy switches to the normal approximation on any tie, whose p for
2 and 2 runs can be 0.221 and for 3 and 3 under 0.05, an artefact of the approximation at such
sizes); ties can only raise it, so it is taken from the run counts alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

ALPHA = 0.05
FASTER, SLOWER, SAME, TOO_FEW, NO_DATA = "faster", "slower", "no significant change", "too few runs", "no data"
VERDICTS = (FASTER, SLOWER, SAME, TOO_FEW, NO_DATA)
BY_TEST = "test"


def smallest_p(n_a: int, n_b: int) -> float:
    """The smallest two-sided p the exact Mann-Whitney U test can give for ``n_a`` and ``n_b``
    values: both sides completely apart. 1 when a side has no value."""
    if n_a < 1 or n_b < 1:
        return 1.0
    return min(1.0, 2 / math.comb(n_a + n_b, n_a))


def can_decide(n_a: int, n_b: int, alpha: float = ALPHA) -> bool:
    """Whether the test can reach p < ``alpha`` at all with these numbers of runs."""
    return smallest_p(n_a, n_b) < alpha


def runs_needed(n_a: int, n_b: int, alpha: float = ALPHA) -> tuple[int, int]:
    """The fewest runs (A, B), no fewer than each side has, with which the test can decide: the
    smallest total, the most even split among those (3 and 3 -> 4 and 4; 10 and 1 -> 10 and 2)."""
    total = max(n_a, 0) + max(n_b, 0)
    while True:
        fits = [(a, total - a) for a in range(max(n_a, 1), total) if total - a >= max(n_b, 1)
                and can_decide(a, total - a, alpha)]
        if fits:
            return min(fits, key=lambda ab: abs(ab[0] - ab[1]))
        total += 1


@dataclass(frozen=True)
class Decision:
    """A case's verdict, what it rests on (the test, or nothing), whether the test found the change
    significant, and the runs (A, B) the test needs when it cannot decide."""

    verdict: str
    basis: str | None  # BY_TEST, or None (no data, or too few runs)
    significant: bool
    needed: tuple[int, int] | None  # None: the test can decide with the runs there are


def decide(change_pct: float | None, p: float | None, n_a: int, n_b: int, threshold_pct: float,
           higher_is_better: bool, alpha: float = ALPHA) -> Decision:
    """The verdict on one case's figure (see the module's docstring for the rule)."""
    if change_pct is None:
        return Decision(NO_DATA, None, False, None)
    if not can_decide(n_a, n_b, alpha):
        return Decision(TOO_FEW, None, False, runs_needed(n_a, n_b, alpha))
    significant = p is not None and p < alpha and abs(change_pct) >= threshold_pct
    if not significant:
        return Decision(SAME, BY_TEST, False, None)
    return Decision(FASTER if (change_pct > 0) == higher_is_better else SLOWER, BY_TEST, True, None)


def needed_text(needed: tuple[int, int]) -> str:
    """``4 runs a side`` or ``3 runs in A and 5 in B``."""
    a, b = needed
    return f"{a} runs a side" if a == b else f"{a} runs in A and {b} in B"
