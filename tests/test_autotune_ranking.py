"""tgftp's pick rule and the ranking rows (research notes tgftp.md §4: "a later configuration wins only
if it is at least the margin better; near-ties keep the earlier configuration")."""

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from gftpwb.kinds.autotune.candidates import make_candidates, tgftp_37
from gftpwb.kinds.autotune.ranking import Arm, p_within_margin, ranking_rows, tgftp_pick

means_lists = st.lists(st.one_of(st.none(), st.floats(min_value=0, max_value=5000, allow_nan=False)),
                       min_size=1, max_size=37)
margins = st.floats(min_value=0.5, max_value=100)


def test_examples_confirmed_against_tgftps_own_functions():
    # The research notes ran tgftp 0.7.0's functions (margin 10) on these means.
    assert tgftp_pick([10, 15, 19.99, 20, 29, 30], 10) == 5
    assert tgftp_pick([100, 109, 109.99, 110], 10) == 3  # exactly the margin better counts
    assert tgftp_pick([5, 9.99, 3], 10) is None  # nothing reaches the margin above 0: no winner


def test_first_wins_exact_ties_and_near_ties():
    assert tgftp_pick([900.0, 900.0, 900.0], 20) == 0
    assert tgftp_pick([900.0, 919.99, 915.0], 20) == 0
    assert tgftp_pick([900.0, 920.0], 20) == 1


@given(means=means_lists, margin=margins)
def test_the_pick_is_within_the_margin_of_the_best_mean(means, margin):
    pick = tgftp_pick(means, margin)
    present = [m for m in means if m is not None]
    if pick is None:
        assert all(m < margin for m in present)
    else:
        assert means[pick] is not None and means[pick] > max(present) - margin


@given(means=means_lists, margin=margins, data=st.data())
def test_a_later_candidate_rising_by_less_than_the_margin_does_not_change_the_pick(means, margin, data):
    pick = tgftp_pick(means, margin)
    assume(pick is not None and pick < len(means) - 1)
    later = data.draw(st.integers(min_value=pick + 1, max_value=len(means) - 1))
    # Any value below pick + margin, whatever it was before (failed, lower, or already close).
    new = data.draw(st.floats(min_value=0, max_value=means[pick] + margin, exclude_max=True, allow_nan=False))
    changed = list(means)
    changed[later] = new
    assert tgftp_pick(changed, margin) == pick
    # ... and reaching pick + margin does change it (to that candidate or a later one).
    changed[later] = means[pick] + margin
    assert tgftp_pick(changed, margin) >= later


@given(means=means_lists, margin=margins, data=st.data())
def test_failed_candidates_take_no_part(means, margin, data):
    pick = tgftp_pick(means, margin)
    position = data.draw(st.integers(min_value=0, max_value=len(means)))
    with_failure = [*means[:position], None, *means[position:]]
    expected = None if pick is None else (pick + 1 if position <= pick else pick)
    assert tgftp_pick(with_failure, margin) == expected


@given(value=st.floats(min_value=20, max_value=5000), n=st.integers(min_value=1, max_value=37))
def test_all_equal_means_pick_the_first(value, n):
    assert tgftp_pick([value] * n, 20.0) == 0


def arms_with(rates: list[list[float]], failures: list[int] | None = None) -> list[Arm]:
    candidates = make_candidates(tgftp_37()[: len(rates)])
    arms = [Arm(c, list(r)) for c, r in zip(candidates, rates, strict=True)]
    for arm, failed in zip(arms, failures or [0] * len(arms), strict=True):
        arm.failures = failed
        arm.last_failure = "timed out after 30s" if failed else ""
    return arms


def test_ranking_rows_put_the_pick_first_and_failures_last():
    arms = arms_with([[900, 910], [915, 925], [], [700, 720], [], [990, 1000]], failures=[0, 0, 3, 0, 0, 1])
    means = [a.mean for a in arms]
    pick = tgftp_pick(means, 20)
    assert pick == 5
    rows = ranking_rows(arms, pick, 20)
    assert [r.candidate for r in rows] == ["-vb -p 16", "-vb -p 1", "-vb", "-vb -p 4", "-vb -p 8", "-vb -p 2"]
    assert [r.rank for r in rows] == [1, 2, 3, 4, 5, 6]
    first = rows[0]
    assert first.mean_mib_s == 995 and first.runs == 3 and first.failures == 1 and not first.tied_with_leader
    assert "1 of 3 runs failed: timed out after 30s" in first.note
    assert rows[1].tied_with_leader is False  # 920 is 75 below 995
    last = rows[-1]
    assert last.mean_mib_s is None and last.failures == 3 and last.note == "all 3 runs failed: timed out after 30s"
    assert rows[-2].runs == 0 and rows[-2].mean_mib_s is None  # never run


def test_tied_marks_are_within_the_margin_of_number_one():
    arms = arms_with([[900], [915], [919.5], [880], [885]])
    rows = ranking_rows(arms, tgftp_pick([a.mean for a in arms], 20), 20)
    assert rows[0].candidate == "-vb" and rows[0].mean_mib_s == 900  # the first: 915 and 919.5 are not 20 better
    assert [r.candidate for r in rows] == ["-vb", "-vb -p 2", "-vb -p 1", "-vb -p 8", "-vb -p 4"]
    assert {r.candidate: r.tied_with_leader for r in rows} == {
        "-vb": False, "-vb -p 1": True, "-vb -p 2": True, "-vb -p 4": False, "-vb -p 8": True}


def test_p_within_margin():
    clear = arms_with([[500, 505, 498], [1000, 1004, 998], [700, 702, 699]])
    assert p_within_margin(clear, 1, 20, 0.01) == pytest.approx(1.0)
    assert p_within_margin(clear, 0, 20, 0.01) == pytest.approx(0.0)
    close = arms_with([[1000, 1010, 990], [1015, 1005, 1025]])
    p = p_within_margin(close, 0, 20, 0.02)
    assert 0.3 < p < 1.0
    assert p_within_margin(close, 0, 20, 0.02) == p  # seeded: the same data give the same figure
    assert p_within_margin(close, None, 20, 0.02) is None
