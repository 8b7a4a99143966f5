"""The warm start's pure parts: similarity of paths, candidate keys, priors from earlier campaigns, the
probes' verdict, the warm race (ask/tell, budgets, the fall-back to a cold search) and the grouping of
history rows into campaigns. Simulated links are seeded; hypothesis tests use the session's fuzz seed."""

import math

import numpy as np
import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st
from support.fuzzseed import FUZZ_SEED, say_seed

from gftpwb.core.units import GIB, MIB
from gftpwb.kinds.autotune.candidates import make_candidates, tgftp_37
from gftpwb.kinds.autotune.strategies import Adaptive
from gftpwb.kinds.autotune.warm import (
    MAX_PRIOR_RUNS,
    MIN_TAU,
    CandidateStats,
    PastCampaign,
    PathFeatures,
    Prior,
    Probe,
    agreement,
    between_campaign_tau,
    build_priors,
    candidate_key,
    center,
    data_of,
    endpoint,
    open_set,
    select_campaigns,
    similarity,
    warm_budget,
    weighted_median,
)
from gftpwb.kinds.autotune.warmhistory import campaigns_from_rows
from gftpwb.kinds.autotune.warmrace import (
    COLD,
    LEFT_OUT,
    RACE,
    WarmAdaptive,
    plan_warm_start,
    priors_from_json,
    priors_to_json,
    warm_text,
)
from gftpwb.kinds.simulated.link import LinkModel, Transfer, expected_rate, simulate

CANDIDATES = make_candidates(tgftp_37())
KEYS = [candidate_key(c.values) for c in CANDIDATES]
SOURCE, TARGET = "gsiftp://src.example.org:2811", "gsiftp://dst.example.org:2811"
PORTS = {"gsiftp": 2811, "ftp": 21}


def features(link: LinkModel, length: int = 4 * GIB, **changes) -> PathFeatures:
    base = {"transfer_kind": "guc", "engine": "simulated", "source": SOURCE, "target": TARGET, "length": length,
            "rtt_s": link.rtt_s, "buffer_cap": link.buffer_cap, "data": "/dev/zero -> /dev/null"}
    return PathFeatures(**{**base, **changes})


def transfers(length: int = 4 * GIB) -> list[Transfer]:
    return [Transfer(parallel=c.values.get("parallel"), tcp_buffer=c.values.get("tcp_buffer"), length=length)
            for c in CANDIDATES]


class Outcomes:
    """The k-th run of candidate i draws from its own seeded stream: strategies compared on the same runs."""

    def __init__(self, link: LinkModel, seed_: int):
        self.link, self.seed, self.plan, self.cache = link, seed_, transfers(), {}

    def get(self, index: int, k: int):
        if (index, k) not in self.cache:
            out = simulate(self.link, self.plan[index], np.random.default_rng([self.seed, index, k]), 30.0)
            self.cache[(index, k)] = (out.rate_incl_setup_mib_s, out.error)
        return self.cache[(index, k)]


def run(tuner, outcomes: Outcomes) -> list[int]:
    asked = []
    while (index := tuner.ask()) is not None:
        assert tuner.ask() == index  # asking twice changes nothing
        asked.append(index)
        rate, error = outcomes.get(index, tuner.arms[index].runs)
        tuner.tell(index, rate, error)
    return asked


def history(link: LinkModel, campaigns: int = 3, seed_: int = 100) -> list[PastCampaign]:
    out = []
    for h in range(campaigns):
        cold = Adaptive(CANDIDATES, 20.0, 120)
        run(cold, Outcomes(link, seed_ + h))
        stats = {KEYS[i]: CandidateStats.of(a.rates, a.failures) for i, a in enumerate(cold.arms) if a.runs}
        out.append(PastCampaign(f"2026-01-0{h + 1}:tune", f"2026-01-0{h + 1}T00:00:00", features(link), stats))
    return out


LINK = LinkModel(bandwidth_mib_s=1000.0, rtt_s=0.02, noise=0.03, seed=1)


@pytest.fixture(scope="module")
def past():
    return history(LINK)


# --- features, keys, similarity ------------------------------------------------------------------


def test_candidate_keys_are_the_parameters_in_any_order_without_the_size():
    assert candidate_key({"parallel": 4, "tcp_buffer": MIB}) == candidate_key({"tcp_buffer": MIB, "parallel": 4})
    assert candidate_key({"parallel": 4, "length": GIB}, drop=("length",)) == candidate_key({"parallel": 4})
    assert candidate_key({"parallel": 4}) != candidate_key({"parallel": 8})
    assert candidate_key({}) == "{}"


