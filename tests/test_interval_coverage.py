"""How often each interval a figure is shown with holds the truth, by seeded simulation at every n it
is shown for (gftpwb.core.intervals): the mean's, the median's, a ratio of means' and compare's change.
Rates vary by a factor from run to run (log-normal, as the simulated engine draws them), and real
runs also have slow outliers (a stall, a competing flow): both are drawn. Each interval must hold
the truth in about 95 % of draws (at least 93.5 % over 2000: the simulation's own error is 0.5 %),
never leave the figure's range, and exist from the n it is documented for and not below."""

from __future__ import annotations

import math

import numpy as np
import pytest

from gftpwb.core.compare_decision import can_decide
from gftpwb.core.intervals import (
    MEAN_MIN_RUNS,
    MEDIAN_MIN_RUNS,
    change_interval,
    mean_interval,
    median_interval,
    ratio_interval,
)

DRAWS = 2000
LEAST = 0.935  # 95 % less three times the simulation's standard error at 2000 draws
SIZES = (3, 4, 5, 6, 8, 10, 15, 20, 30, 50)
SPREADS = (0.03, 0.15, 0.4)  # sd of log rate: 3 %, 15 % and 40 % noise


def lognormal(generator: np.random.Generator, sigma: float, shape: tuple[int, ...]) -> np.ndarray:
    return 1000.0 * np.exp(sigma * generator.standard_normal(shape))


def with_stalls(generator: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Runs at 1000 MiB/s with 5 % noise, one in ten stalled to 30-70 % of that."""
    values = 1000.0 * np.exp(0.05 * generator.standard_normal(shape))
    stalled = generator.random(shape) < 0.1
    return np.where(stalled, values * generator.uniform(0.3, 0.7, shape), values)


@pytest.mark.parametrize("sigma", SPREADS)
def test_the_mean_interval_holds_the_mean_in_95_percent_and_stays_above_zero(sigma):
    truth = 1000.0 * math.exp(sigma**2 / 2)  # the mean of the log-normal runs
    g = np.random.default_rng(int(sigma * 1000))
    assert mean_interval(list(lognormal(g, sigma, (2,)))) is None  # below MEAN_MIN_RUNS: none
    for n in SIZES:
        samples = lognormal(g, sigma, (DRAWS, n))
        intervals = [mean_interval(list(s)) for s in samples]
        assert n >= MEAN_MIN_RUNS and all(i is not None and i.low > 0 for i in intervals)
        held = sum(i.low <= truth <= i.high for i in intervals) / DRAWS
        assert held >= LEAST, (sigma, n, held)


@pytest.mark.parametrize("n", (6, 8, 10, 20, 50, 100))
def test_the_median_interval_holds_the_median_in_95_percent_whatever_the_distribution(n):
    g = np.random.default_rng(n)
    assert median_interval([1.0] * (MEDIAN_MIN_RUNS - 1)) is None
    for name, samples, truth in (("log-normal 40 %", lognormal(g, 0.4, (DRAWS, n)), 1000.0),
                                 ("stalls", with_stalls(g, (DRAWS, n)), None)):
        if truth is None:  # the median of the mixture, from a million runs
            truth = float(np.median(with_stalls(np.random.default_rng(1), (1_000_000,))))
        intervals = [median_interval(list(s)) for s in samples]
        held = sum(i.low <= truth <= i.high for i in intervals) / DRAWS
        assert held >= LEAST, (name, n, held)
        assert all(i.low >= s.min() and i.high <= s.max() for i, s in zip(intervals, samples, strict=True))


@pytest.mark.parametrize("sigma", SPREADS)
def test_the_ratio_of_means_interval_holds_the_ratio_in_95_percent(sigma):
    truth = 0.9  # guc reaches 90 % of iperf3
    g = np.random.default_rng(7 + int(sigma * 1000))
    for n_num, n_den in ((3, 3), (3, 6), (5, 5), (10, 4), (20, 20)):
        tops = 0.9 * lognormal(g, sigma, (DRAWS, n_num))
        bottoms = lognormal(g, sigma, (DRAWS, n_den))
        intervals = [ratio_interval(list(t), list(b)) for t, b in zip(tops, bottoms, strict=True)]
        held = sum(i.low <= truth <= i.high for i in intervals) / DRAWS
        assert held >= LEAST and all(i.low > 0 for i in intervals), (sigma, n_num, n_den, held)
    assert ratio_interval([1.0, 2.0], [1.0, 2.0, 3.0]) is None


@pytest.mark.parametrize("sigma", SPREADS)
def test_the_change_interval_holds_the_change_in_95_percent_where_the_test_can_decide(sigma):
    factor = 1.1  # B 10 % faster
    g = np.random.default_rng(11 + int(sigma * 1000))
    for n_a, n_b in ((4, 4), (3, 5), (5, 5), (6, 6), (8, 8), (9, 9), (12, 20), (40, 40)):
        a = lognormal(g, sigma, (DRAWS, n_a))
        b = factor * lognormal(g, sigma, (DRAWS, n_b))
        intervals = [change_interval(list(x), list(y)) for x, y in zip(a, b, strict=True)]
        held = sum(i.low <= factor <= i.high for i in intervals) / DRAWS
        assert held >= LEAST and all(i.low > 0 for i in intervals), (sigma, n_a, n_b, held)


def test_the_change_interval_exists_exactly_where_the_test_can_decide():
    for n_a in range(1, 10):
        for n_b in range(1, 45):
            values_a, values_b = [float(10 + i) for i in range(n_a)], [float(20 + i) for i in range(n_b)]
            assert (change_interval(values_a, values_b) is not None) == can_decide(n_a, n_b), (n_a, n_b)


def test_the_change_interval_of_large_samples_counts_pairs_as_enumerating_them_does():
    """Past a million pairs the interval's bounds are found by bisection: the same bounds, to the
    last digits a report shows."""
    import gftpwb.core.intervals as intervals

    g = np.random.default_rng(3)
    a, b = list(lognormal(g, 0.2, (1100,))), list(1.05 * lognormal(g, 0.2, (1000,)))
    enumerated = change_interval(a, b)
    saved = intervals.ALL_PAIRS
    intervals.ALL_PAIRS = 0
    try:
        bisected = change_interval(a, b)
    finally:
        intervals.ALL_PAIRS = saved
    assert bisected.low == pytest.approx(enumerated.low, rel=1e-9)
    assert bisected.high == pytest.approx(enumerated.high, rel=1e-9)
