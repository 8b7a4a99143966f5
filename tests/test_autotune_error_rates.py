"""An auto-tune's certainty is checked, not assumed: seeded simulations of whole campaigns (tgftp's 37
candidates, the adaptive race cold and warm, the exhaustive search) on paths whose true means are known,
with run-to-run noise of 3 % and 10 %, alike for every candidate or differing by up to four times between
them. They count how often what a tune prints holds:

* P(pick within the margin of the best): a tune that says P >= 0.95 has its pick within the margin at
  least 95 % of the time, and over all campaigns the pick is within the margin at least as often as the
  mean P says (P may be cautious, never bold);
* eliminations: the truly best candidate is eliminated at most 5 % of the time, and a warm start
  eliminates a candidate only on two live runs of its own or more (one run has no spread), saying the
  history's share;
* the race's stop ("no survivor can be a margin better than the pick"): a survivor truly a margin better
  than the pick at most 5 % of the time;
* the ranking's intervals hold each candidate's true mean in at least 93.5 % of rows (95 % less the
  simulation's error), at one run, two, and three or more.

A share passes when a binomial test cannot tell it from its bound (p > 0.01). Rates vary by a log-normal
factor around each candidate's true mean; the paths are drawn, not the simulated engine's link model."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom

from gftpwb.kinds.autotune.candidates import make_candidates, tgftp_37
from gftpwb.kinds.autotune.strategies import Adaptive, Exhaustive, Tuner
from gftpwb.kinds.autotune.warm import Prior
from gftpwb.kinds.autotune.warmrace import WarmAdaptive, WarmStart

CANDIDATES = make_candidates(tgftp_37())
LABELS = [c.label for c in CANDIDATES]
MARGIN = 20.0  # MiB/s, tgftp's
CAMPAIGNS = 80
HISTORY_TAU = 0.02  # campaign-to-campaign drift of a candidate's mean in the history


def not_below(count: int, trials: int, rate: float) -> bool:
    """Whether ``count`` of ``trials`` is consistent with a share of at least ``rate``."""
    return trials == 0 or float(binom.cdf(count, trials, rate)) > 0.01


def not_above(count: int, trials: int, rate: float) -> bool:
    """Whether ``count`` of ``trials`` is consistent with a share of at most ``rate``."""
    return trials == 0 or float(binom.sf(count - 1, trials, rate)) > 0.01


class Campaign:
    """One simulated path: the candidates' true means (one best, five within a few percent of it, the
    rest from 20 to 95 % of it), each candidate's noise, and what a tune of it printed."""

    def __init__(self, seed: int, noise: float, uneven: bool, strategy: str):
        g = np.random.default_rng([seed, int(noise * 1000), int(uneven)])
        top = 1050.0
        truth = top * np.concatenate([[1.0], 1 - np.abs(g.normal(0, 0.02, 5)), g.uniform(0.2, 0.95, 31)])
        g.shuffle(truth)
        self.truth = truth
        self.cvs = noise * (g.uniform(0.5, 2.0, len(truth)) if uneven else np.ones(len(truth)))
        self.tuner = self._tuner(strategy, noise, g)
        while (index := self.tuner.ask()) is not None:
            cv = self.cvs[index]
            self.tuner.tell(index, float(truth[index] * np.exp(cv * g.standard_normal() - cv * cv / 2)))

    def _tuner(self, strategy: str, noise: float, g: np.random.Generator) -> Tuner:
        if strategy == "exhaustive":
            return Exhaustive(CANDIDATES, MARGIN, 10)
        if strategy == "adaptive":
            return Adaptive(CANDIDATES, MARGIN, 120)
        drift = np.exp(g.normal(0, HISTORY_TAU))  # the path moved a little since the history
        priors = []
        for mean, cv in zip(self.truth, self.cvs, strict=True):
            predicted = mean * drift * np.exp(g.normal(0, HISTORY_TAU))
            priors.append(Prior(predicted, cv * predicted, predicted * np.hypot(HISTORY_TAU, cv / np.sqrt(10)), 10, 3))
        return WarmAdaptive(CANDIDATES, MARGIN, 120, WarmStart(tuple(priors), noise, HISTORY_TAU, 40))

    @property
    def within(self) -> bool:
        pick = self.tuner.pick()
        return pick is not None and self.truth[pick] >= self.truth.max() - MARGIN

    @property
    def best_eliminated(self) -> bool:
        return self.tuner.arms[int(np.argmax(self.truth))].elimination.startswith("eliminated")

    @property
    def survivor_a_margin_better(self) -> bool | None:
        """Whether a survivor is truly a margin better than the pick, when the race stopped saying none
        could be (None when it stopped for another reason)."""
        if not self.tuner.stop_reason.startswith("no survivor"):
            return None
        pick = self.truth[self.tuner.pick()]
        return any(not a.eliminated and a.rates and self.truth[a.candidate.index] > pick + MARGIN
                   for a in self.tuner.arms)

    def intervals(self) -> dict[int, list[bool]]:
        """Whether each ranking row's interval holds the candidate's true mean, by its runs (3: 3 or more)."""
        held: dict[int, list[bool]] = {1: [], 2: [], 3: []}
        for row in self.tuner.rows():
            if row.ci_low_mib_s is not None:
                truth = self.truth[LABELS.index(row.candidate)]
                held[min(row.runs - row.failures, 3)].append(row.ci_low_mib_s <= truth <= row.ci_high_mib_s)
        return held