def test_endpoints_keep_scheme_host_and_port_and_add_the_default_port():
    assert endpoint("gsiftp://Host.Example.org/data/x", PORTS) == "gsiftp://host.example.org:2811"
    assert endpoint("ftp://127.0.0.1:2811/dev/zero", PORTS) == "ftp://127.0.0.1:2811"
    assert endpoint("/local/file", PORTS) == endpoint("file:///x", PORTS) == ""
    assert data_of("ftp://h:1/dev/zero", "ftp://h:1/dev/null") == "/dev/zero -> /dev/null"


def test_the_same_path_is_fully_similar_and_other_kinds_or_engines_not_at_all():
    now = features(LINK)
    assert similarity(now, now) == (1.0, "")
    assert similarity(now, features(LINK, transfer_kind="xrootd"))[0] == 0.0
    assert similarity(now, features(LINK, engine="real"))[0] == 0.0
    score, why = similarity(now, features(LINK, rtt_s=0.06))
    assert score < 0.5 and "RTT" in why
    score, why = similarity(now, features(LINK, length=GIB))
    assert score < 0.5 and "size" in why
    assert 0.5 <= similarity(now, features(LINK, target="gsiftp://other:2811"))[0] < 1
    assert similarity(now, features(LINK, buffer_cap=4 * MIB))[0] == 1.0  # the same cap on both
    assert similarity(now, features(LINK, buffer_cap=8 * MIB))[0] == 1.0  # None now: unknown, no penalty
    capped = features(LINK, buffer_cap=4 * MIB)
    assert similarity(capped, features(LINK, buffer_cap=8 * MIB))[0] < 0.5


feature_values = st.builds(
    PathFeatures, transfer_kind=st.sampled_from(["guc", "xrootd"]), engine=st.sampled_from(["real", "simulated"]),
    source=st.sampled_from([SOURCE, "gsiftp://a:2811", ""]), target=st.sampled_from([TARGET, "gsiftp://b:2811"]),
    length=st.sampled_from([GIB, 2 * GIB, 4 * GIB, 64 * MIB]),
    rtt_s=st.one_of(st.none(), st.floats(min_value=1e-5, max_value=0.5)),
    buffer_cap=st.one_of(st.none(), st.sampled_from([4 * MIB, 16 * MIB])),
    data=st.sampled_from(["", "/dev/zero -> /dev/null", "/a -> /b"]))


@seed(FUZZ_SEED)
@settings(max_examples=300)
@given(feature_values, feature_values)
def test_similarity_is_symmetric_between_zero_and_one(a, b):
    say_seed()
    ab, ba = similarity(a, b)[0], similarity(b, a)[0]
    assert 0.0 <= ab <= 1.0 and math.isclose(ab, ba)
    assert similarity(a, a)[0] == (1.0 if a.rtt_s is not None else 0.8)


# --- priors ----------------------------------------------------------------------------------------


def test_a_single_campaign_gives_its_own_means_and_no_prior_for_what_it_never_ran():
    stats = {KEYS[0]: CandidateStats.of([100.0, 110.0, 90.0]), KEYS[1]: CandidateStats.of([], failures=2)}
    campaign = PastCampaign("d:t", "2026-01-01", features(LINK), stats)
    used = select_campaigns(features(LINK), [campaign], KEYS)
    priors, cv, tau, contributing = build_priors(used, [campaign], KEYS)
    assert [u.ref for u in contributing] == ["d:t"]
    assert priors[KEYS[0]].mean == pytest.approx(100.0) and priors[KEYS[0]].campaigns == 1
    assert priors[KEYS[1]].failed and priors[KEYS[1]].n_eff == 0
    assert KEYS[2] not in priors
    assert cv > 0 and tau >= MIN_TAU


