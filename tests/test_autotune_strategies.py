"""The strategies are ask/tell and pure: tgftp's order for the exhaustive one; for the adaptive one,
budget, determinism (what makes --resume a replay), duplicates, eliminations and a correct pick on
links where the answer is clear. Simulated links are seeded, so these tests are deterministic."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gftpwb.core.units import GIB, MIB
from gftpwb.kinds.autotune.candidates import make_candidates, tgftp_37
from gftpwb.kinds.autotune.caps import duplicates
from gftpwb.kinds.autotune.strategies import Adaptive, Exhaustive, make_tuner
from gftpwb.kinds.simulated.link import LinkModel, Transfer, expected_rate, simulate

CANDIDATES = make_candidates(tgftp_37())


def transfers(length=4 * GIB):
    return [Transfer(parallel=c.values.get("parallel"), tcp_buffer=c.values.get("tcp_buffer"), length=length)
            for c in CANDIDATES]


def run(tuner, link, seed=0, timeout=30.0):
    rng = np.random.default_rng(seed)
    plan = transfers()
    asked = []
    while (index := tuner.ask()) is not None:
        assert tuner.ask() == index  # asking twice changes nothing
        asked.append(index)
        outcome = simulate(link, plan[index], rng, timeout)
        tuner.tell(index, outcome.rate_incl_setup_mib_s, outcome.error)
    return asked


def test_exhaustive_runs_every_candidate_repetitions_times_in_tgftps_order():
    tuner = Exhaustive(CANDIDATES, 20.0, repetitions=10)
    assert tuner.budget == 370
    asked = run(tuner, LinkModel(noise=0.02))
    assert asked == [i for i in range(37) for _ in range(10)]  # each batch line's execs back to back
    assert tuner.transfers_used == 370 and all(a.runs == 10 for a in tuner.arms)
    assert tuner.pick_line() == tuner.candidates[tuner.pick()].label


def test_exhaustive_scores_the_mean_of_successful_runs_only():
    tuner = Exhaustive(CANDIDATES[:3], 20.0, repetitions=2)
    for index, rate in [(0, 500), (0, None), (1, 600), (1, 640), (2, None), (2, None)]:
        assert tuner.ask() == index
        tuner.tell(index, rate, "" if rate else "timed out after 30s")
    assert tuner.finished
    assert [a.mean for a in tuner.arms] == [500, 620, None]
    assert tuner.pick() == 1 and tuner.pick_line() == "-vb -p 1"
    rows = tuner.rows()
    assert rows[-1].candidate == "-vb -p 2" and rows[-1].note == "all 2 runs failed: timed out after 30s"


def test_no_pick_gives_tgftps_empty_line():
    tuner = Exhaustive(CANDIDATES[:2], 20.0, repetitions=1)
    tuner.tell(0, 15.0)
    tuner.tell(1, 19.0)
    assert tuner.pick() is None and tuner.pick_line() == ""


def test_adaptive_finds_a_clear_best_with_far_fewer_transfers():
    link = LinkModel(bandwidth_mib_s=1024, rtt_s=0.05, noise=0.03, seed=3)
    truth = np.array([expected_rate(link, t) for t in transfers()])
    tuner = Adaptive(CANDIDATES, 20.0, budget=120)
    run(tuner, link, seed=7)
    assert tuner.transfers_used < 120  # it stopped on its own: nothing left can beat the pick by the margin
    assert tuner.stop_reason == "no survivor can be 20MB/s better than the pick"
    assert truth[tuner.pick()] >= truth.max() - 20
    assert tuner.eliminations and all(e.after_transfers <= tuner.transfers_used for e in tuner.eliminations)
    assert 0.0 <= tuner.p_within_margin() <= 1.0


def test_adaptive_stops_at_its_budget_and_says_so():
    tuner = Adaptive(CANDIDATES, 20.0, budget=50)
    run(tuner, LinkModel(bandwidth_mib_s=2500, rtt_s=0.01, noise=0.08, seed=5), seed=3)
    assert tuner.transfers_used == 50 and tuner.stop_reason.startswith("budget of 50 transfers used")
    assert tuner.pick() is not None


def test_adaptive_is_deterministic_so_a_replay_asks_for_the_same_transfers():
    link = LinkModel(bandwidth_mib_s=2048, rtt_s=0.01, noise=0.05, seed=1)
    first, second = Adaptive(CANDIDATES, 20.0), Adaptive(CANDIDATES, 20.0)
    assert run(first, link, seed=11) == run(second, link, seed=11)
    assert first.pick() == second.pick() and first.p_within_margin() == second.p_within_margin()


def test_adaptive_does_not_run_kernel_capped_duplicates():
    dupes = duplicates(CANDIDATES, 4 * MIB)
    assert dupes == {11: 10, 12: 10, 16: 15, 17: 15, 21: 20, 22: 20, 26: 25, 27: 25, 31: 30, 32: 30, 36: 35, 37: 35}
    tuner = Adaptive(CANDIDATES, 20.0, duplicates=dupes)
    asked = run(tuner, LinkModel(buffer_cap=4 * MIB, seed=2))
    assert not {i + 1 for i in asked} & set(dupes)
    rows = {r.candidate: r for r in tuner.rows()}
    assert rows["-vb -p 1 -tcp-bs 16M"].note == "same kernel-capped -tcp-bs as -vb -p 1 -tcp-bs 4M; not run"
    assert rows["-vb -p 1 -tcp-bs 16M"].runs == 0 and rows["-vb -p 1 -tcp-bs 16M"].eliminated


def test_adaptive_drops_a_candidate_that_keeps_failing():
    tuner = Adaptive(CANDIDATES[:3], 20.0, budget=30)
    while (index := tuner.ask()) is not None:
        tuner.tell(index, None if index == 2 else 800.0 + index, "timed out after 30s" if index == 2 else "")
    failing = tuner.arms[2]
    assert failing.failures == 2 and failing.eliminated and "2 failed runs" in failing.elimination
    assert tuner.rows()[-1].candidate == "-vb -p 2"


@settings(max_examples=25, deadline=None)
@given(bandwidth=st.floats(min_value=50, max_value=3000), rtt=st.floats(min_value=0.001, max_value=0.15),
       noise=st.floats(min_value=0.0, max_value=0.1), failures=st.floats(min_value=0, max_value=0.3),
       budget=st.integers(min_value=1, max_value=150), seed=st.integers(min_value=0, max_value=10_000))
def test_adaptive_always_ends_within_its_budget_and_never_runs_an_eliminated_candidate(
        bandwidth, rtt, noise, failures, budget, seed):
    link = LinkModel(bandwidth_mib_s=bandwidth, rtt_s=rtt, noise=noise, failures=failures, outliers=0.05)
    tuner = Adaptive(CANDIDATES, 20.0, budget=budget)
    rng = np.random.default_rng(seed)
    plan = transfers()
    while (index := tuner.ask()) is not None:
        assert not tuner.arms[index].eliminated
        outcome = simulate(link, plan[index], rng, 30.0)
        tuner.tell(index, outcome.rate_incl_setup_mib_s, outcome.error)
    assert tuner.transfers_used <= budget
    pick = tuner.pick()
    assert pick is None or not tuner.arms[pick].eliminated


def test_make_tuner_and_bad_arguments():
    assert make_tuner("exhaustive", CANDIDATES, 10.0, repetitions=3).budget == 111
    assert make_tuner("adaptive", CANDIDATES, 10.0, budget=50).budget == 50
    with pytest.raises(ValueError, match="unknown strategy"):
        make_tuner("greedy", CANDIDATES, 10.0)
    with pytest.raises(ValueError, match="margin"):
        Exhaustive(CANDIDATES, 0.0)
    with pytest.raises(ValueError, match="candidate"):
        Exhaustive((), 20.0)