SETTINGS = [("adaptive", 0.03, False), ("adaptive", 0.10, True), ("warm", 0.03, False), ("warm", 0.10, True)]
NAMES = [f"{s}-{n:.0%}-{'uneven' if u else 'even'}" for s, n, u in SETTINGS]


@pytest.fixture(scope="module", params=SETTINGS, ids=NAMES)
def campaigns(request):
    strategy, noise, uneven = request.param
    return [Campaign(seed, noise, uneven, strategy) for seed in range(CAMPAIGNS)]


def test_p_within_the_margin_is_never_bolder_than_the_picks_it_makes(campaigns):
    ps = [c.tuner.p_within_margin() or 0.0 for c in campaigns]
    within = [c.within for c in campaigns]
    assert not_below(sum(within), len(within), float(np.mean(ps))), (np.mean(within), np.mean(ps))
    sure = [w for w, p in zip(within, ps, strict=True) if p >= 0.95]
    assert not_below(sum(sure), len(sure), 0.95), (sum(sure), len(sure))
    warm = [c.tuner.p_with_history() for c in campaigns if c.tuner.p_with_history() is not None]
    if warm:  # the P the warm race worked with, the history counted, is not bold either
        assert not_below(sum(within), len(within), float(np.mean(warm)) - 0.02), (np.mean(within), np.mean(warm))


def test_eliminations_and_the_stop_rest_on_what_was_measured(campaigns):
    assert not_above(sum(c.best_eliminated for c in campaigns), len(campaigns), 0.05)
    stopped = [c.survivor_a_margin_better for c in campaigns if c.survivor_a_margin_better is not None]
    assert not_above(sum(stopped), len(stopped), 0.05), (sum(stopped), len(stopped))
    for c in campaigns:
        for arm in c.tuner.arms:
            if arm.elimination.startswith("eliminated"):
                assert len(arm.rates) >= 2, arm.elimination  # a one-run sample has no spread to test
                if isinstance(c.tuner, WarmAdaptive) and c.tuner.phase != "cold":
                    assert "the history worth" in arm.elimination, arm.elimination


def test_the_rankings_intervals_hold_the_true_means(campaigns):
    held: dict[int, list[bool]] = {1: [], 2: [], 3: []}
    for c in campaigns:
        for runs, hits in c.intervals().items():
            held[runs].extend(hits)
    for runs, hits in held.items():
        assert not_below(sum(hits), len(hits), 0.95) and (not hits or np.mean(hits) >= 0.935), (runs, np.mean(hits))
        assert all(c.tuner.rows()[0].ci_low_mib_s > 0 for c in campaigns)


def test_every_candidate_still_racing_says_why_it_stopped_being_run():
    """The race stops when no survivor can be a margin better: each survivor's row says by how much at
    most, on what runs; screened and eliminated rows say on what evidence."""
    c = next(c for c in (Campaign(seed, 0.03, False, "adaptive") for seed in range(40))
             if c.tuner.stop_reason.startswith("no survivor"))
    pick = c.tuner.candidates[c.tuner.pick()].label
    for row in c.tuner.rows():
        if row.candidate == pick or not row.runs or row.failures == row.runs:
            continue
        assert row.note, row
        if not row.eliminated:
            assert row.note.startswith("stopped after ") and "MiB/s against the pick" in row.note, row.note
        elif row.note.startswith("screened out"):
            assert "its one run" in row.note and "MiB/s" in row.note, row.note
        elif row.note.startswith("eliminated"):
            assert "runs against" in row.note, row.note


def test_the_exhaustive_search_p_is_not_bold_either():
    runs = [Campaign(seed, 0.03, True, "exhaustive") for seed in range(30)]
    within, ps = [c.within for c in runs], [c.tuner.p_within_margin() or 0.0 for c in runs]
    assert not_below(sum(within), len(within), float(np.mean(ps)))
