"""compare's verdicts are checked, not assumed: seeded simulations draw runs of one link twice (no change
at all) and runs of a link before and after a known change, at every number of runs a side and every
noise compare is used at, and count the verdicts (gftpwb.core.compare.judge, what compare says of every
case). Rates vary by a factor from run to run (log-normal), as the simulated engine draws them.

* Below 4 runs a side (3 and 5, 2 and 8, ...) compare gives no verdict: no rule without a model of the
  noise reaches 5 % false alarms there.
* Where it gives one, *faster* or *slower* between runs of one link (a false alarm) comes at most 5 % of
  the time, and a known change is never called the wrong way round more than 2.5 % of the time: an
  observed share passes when a binomial test cannot tell it from that bound (p > 0.01), so the
  simulation's own noise is not taken for a failure.
* A change of 20 % is found from 4 runs a side when the noise is 5 %, as the quickstart needs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from gftpwb.core.compare import judge
from gftpwb.core.compare_decision import FASTER, SAME, SLOWER, TOO_FEW, can_decide

THRESHOLD_PCT = 5.0  # compare's default --threshold
NOISES = (0.05, 0.15, 0.40)
DECIDING = ((4, 4), (3, 5), (2, 8), (5, 5), (6, 6), (8, 8), (10, 10), (16, 16), (6, 20))
TOO_FEW_SIZES = ((1, 1), (2, 2), (3, 3), (2, 5), (3, 4), (1, 10))
NULL_DRAWS, CHANGE_DRAWS = 1000, 400


def runs(generator: np.random.Generator, noise: float, draws: int, n: int, factor: float = 1.0) -> np.ndarray:
    return factor * 1000.0 * np.exp(noise * generator.standard_normal((draws, n)))


def verdicts(a: np.ndarray, b: np.ndarray) -> list[str]:
    return [judge(list(x), list(y), THRESHOLD_PCT).decision.verdict for x, y in zip(a, b, strict=True)]


def not_above(count: int, draws: int, rate: float) -> bool:
    """Whether ``count`` of ``draws`` is consistent with a rate of at most ``rate`` (one-sided binomial
    test at 1 %)."""
    return float(binom.sf(count - 1, draws, rate)) > 0.01


@pytest.mark.parametrize("noise", NOISES)
def test_below_four_runs_a_side_compare_gives_no_verdict(noise):
    g = np.random.default_rng(int(noise * 100))
    for n_a, n_b in TOO_FEW_SIZES:
        assert not can_decide(n_a, n_b)
        for factor in (1.0, 0.8):  # no change, and 20 % slower
            said = set(verdicts(runs(g, noise, 200, n_a), runs(g, noise, 200, n_b, factor)))
            assert said == {TOO_FEW}, (noise, n_a, n_b, factor, said)


@pytest.mark.parametrize("noise", NOISES)
def test_false_alarms_are_at_most_five_percent_wherever_compare_decides(noise):
    g = np.random.default_rng(100 + int(noise * 100))
    for n_a, n_b in DECIDING:
        said = verdicts(runs(g, noise, NULL_DRAWS, n_a), runs(g, noise, NULL_DRAWS, n_b))
        alarms = sum(v in (FASTER, SLOWER) for v in said)
        assert TOO_FEW not in said
        assert not_above(alarms, NULL_DRAWS, 0.05), (noise, n_a, n_b, alarms / NULL_DRAWS)


@pytest.mark.parametrize("noise", NOISES)
def test_a_known_change_is_never_called_the_wrong_way(noise):
    g = np.random.default_rng(200 + int(noise * 100))
    for n_a, n_b in DECIDING:
        said = verdicts(runs(g, noise, CHANGE_DRAWS, n_a), runs(g, noise, CHANGE_DRAWS, n_b, 0.8))
        wrong = sum(v == FASTER for v in said)
        assert not_above(wrong, CHANGE_DRAWS, 0.025), (noise, n_a, n_b, wrong / CHANGE_DRAWS)
        if noise == 0.05:  # the quickstart's loopback: a change of 20 % is seen from 4 runs a side
            assert sum(v == SLOWER for v in said) >= 0.95 * CHANGE_DRAWS, (n_a, n_b)
        assert set(said) <= {FASTER, SLOWER, SAME}
