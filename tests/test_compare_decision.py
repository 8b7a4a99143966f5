"""When the Mann-Whitney U test of ``gftpwb compare`` can decide at all (gftpwb.core.compare_decision),
held to scipy's exact test; the runs it needs; and that it gives no verdict when it cannot. Its error
rates are tests/test_compare_error_rates.py's."""

from __future__ import annotations

import math

import pytest
from scipy.stats import mannwhitneyu

from gftpwb.core.compare_decision import (
    BY_TEST,
    FASTER,
    NO_DATA,
    SAME,
    SLOWER,
    TOO_FEW,
    can_decide,
    decide,
    runs_needed,
    smallest_p,
)


@pytest.mark.parametrize("n_a", range(1, 9))
@pytest.mark.parametrize("n_b", range(1, 9))
def test_the_smallest_p_is_scipys_for_two_samples_wholly_apart(n_a, n_b):
    a = [100.0 + i for i in range(n_a)]
    b = [10.0 + i for i in range(n_b)]  # every B below every A: the most extreme U
    assert smallest_p(n_a, n_b) == pytest.approx(mannwhitneyu(a, b, alternative="two-sided").pvalue)
    assert can_decide(n_a, n_b) == (mannwhitneyu(a, b, alternative="two-sided").pvalue < 0.05)


def test_which_run_counts_can_reach_p_under_005():
    assert smallest_p(3, 3) == pytest.approx(0.1)  # 2 / C(6, 3): never significant
    assert [can_decide(n, n) for n in (1, 2, 3, 4)] == [False, False, False, True]
    assert (can_decide(3, 4), can_decide(3, 5), can_decide(2, 7), can_decide(2, 8)) == (False, True, False, True)
    assert (can_decide(1, 39), can_decide(1, 40)) == (False, True)  # 2/40 is not under 0.05; 2/41 is
    assert not can_decide(0, 100) and smallest_p(0, 5) == 1.0


def test_the_runs_the_test_needs():
    assert runs_needed(3, 3) == (4, 4)  # as few as possible in all, as even as possible
    assert runs_needed(1, 1) == (4, 4) and runs_needed(2, 2) == (4, 4)
    assert runs_needed(2, 5) == (3, 5)  # one more run in A is enough
    assert runs_needed(10, 1) == (10, 2)
    for n_a in range(1, 12):
        for n_b in range(1, 12):
            a, b = runs_needed(n_a, n_b)
            assert a >= n_a and b >= n_b and can_decide(a, b)
            assert not any(can_decide(x, a + b - 1 - x) for x in range(n_a, a + b - n_b))  # none with fewer
    assert math.comb(8, 4) == 70  # (4, 4): the smallest p is 2/70 = 0.029


def verdict(change, p, n_a, n_b, threshold=5.0, higher_is_better=True):
    return decide(change, p, n_a, n_b, threshold, higher_is_better)


def test_the_test_decides_when_it_can():
    d = verdict(-41.6, 0.029, 4, 4)
    assert (d.verdict, d.basis, d.significant, d.needed) == (SLOWER, BY_TEST, True, None)
    d = verdict(-41.6, 0.11, 4, 4)  # p over alpha: the test's word stands
    assert (d.verdict, d.basis, d.significant) == (SAME, BY_TEST, False)
    d = verdict(3.0, 0.01, 6, 6)  # significant, but under the threshold
    assert (d.verdict, d.significant) == (SAME, False)
    # a figure where less is better (seconds): a drop is faster
    assert verdict(-10.0, 0.01, 6, 6, higher_is_better=False).verdict == FASTER


def test_with_too_few_runs_for_the_test_there_is_no_verdict_only_the_runs_it_needs():
    # 3 runs a side, -41.6 %: every run of B below every run of A happens 1 time in 10 by chance
    d = verdict(-41.6, 0.1, 3, 3)
    assert (d.verdict, d.basis, d.significant, d.needed) == (TOO_FEW, None, False, (4, 4))
    assert verdict(1.0, 0.7, 3, 3).verdict == TOO_FEW  # nor "no significant change": it could not be one
    assert verdict(-20.0, 0.33, 2, 2).needed == (4, 4)
    assert verdict(None, None, 0, 3) == decide(None, None, 0, 3, 5.0, True)
    assert verdict(None, None, 0, 3).verdict == NO_DATA
