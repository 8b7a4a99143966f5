"""The statistics of a case (gftpwb.core.stats), checked against scipy and numpy with hypothesis."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from gftpwb.core.stats import Interval, bootstrap_median, describe, describe_many, seed_of, tukey_outliers

rates = st.floats(min_value=0.5, max_value=1e5, allow_nan=False, allow_infinity=False)
samples = st.lists(rates, min_size=1, max_size=40)


@given(samples)
@settings(max_examples=60, deadline=None)
def test_moments_agree_with_scipy(values):
    s = describe(values, seed=1, resamples=200)
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


@given(st.lists(rates, min_size=2, max_size=40))
@settings(max_examples=60, deadline=None)
def test_mean_interval_is_scipys_t_interval(values):
    s = describe(values, resamples=100)
    low, high = sps.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=sps.sem(values))
    if s.stdev < 1e-9 * s.mean:  # scipy gives nan for a zero scale; ours is (about) the point itself
        assert math.isclose(s.ci_mean.low, s.mean, rel_tol=1e-6)
        return
    assert math.isclose(s.ci_mean.low, low, rel_tol=1e-7, abs_tol=1e-7)
    assert math.isclose(s.ci_mean.high, high, rel_tol=1e-7, abs_tol=1e-7)
    assert math.isclose(s.ci_mean.half_width, (high - low) / 2, rel_tol=1e-7, abs_tol=1e-7)


@given(st.lists(rates, min_size=3, max_size=30), st.integers(min_value=0, max_value=2**63))
@settings(max_examples=40, deadline=None)
def test_median_interval_is_seeded_and_brackets_plausible_medians(values, seed):
    a = bootstrap_median(values, seed, resamples=300)
    b = bootstrap_median(values, seed, resamples=300)
    assert a == b  # same seed, same interval: reports are reproducible
    assert min(values) <= a.low <= a.high <= max(values)


def test_median_interval_agrees_with_scipys_percentile_bootstrap():
    rng = np.random.default_rng(7)
    values = list(rng.lognormal(mean=6.5, sigma=0.2, size=41))
    ours = describe(values, seed=seed_of("sweep", "-p 4"), resamples=4000).ci_median
    ref = sps.bootstrap((values,), np.median, confidence_level=0.95, n_resamples=4000, method="percentile",
                        random_state=np.random.default_rng(3)).confidence_interval
    spread = max(values) - min(values)
    assert abs(ours.low - ref.low) < 0.05 * spread
    assert abs(ours.high - ref.high) < 0.05 * spread
    assert ours.low <= float(np.median(values)) <= ours.high


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
    s = describe(values, seed=0)
    assert s.outliers == (5,)
    assert s.n == 6 and s.min == 120.0  # flagged, not dropped


def test_small_samples_say_what_they_cannot():
    assert describe([]) is None
    one = describe([5.0])
    assert (one.stdev, one.cv, one.ci_mean, one.ci_median, one.outliers) == (None, None, None, None, ())
    two = describe([4.0, 6.0])
    assert two.ci_mean is not None and two.ci_median is None


def test_interval_half_width_and_dict():
    assert Interval(90.0, 110.0).half_width == pytest.approx(10.0)
    d = describe([1.0, 2.0, 3.0, 4.0], seed=2, resamples=100).to_dict()
    assert d["ci_mean"]["half_width"] == pytest.approx((d["ci_mean"]["high"] - d["ci_mean"]["low"]) / 2)
    assert set(d) == {"n", "median", "mean", "stdev", "cv", "min", "max", "ci_mean", "ci_median", "outliers"}


def test_seed_of_is_stable():
    assert seed_of("sweep", 1, "-p 4") == seed_of("sweep", 1, "-p 4")
    assert seed_of("sweep", 1) != seed_of("sweep", 2)
    assert 0 <= seed_of("a", "b") < 2**64


# Samples of a few sizes (so several share one), with ties and spreads of every scale.
_sizes = st.integers(min_value=0, max_value=12) | st.sampled_from([99, 100])
_values = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False) | st.sampled_from([0.0, 1.0, 2.0])


@given(st.lists(st.tuples(_sizes.flatmap(lambda n: st.lists(_values, min_size=n, max_size=n)),
                          st.integers(min_value=0, max_value=2**63)), max_size=12))
@settings(max_examples=150, deadline=None)
def test_describe_many_is_describe_of_each(samples):
    """The reports' batched statistics are exactly (==, not approximately) describe's, sample by sample."""
    assert describe_many(samples) == [describe(values, seed=seed) for values, seed in samples]


def test_describe_many_of_a_thousand_cases_like_a_report():
    rng = np.random.default_rng(5)
    samples = [(list(rng.lognormal(5, 0.3, size=int(n))), int(seed))
               for n, seed in zip(rng.integers(95, 100, size=1000), rng.integers(0, 2**62, size=1000), strict=True)]
    assert describe_many(samples) == [describe(values, seed=seed) for values, seed in samples]


def test_describe_many_draws_the_median_interval_only_when_read():
    """The bootstrap of a median's CI is drawn the first time its bounds are read (most are never
    printed): the same bounds as describe's, equal and hashed as that Interval, and a pickled
    interval not drawn yet draws the same bounds after (compare sends B's statistics between processes)."""
    import pickle

    values = (3.0, 9.5, 1.25, 7.0, 7.0, 2.5, 100.0)
    (many,), want = describe_many([(values, 11)]), describe(values, seed=11)
    ci = many.ci_median
    assert ci is not None and "low" not in vars(ci) and "high" not in vars(ci)
    copied = pickle.loads(pickle.dumps(many))
    assert "low" not in vars(copied.ci_median)
    assert (ci.low, ci.high, ci.confidence) == (want.ci_median.low, want.ci_median.high, want.ci_median.confidence)
    assert "low" in vars(ci) and ci == want.ci_median and want.ci_median == ci and many == want
    assert hash(ci) == hash(want.ci_median) and ci.half_width == want.ci_median.half_width
    assert copied == want and repr(copied.ci_median) == repr(want.ci_median)
    assert pickle.loads(pickle.dumps(ci)) == want.ci_median  # drawn: pickles its bounds
    assert ci != Interval(ci.low, ci.high + 1) and ci != (ci.low, ci.high)
    with pytest.raises(AttributeError):
        _ = ci.nothing
    assert describe_many([((1.0, 2.0), 3)])[0].ci_median is None  # below 3 values: none to draw
