"""A comparison's verdict in words, for people: ``B is 4.1 % faster, significant (Mann-Whitney U,
p=0.003)`` or ``no significant change: B +0.8 % (Mann-Whitney U, p=0.41)``. The numbers and the
verdict are :func:`gftpwb.core.compare.compare_figure`'s; this only says them. Pure."""

from __future__ import annotations

from .compare import ALPHA, FASTER, NO_DATA, SLOWER, Change, Comparison

TEST_SHORT = "Mann-Whitney U"  # compare's TEST_NAME without "(two-sided)", for a sentence


def p_words(p: float | None) -> str:
    return "p -" if p is None else f"p={p:.3f}" if p >= 0.001 else "p<0.001"


def change_sentence(x: Change, threshold_pct: float) -> str:
    """What the change of B against A means: its direction and size, and whether it is significant."""
    test = f"({TEST_SHORT}, {p_words(x.p_value)})"
    if x.verdict == NO_DATA or x.change_pct is None:
        return f"no data to compare (counted runs: A {x.a.n}, B {x.b.n})"
    if x.verdict in (FASTER, SLOWER):
        return f"B is {abs(x.change_pct):.1f} % {x.verdict}, significant {test}"
    if x.p_value is not None and x.p_value < ALPHA:
        return f"no significant change: B {x.change_pct:+.1f} %, under the {threshold_pct:g} % threshold {test}"
    return f"no significant change: B {x.change_pct:+.1f} % {test}"


def comparison_counts(c: Comparison) -> str:
    """``3 compared: 1 faster, 0 slower, 2 without a significant change`` (as ``gftpwb compare`` ends)."""
    faster = sum(1 for x in c.changes if x.verdict == FASTER)
    same = len(c.changes) - faster - c.regressions
    return f"{len(c.changes)} compared: {faster} faster, {c.regressions} slower, {same} without a significant change"