def test_priors_take_the_newest_campaigns_that_ran_each_candidate():
    def campaign(day: int, rates: dict[int, list[float]]) -> PastCampaign:
        return PastCampaign(f"d{day}:t", f"2026-01-{day:02d}", features(LINK),
                            {KEYS[i]: CandidateStats.of(r) for i, r in rates.items()})

    old = campaign(1, {0: [100.0, 101.0], 1: [50.0, 51.0]})
    newer = [campaign(day, {0: [200.0, 201.0]}) for day in (2, 3)]
    campaigns = [old, *newer]
    used = select_campaigns(features(LINK), campaigns, KEYS)
    assert [u.ref for u in used] == ["d3:t", "d2:t", "d1:t"]
    priors, _, _, contributing = build_priors(used, campaigns, KEYS, limit=2)
    assert priors[KEYS[0]].mean == pytest.approx(200.5)  # the two newest that ran it
    assert priors[KEYS[1]].mean == pytest.approx(50.5)  # only the oldest ran it: it still counts
    assert {u.ref for u in contributing} == {"d1:t", "d2:t", "d3:t"}


campaign_means = st.lists(st.floats(min_value=50.0, max_value=5000.0), min_size=2, max_size=6)


@seed(FUZZ_SEED)
@settings(max_examples=200)
@given(campaign_means, st.floats(min_value=0.001, max_value=0.2))
def test_tau_never_falls_below_its_floor_and_priors_never_outweigh_live_runs_too_much(means, cv):
    say_seed()
    campaigns = [PastCampaign(f"d{i}:t", f"2026-01-{i + 1:02d}", features(LINK),
                              {KEYS[0]: CandidateStats(10, m, cv * m)}) for i, m in enumerate(means)]
    tau = between_campaign_tau(campaigns, [1.0] * len(campaigns), cv)
    assert tau >= MIN_TAU
    used = select_campaigns(features(LINK), campaigns, KEYS)
    priors, *_ = build_priors(used, campaigns, KEYS, limit=len(campaigns))
    prior = priors[KEYS[0]]
    assert min(means) <= prior.mean <= max(means) or math.isclose(prior.mean, min(means))
    assert 0 < prior.n_eff <= MAX_PRIOR_RUNS and prior.se > 0


def test_open_set_keeps_what_could_be_best_and_drops_failures():
    priors = [Prior(1000, 30, 10, 20, 3), Prior(995, 30, 10, 20, 3), Prior(700, 20, 8, 20, 3), None,
              Prior(0, 0, 0, 0, 2, failed=True)]
    assert open_set(priors, 3.0) == [True, True, False, True, False]


# --- the probes' verdict ---------------------------------------------------------------------------


def probes_of(factor: float = 1.0, odd: float = 1.0) -> list[Probe]:
    priors = [Prior(1000.0 - 10 * i, 30.0, 10.0, 20, 3) for i in range(6)]
    return [Probe(f"c{i}", (p.mean * factor * (odd if i == 2 else 1.0),), p) for i, p in enumerate(priors)]


def test_probes_that_match_their_history_agree():
    verdict = agreement(probes_of(), cv=0.03, tau=0.01)
    assert verdict.agree and verdict.scale == pytest.approx(1.0) and "agree" in verdict.text


def test_all_rates_moved_is_a_changed_path():
    verdict = agreement(probes_of(factor=0.6), cv=0.03, tau=0.01)
    assert not verdict.agree and verdict.worst == "" and "moved by -40.0 %" in verdict.text


def test_one_candidate_out_of_line_is_named():
    verdict = agreement(probes_of(odd=1.5), cv=0.03, tau=0.01)
    assert not verdict.agree and verdict.worst == "c2" and "changed places" in verdict.text


def test_a_small_common_drift_is_tolerated():
    assert agreement(probes_of(factor=1.02), cv=0.03, tau=0.01).agree


@seed(FUZZ_SEED)
@settings(max_examples=200)
@given(st.lists(st.floats(min_value=0.5, max_value=2.0), min_size=1, max_size=8),
       st.floats(min_value=0.01, max_value=100.0), st.floats(min_value=0.005, max_value=0.15))
def test_the_verdict_does_not_depend_on_the_unit_of_the_rates(ratios, unit, cv):
    """Scaling every rate and prior by the same factor (MiB/s or GB/s) changes nothing."""
    say_seed()
    priors = [Prior(500.0 + 13 * i, 500.0 * cv, 10.0, 10, 2) for i in range(len(ratios))]
    probes = [Probe(f"c{i}", (p.mean * r,), p) for i, (p, r) in enumerate(zip(priors, ratios, strict=True))]
    scaled = [Probe(p.label, tuple(x * unit for x in p.rates), p.prior.scaled(unit)) for p in probes]
    a, b = agreement(probes, cv, 0.01), agreement(scaled, cv, 0.01)
    assert a.agree == b.agree and a.worst == b.worst and a.scale == pytest.approx(b.scale)


