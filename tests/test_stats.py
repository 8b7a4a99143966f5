"""The statistics of a case (gftpwb.core.stats), checked against scipy and numpy with hypothesis.
How often the intervals hold the truth is tests/test_interval_coverage.py's."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from gftpwb.core.intervals import MEAN_MIN_RUNS, MEDIAN_MIN_RUNS
from gftpwb.core.stats import Interval, describe, describe_many, seed_of, tukey_outliers

rates = st.floats(min_value=0.5, max_value=1e5, allow_nan=False, allow_infinity=False)
samples = st.lists(rates, min_size=1, max_size=40)


@given(samples)
@settings(max_examples=60, deadline=None)
def test_moments_agree_with_scipy(values):
    s = describe(values)
    variance = float(np.var(values, ddof=1)) if len(values) > 1 else None
    assert s.n == len(values)
    assert math.isclose(s.mean, float(np.mean(values)), rel_tol=1e-9)
    assert s.median == float(np.median(values))
    assert (s.min, s.max) == (min(values), max(values))
    if variance is None:
        assert s.stdev is None and s.cv is None and s.ci_mean is None
        return
    assert math.isclose(s.stdev, math.sqrt(variance), rel_tol=1e-7, abs_tol=1e-9)
    assert math.isclose(s.cv, s.stdev / s.mean, rel_tol=1e-12)
    assert math.isclose(s.cv, float(sps.variation(values, ddof=1)), rel_tol=1e-7, abs_tol=1e-9)


@given(st.lists(rates, min_size=MEAN_MIN_RUNS, max_size=40))
@settings(max_examples=60, deadline=None)
def test_the_mean_interval_of_a_positive_figure_is_coxs_on_the_log_scale_and_above_zero(values):
    s = describe(values)
    logs = np.log(values)
    n, var = len(values), float(np.var(logs, ddof=1))
    centre = float(np.mean(logs)) + var / 2
    half = float(sps.t.ppf(0.975, n - 1)) * math.sqrt(var / n + var**2 / (2 * (n - 1)))
    assert math.isclose(s.ci_mean.low, math.exp(centre - half), rel_tol=1e-7)
    assert math.isclose(s.ci_mean.high, math.exp(centre + half), rel_tol=1e-7)
    assert 0 < s.ci_mean.low <= s.ci_mean.high


@given(st.lists(st.floats(min_value=-1e5, max_value=1e5, allow_nan=False), min_size=MEAN_MIN_RUNS, max_size=40))
@settings(max_examples=60, deadline=None)
def test_a_figure_that_may_be_negative_gets_scipys_t_interval(values):
    s = describe(values, positive=False)
    if s.stdev < 1e-6:  # scipy gives nan for a zero scale; ours is (about) the point itself
        assert math.isclose(s.ci_mean.low, s.mean, abs_tol=1e-5)
        return
    low, high = sps.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=sps.sem(values))
    assert math.isclose(s.ci_mean.low, low, rel_tol=1e-7, abs_tol=1e-7)
    assert math.isclose(s.ci_mean.high, high, rel_tol=1e-7, abs_tol=1e-7)


@given(st.lists(rates, min_size=1, max_size=60))
@settings(max_examples=60, deadline=None)
def test_the_median_interval_is_the_order_statistics_binomial_tails_allow(values):
    ci = describe(values).ci_median
    n = len(values)
    ks = [k for k in range(1, (n + 1) // 2 + 1) if sps.binom.cdf(k - 1, n, 0.5) <= 0.025]
    if not ks:
        assert ci is None and n < MEDIAN_MIN_RUNS
        return
    k, ordered = max(ks), sorted(values)
    assert (ci.low, ci.high) == (ordered[k - 1], ordered[n - k])
    assert ci.low <= float(np.median(values)) <= ci.high
    assert n >= MEDIAN_MIN_RUNS


def test_a_positive_figure_with_a_run_of_zero_has_no_interval_and_says_why():
    s = describe([0.0, 900.0, 910.0, 905.0])
    assert s.ci_mean is None and s.no_ci_mean == "no CI: a value of 0"


@given(st.lists(rates, min_size=4, max_size=40))
@settings(max_examples=60, deadline=None)
def test_outliers_are_beyond_tukeys_fences(values):
    flagged = set(tukey_outliers(values))
    q1, q3 = np.percentile(values, [25, 75])
    iqr = sps.iqr(values)
    assert math.isclose(q3 - q1, iqr, rel_tol=1e-9, abs_tol=1e-9)
    for i, v in enumerate(values):
        outside = v < q1 - 1.5 * iqr or v > q3 + 1.5 * iqr
        assert (i in flagged) == outside


def test_a_clear_outlier_is_flagged_and_still_counted():
    values = [900.0, 905.0, 910.0, 898.0, 902.0, 120.0]
    s = describe(values)
    assert s.outliers == (5,)
    assert s.n == 6 and s.min == 120.0  # flagged, not dropped


def test_small_samples_say_what_they_cannot():
    assert describe([]) is None
    one = describe([5.0])
    assert (one.stdev, one.cv, one.ci_mean, one.ci_median, one.outliers) == (None, None, None, None, ())
    two = describe([4.0, 6.0])
    assert two.ci_mean is None and two.ci_median is None and two.no_ci_mean == "no CI under 3 runs"
    five = describe([4.0, 6.0, 5.0, 5.5, 4.5])
    assert five.ci_mean is not None and five.ci_median is None


def test_interval_half_width_and_dict():
    assert Interval(90.0, 110.0).half_width == pytest.approx(10.0)
    d = describe([1.0, 2.0, 3.0, 4.0]).to_dict()
    assert d["ci_mean"]["half_width"] == pytest.approx((d["ci_mean"]["high"] - d["ci_mean"]["low"]) / 2)
    assert d["ci_mean"]["method"] == "log-normal mean (Cox, t)"
    assert set(d) == {"n", "median", "mean", "stdev", "cv", "min", "max", "ci_mean", "ci_median", "outliers",
                      "no_ci_mean"}


def test_seed_of_is_stable():
    assert seed_of("sweep", 1, "-p 4") == seed_of("sweep", 1, "-p 4")
    assert seed_of("sweep", 1) != seed_of("sweep", 2)
    assert 0 <= seed_of("a", "b") < 2**64


# Samples of a few sizes (so several share one), with ties and spreads of every scale.
_sizes = st.integers(min_value=0, max_value=12) | st.sampled_from([99, 100])
_values = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False) | st.sampled_from([0.0, 1.0, 2.0])


@given(st.lists(st.tuples(_sizes.flatmap(lambda n: st.lists(_values, min_size=n, max_size=n)), st.booleans()),
                max_size=12))
@settings(max_examples=150, deadline=None)
def test_describe_many_is_describe_of_each(samples):
    """The reports' batched statistics are exactly (==, not approximately) describe's, sample by sample."""
    assert describe_many(samples) == [describe(values, positive=positive) for values, positive in samples]


def test_describe_many_of_a_thousand_cases_like_a_report():
    rng = np.random.default_rng(5)
    samples = [(list(rng.lognormal(5, 0.3, size=int(n))), True) for n in rng.integers(95, 100, size=1000)]
    assert describe_many(samples) == [describe(values) for values, _ in samples]
