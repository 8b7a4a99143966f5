"""A comparison's verdict in words, for people: ``B is 4.1 % faster, significant (Mann-Whitney U,
p=0.003)``, ``no significant change: B +0.8 % (Mann-Whitney U, p=0.41)``, or, when too few runs
leave the test unable to decide, that it cannot and the runs it needs. The
numbers and the verdict are :func:`gftpwb.core.compare.compare_figure`'s; this only says them. Pure."""

from __future__ import annotations

from .compare import ALPHA, FASTER, NO_DATA, SLOWER, TOO_FEW, Change, Comparison
from .compare_decision import needed_text, smallest_p

TEST_SHORT = "Mann-Whitney U"  # compare's TEST_NAME without "(two-sided)", for a sentence


def p_words(p: float | None) -> str:
    return "p -" if p is None else f"p={p:.3f}" if p >= 0.001 else "p<0.001"


def change_sentence(x: Change, threshold_pct: float) -> str:
    """What the change of B against A means: its direction and size, and whether it is significant."""
    test = f"({TEST_SHORT}, {p_words(x.p_value)})"
    if x.verdict == NO_DATA or x.change_pct is None:
        return f"no data to compare (counted runs: A {x.a.n}, B {x.b.n})"
    if x.runs_needed is not None:
        return _too_few(x)
    if x.verdict in (FASTER, SLOWER):
        return f"B is {abs(x.change_pct):.1f} % {x.verdict}, significant {test}"
    if x.p_value is not None and x.p_value < ALPHA:
        return f"no significant change: B {x.change_pct:+.1f} %, under the {threshold_pct:g} % threshold {test}"
    return f"no significant change: B {x.change_pct:+.1f} % {test}"


def _too_few(x: Change) -> str:
    """A case the test cannot decide (too few runs): the change as measured, and the runs it needs."""
    assert x.runs_needed is not None and x.change_pct is not None
    return (f"too few runs to say: B {x.change_pct:+.1f} %, but with A {x.a.n} and B {x.b.n} runs {TEST_SHORT}'s p "
            f"cannot be under {smallest_p(x.a.n, x.b.n):.3f}; it needs {needed_text(x.runs_needed)}")


def comparison_counts(c: Comparison) -> str:
    """``3 compared: 1 faster, 0 slower, 2 without a significant change`` (as ``gftpwb compare`` ends),
    and ``, 1 with too few runs`` when the test could decide some case neither way."""
    faster = sum(1 for x in c.changes if x.verdict == FASTER)
    too_few = sum(1 for x in c.changes if x.verdict == TOO_FEW)
    same = len(c.changes) - faster - c.regressions - too_few
    return (f"{len(c.changes)} compared: {faster} faster, {c.regressions} slower, {same} without a significant change"
            + (f", {too_few} with too few runs to say" if too_few else ""))