def test_center_and_weighted_median_resist_one_wild_value():
    assert center([100.0]) == 100.0 and center([100.0, 50.0]) == 75.0
    assert center([100.0, 40.0, 101.0]) == 100.0
    assert weighted_median([0.0, 0.01, -0.5], [1, 1, 1]) == 0.0


# --- the warm race ----------------------------------------------------------------------------------


def test_no_history_means_no_warm_start():
    plan = plan_warm_start(features(LINK), [], KEYS, 120)
    assert plan.warm is None and plan.reason == "no earlier campaign in the history"
    other = history(LINK, campaigns=1)
    plan = plan_warm_start(features(LINK, rtt_s=0.2), other, KEYS, 120)
    assert plan.warm is None and "similar path" in plan.reason


def test_a_warm_start_on_an_unchanged_path_uses_a_third_of_the_budget_and_picks_within_the_margin(past):
    plan = plan_warm_start(features(LINK), past, KEYS, 120)
    assert plan.warm is not None and len(plan.used) == 3 and plan.warm.budget == warm_budget(120) == 40
    tuner = WarmAdaptive(CANDIDATES, 20.0, 120, plan.warm)
    assert any(a.elimination.startswith(LEFT_OUT) for a in tuner.arms)
    run(tuner, Outcomes(LINK, 7))
    assert tuner.phase == RACE and tuner.transfers_used <= 40 and tuner.budget == 40
    truth = [expected_rate(LINK, t) for t in transfers()]
    assert truth[tuner.pick()] >= max(truth) - 20.0
    assert "probe(s) agree" in warm_text(tuner, plan.used, plan.reason)
    facts = tuner.warm_facts()
    assert not facts["fell_back"] and facts["left_out"] and set(facts["sentinels"]) <= set(facts["probed"])


def test_a_changed_path_falls_back_to_a_cold_search_with_the_cold_budget(past):
    faster = LinkModel(bandwidth_mib_s=2000.0, rtt_s=0.02, noise=0.03, seed=1)  # a new NIC: the RTT is the same
    plan = plan_warm_start(features(faster), past, KEYS, 120)
    assert plan.warm is not None  # the features cannot tell
    tuner = WarmAdaptive(CANDIDATES, 20.0, 120, plan.warm)
    run(tuner, Outcomes(faster, 7))
    assert tuner.phase == COLD and tuner.went_cold and tuner.budget == 120
    assert tuner.fallback and tuner.fell_back_after <= 40
    assert not any(e.reason.startswith(LEFT_OUT) for e in tuner.eliminations)
    assert all(a.runs for a in tuner.arms if a.duplicate_of is None)  # every candidate was screened after all
    assert warm_text(tuner, plan.used, plan.reason).startswith("fell back to a cold search after")
    truth = [expected_rate(faster, t) for t in transfers()]
    assert truth[tuner.pick()] >= max(truth) - 20.0


@seed(FUZZ_SEED)
@settings(max_examples=12)
@given(st.integers(min_value=0, max_value=2**16), st.sampled_from([1.0, 0.97, 0.5, 2.0]),
       st.sampled_from([0.01, 0.03, 0.06]))
def test_the_warm_race_is_a_replayable_function_of_what_it_was_told_and_keeps_its_budgets(past, run_seed, speed,
                                                                                           noise):
    say_seed()
    link = LinkModel(bandwidth_mib_s=1000.0 * speed, rtt_s=0.02, noise=noise, seed=1)
    plan = plan_warm_start(features(link), past, KEYS, 120)
    first = WarmAdaptive(CANDIDATES, 20.0, 120, plan.warm)
    outcomes = Outcomes(link, run_seed)
    asked = run(first, outcomes)
    assert first.transfers_used == len(asked) <= (120 if first.went_cold else 40)
    replay = WarmAdaptive(CANDIDATES, 20.0, 120, plan.warm)  # --resume: the journal tells the same again
    again = run(replay, outcomes)
    assert again == asked and replay.pick() == first.pick() and replay.phase == first.phase
    assert [r.candidate for r in replay.rows()] == [r.candidate for r in first.rows()]


def test_priors_survive_the_record_for_resume(past):
    plan = plan_warm_start(features(LINK), past, KEYS, 120)
    kept = priors_from_json(priors_to_json(plan.warm))
    assert kept == plan.warm
    assert priors_from_json({"priors": "nonsense"}) is None


# --- rows of the history ------------------------------------------------------------------------


