"""The auto-tune's statistics: the t distribution (scipy's), the cached quantile grid, confidence
intervals and Welch's test, checked against scipy's own functions and known values."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from gftpwb.kinds.autotune.stats import critical_t, df_floor, estimate, t_cdf, t_quantile, welch_df, welch_greater

dfs = st.floats(min_value=0.5, max_value=1e5, allow_nan=False)


@given(t=st.floats(min_value=-50, max_value=50, allow_nan=False), df=dfs)
def test_t_cdf_matches_scipy(t, df):
    assert t_cdf(t, df) == pytest.approx(stats.t.cdf(t, df), abs=1e-10)


@given(p=st.floats(min_value=1e-6, max_value=1 - 1e-6), df=dfs)
@settings(max_examples=300)
def test_t_quantile_matches_scipy(p, df):
    df = round(df, 3)  # t_quantile rounds df to 3 decimals (it caches)
    expected = stats.t.ppf(p, df)
    assert t_quantile(p, df) == pytest.approx(expected, rel=1e-8, abs=1e-8)


def test_t_quantile_rejects_impossible_p():
    with pytest.raises(ValueError):
        t_quantile(1.0, 5)


@given(a=st.lists(st.floats(min_value=1, max_value=5000), min_size=2, max_size=12),
       b=st.lists(st.floats(min_value=1, max_value=5000), min_size=2, max_size=12))
def test_welch_matches_scipy(a, b):
    ea, eb = estimate(a), estimate(b)
    if ea.sd < 1e-6 or eb.sd < 1e-6:  # scipy returns nan for zero variance; we decide exactly
        return
    p = welch_greater(ea.mean, ea.sd ** 2, len(a), eb.mean, eb.sd ** 2, len(b))
    expected = stats.ttest_ind(a, b, equal_var=False, alternative="greater").pvalue
    assert p == pytest.approx(expected, rel=1e-6, abs=1e-9)


def test_welch_with_zero_variance_is_decided_exactly():
    assert welch_greater(10, 0, 3, 5, 0, 3) == 0.0
    assert welch_greater(5, 0, 3, 10, 0, 3) == 1.0
    assert welch_df(0, 3, 0, 3) > 1e8


def test_estimate_ci_matches_scipy():
    data = [912.0, 934.5, 899.1, 940.2, 921.7]
    e = estimate(data)
    low, high = stats.t.interval(0.95, len(data) - 1, loc=e.mean, scale=stats.sem(data))
    assert (e.ci_low, e.ci_high) == (pytest.approx(low), pytest.approx(high))
    assert estimate([5.0]) == estimate([5.0])
    one = estimate([5.0])
    assert one.mean == 5.0 and one.ci_low is None and one.sd is None
    assert estimate([]).mean is None
    assert math.isclose(estimate([1.0, 3.0]).sd, math.sqrt(2))


def test_textbook_quantiles_and_the_conservative_grid():
    # Student's t table: t(0.975; 1) = 12.706, t(0.975; 10) = 2.228, t(0.95; 30) = 1.697.
    assert t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-4)
    assert t_quantile(0.975, 10) == pytest.approx(2.2281, abs=1e-4)
    assert t_quantile(0.95, 30) == pytest.approx(1.6973, abs=1e-4)
    # critical_t rounds the degrees of freedom down, so it is never smaller than the exact quantile.
    for df in (0.3, 1.7, 9.99, 37.5, 412.0):
        assert critical_t(0.95, df) >= t_quantile(0.95, df)
    assert df_floor(9.99) == 9.75 and df_floor(37.5) == 37 and df_floor(412.0) == 410
