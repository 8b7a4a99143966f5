"""The auto-tune's statistics: the t distribution (scipy's), the cached quantile grid and Welch's
test, checked against scipy's own functions and known values; the ranking's intervals
(race_interval) and how often they hold the truth are tests/test_autotune_error_rates.py's."""

import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from gftpwb.kinds.autotune.stats import critical_t, df_floor, t_cdf, t_quantile, welch_df, welch_greater

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
    var_a, var_b = statistics.variance(a), statistics.variance(b)
    if var_a < 1e-12 or var_b < 1e-12:  # scipy returns nan for zero variance; we decide exactly
        return
    p = welch_greater(sum(a) / len(a), var_a, len(a), sum(b) / len(b), var_b, len(b))
    expected = stats.ttest_ind(a, b, equal_var=False, alternative="greater").pvalue
    assert p == pytest.approx(expected, rel=1e-6, abs=1e-9)


def test_welch_with_zero_variance_is_decided_exactly():
    assert welch_greater(10, 0, 3, 5, 0, 3) == 0.0
    assert welch_greater(5, 0, 3, 10, 0, 3) == 1.0
    assert welch_df(0, 3, 0, 3) > 1e8


def test_textbook_quantiles_and_the_conservative_grid():
    # Student's t table: t(0.975; 1) = 12.706, t(0.975; 10) = 2.228, t(0.95; 30) = 1.697.
    assert t_quantile(0.975, 1) == pytest.approx(12.7062, abs=1e-4)
    assert t_quantile(0.975, 10) == pytest.approx(2.2281, abs=1e-4)
    assert t_quantile(0.95, 30) == pytest.approx(1.6973, abs=1e-4)
    # critical_t rounds the degrees of freedom down, so it is never smaller than the exact quantile.
    for df in (0.3, 1.7, 9.99, 37.5, 412.0):
        assert critical_t(0.95, df) >= t_quantile(0.95, df)
    assert df_floor(9.99) == 9.75 and df_floor(37.5) == 37 and df_floor(412.0) == 410