def test_history_rows_become_tune_and_sweep_campaigns():
    path = ('{"transfer_kind": "guc", "engine": "real", "source": "ftp://127.0.0.1:2811", "target": '
            '"ftp://127.0.0.1:2811", "length": 1073741824, "rtt_s": 0.0001, "buffer_cap": 4194304, '
            '"data": "/dev/zero -> /dev/null"}')
    tunes = [("d1", "tune", "2026-01-01 10:00:00", "real", path, "ftp://127.0.0.1:2811/dev/zero",
              "ftp://127.0.0.1:2811/dev/null", 1 << 30),
             ("d0", "old", "2025-12-01 10:00:00", "real", None, "ftp://127.0.0.1:2811/dev/zero",
              "ftp://127.0.0.1:2811/dev/null", 1 << 30)]
    transfers_ = [
        ("d1", "tune", "tune#2/0", '{"parallel": 1, "length": 1073741824}', "passed", 900.0, "real", "x", None, None,
         None, 1 << 30),
        ("d1", "tune", "tune#2/1", '{"parallel": 1, "length": 1073741824}', "passed", 910.0, "real", "x", None, None,
         None, 1 << 30),
        ("d1", "tune", "tune#3/0", '{"parallel": 2, "length": 1073741824}', "timeout", None, "real", "x", None, None,
         None, None),
        ("d0", "old", "old#1/0", '{"length": 1073741824}', "passed", 500.0, "real", "x", None, None, None, 1 << 30),
        ("d2", "sweep", "sweep[1]/1", '{"parallel": 1}', "passed", 880.0, "real", "2026-02-01 10:00:00",
         "ftp://127.0.0.1:2811/data/a", "ftp://127.0.0.1:2811/data/b", 1 << 30, 1 << 30),
        ("d2", "sweep", "sweep[2]/1", '{"parallel": 1}', "passed", 300.0, "real", "2026-02-01 10:01:00",
         "ftp://127.0.0.1:2811/data/a", "ftp://10.0.0.9:2811/data/b", 1 << 30, 1 << 30),
        ("d3", "lost", "lost#1/0", '{"parallel": 1}', "passed", 1.0, "real", "x", None, None, None, 1 << 30),
    ]
    campaigns = {c.ref: c for c in campaigns_from_rows(tunes, transfers_, transfer_kind="guc", drop=("length",),
                                                       ports=PORTS)}
    assert set(campaigns) == {"d1:tune", "d0:old", "d2:sweep", "d2:sweep#2"}
    tune = campaigns["d1:tune"]
    assert tune.source == "auto-tune" and tune.features.rtt_s == 0.0001 and tune.features.buffer_cap == 4 * MIB
    p1 = candidate_key({"parallel": 1})
    assert tune.stats[p1].n == 2 and tune.stats[p1].mean == pytest.approx(905.0)
    assert tune.stats[candidate_key({"parallel": 2})] == CandidateStats(0, None, None, 1)
    old = campaigns["d0:old"]  # a tune from before warm starts: its path from plan.json
    assert old.features.rtt_s is None and old.features.source == "ftp://127.0.0.1:2811"
    assert old.stats["{}"].mean == 500.0
    sweep = campaigns["d2:sweep"]
    assert sweep.source == "sweep" and sweep.features.data == "/data/a -> /data/b"
    assert sweep.stats[p1].mean == 880.0 and campaigns["d2:sweep#2"].features.target == "ftp://10.0.0.9:2811"


def test_a_warm_budget_that_ends_while_probing_still_takes_the_verdict(past):
    plan = plan_warm_start(features(LINK), past, KEYS, 6)
    assert plan.warm.budget == 2
    tuner = WarmAdaptive(CANDIDATES, 20.0, 6, plan.warm)
    assert len(tuner.probe_order) > 2
    run(tuner, Outcomes(LINK, 7))
    assert tuner.verdict is not None and tuner.phase == RACE and tuner.transfers_used == 2
    assert tuner.stop_reason.startswith("warm budget of 2 transfers used")
    changed = LinkModel(bandwidth_mib_s=400.0, rtt_s=0.02, noise=0.03, seed=1)
    tuner = WarmAdaptive(CANDIDATES, 20.0, 6, plan_warm_start(features(changed), past, KEYS, 6).warm)
    run(tuner, Outcomes(changed, 7))
    assert tuner.phase == COLD and tuner.fell_back_after == 2 and tuner.transfers_used == 6
