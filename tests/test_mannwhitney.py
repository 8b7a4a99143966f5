"""gftpwb.core.mannwhitney gives scipy.stats.mannwhitneyu's U and p (two-sided, method "auto"): the
same numbers for samples with and without ties, small and large (the normal approximation's exactly;
the exact distribution's, below 9 values a side without ties, counted here, to the last bits), except small
samples with ties: there scipy's normal approximation claims far more than the data supports, and
the p is the exact permutation test's (scipy's permutation method with every arrangement counted)."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from scipy.stats import PermutationMethod, mannwhitneyu
from support.fuzzseed import FUZZ_SEED, say_seed

from gftpwb.core.compare_decision import smallest_p
from gftpwb.core.mannwhitney import _chooses_exact, _small, mann_whitney_u

_VALUES = st.one_of(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, 1.0, 1.5, 2.0, 100.0, 137.25]),  # ties
)


@settings(max_examples=500, deadline=None)
@given(st.lists(_VALUES, min_size=1, max_size=40), st.lists(_VALUES, min_size=1, max_size=40))
def test_u_and_p_are_scipy_s(x: list[float], y: list[float]) -> None:
    expected = mannwhitneyu(x, y, alternative="two-sided")
    u, p = mann_whitney_u(x, y)
    assert u == float(expected.statistic)
    if _small(len(x), len(y)) and len(set(x) | set(y)) < len(x) + len(y):
        return  # small samples with ties: the exact p (below), not scipy's normal approximation
    if _chooses_exact(len(x), len(y), ties=False) and len(set(x) | set(y)) == len(x) + len(y):
        assert p == pytest.approx(float(expected.pvalue), rel=1e-12)
        return
    assert p == float(expected.pvalue) or (p != p and expected.pvalue != expected.pvalue)


_TIED = st.sampled_from([1.0, 2.0, 3.0, 4.0, 5.0, 1024.0])  # few values: many ties, as whole seconds give


@seed(FUZZ_SEED)
@settings(max_examples=300, deadline=None)
@given(st.lists(_TIED, min_size=2, max_size=6), st.lists(_TIED, min_size=2, max_size=9))  # scipy needs 2
def test_small_samples_with_ties_get_the_exact_permutation_p(x: list[float], y: list[float]) -> None:
    """Every split of the values counted (C(15, 6) = 5005 at most), as scipy's permutation method does
    when it may draw more resamples than there are splits."""
    say_seed()
    if len(set(x) | set(y)) == len(x) + len(y):
        return  # no tie: scipy's exact distribution, above
    expected = mannwhitneyu(x, y, alternative="two-sided", method=PermutationMethod(n_resamples=10**6))
    u, p = mann_whitney_u(x, y)
    assert u == float(expected.statistic)
    assert p == pytest.approx(float(expected.pvalue), rel=1e-12, abs=1e-15)


@seed(FUZZ_SEED)
@settings(max_examples=300, deadline=None)
@given(st.lists(_TIED, min_size=1, max_size=8), st.lists(_TIED, min_size=1, max_size=30))
def test_no_p_is_below_what_the_runs_can_support(x: list[float], y: list[float]) -> None:
    """The smallest p of the exact test, 2 / C(n_x + n_y, n_x), is a floor ties cannot lower."""
    say_seed()
    assert mann_whitney_u(x, y)[1] >= smallest_p(len(x), len(y)) * (1 - 1e-12)


def test_two_runs_a_side_one_side_tied_is_not_under_one_third() -> None:
    """tgftp times runs to the whole second, so its rates tie: 2 runs a side, A's two at 1024.0. scipy's
    normal approximation said 0.221; no split of 4 values into 2 and 2 can give under 1/3."""
    assert float(mannwhitneyu([1024.0, 1024.0], [1839.4, 1900.2]).pvalue) < 0.25  # what was printed
    assert mann_whitney_u([1024.0, 1024.0], [1839.4, 1900.2]) == (0.0, pytest.approx(1 / 3))
    assert mann_whitney_u([1024.0, 1024.0, 1024.0], [2048.0, 2048.0, 1900.0])[1] == pytest.approx(0.1)


def test_the_exact_p_of_many_tied_runs_on_one_side_is_counted_not_enumerated() -> None:
    """8 runs against 400 (C(408, 8) ~ 1e15 splits) take one pass over the tie groups."""
    rng = np.random.default_rng(7)
    x = [float(v) for v in rng.integers(1, 20, 8)]
    y = [float(v) for v in rng.integers(5, 40, 400)]
    p = mann_whitney_u(x, y)[1]
    assert smallest_p(8, 400) <= p <= 1


def test_the_method_is_scipy_s_choice() -> None:
    assert _chooses_exact(8, 100, ties=False) and _chooses_exact(3, 3, ties=False)
    assert not _chooses_exact(9, 9, ties=False) and not _chooses_exact(3, 3, ties=True)


def test_large_samples_do_not_import_scipy_stats() -> None:
    """compare's 1000 cases of ~100 runs never need scipy.stats (its import cost most of the test)."""
    import subprocess

    code = ("import sys; from gftpwb.core.mannwhitney import mann_whitney_u; "
            "mann_whitney_u([float(i) for i in range(50)], [i + 0.5 for i in range(60)]); "
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
