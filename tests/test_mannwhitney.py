"""gftpwb.core.mannwhitney gives scipy.stats.mannwhitneyu's U and p (two-sided, method "auto"): the
same numbers, not approximately, for samples with and without ties, small and large (the exact
distribution below 9 values a side without ties, the normal approximation otherwise)."""

from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import mannwhitneyu

from gftpwb.core.mannwhitney import _chooses_exact, mann_whitney_u

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
    assert p == float(expected.pvalue) or (p != p and expected.pvalue != expected.pvalue)


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
