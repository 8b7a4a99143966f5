"""The adaptive race with a warm start: it begins from what earlier campaigns of the path found, checks
with a few live transfers that the path still behaves so, and spends the rest of a smaller budget only
where the choice is still open. Ask/tell and pure, like :mod:`gftpwb.kinds.autotune.strategies`: what
it asks is a function of what it was told, so ``--resume`` replays it.

1. Left out: candidates the history rules out (their prior mean is below the best prior's by more
   than ``z`` standard errors of the difference, or they only ever failed) are not raced.
2. Probes: every candidate still open runs once, most promising first; so do up to two *sentinels*
   (the best left-out candidate, and the best left-out one whose parameters are of another shape than
   the leader's), which check the part of the field the race will not see; the history's leader runs
   twice.
3. The verdict (:func:`gftpwb.kinds.autotune.warm.agreement`): if the probes disagree with the
   history, the candidates out of line run again (the worst once or twice more, or the three best
   probes once more when all rates moved); if they still disagree the tune **falls back to a cold
   search**: every
   candidate is back in, the budget is the cold one, and the transfers already run count as its first.
4. Race: :class:`~gftpwb.kinds.autotune.strategies.Adaptive`'s elimination and equivalence stop over
   the open candidates, on estimates that blend each prior (scaled by the probes' common factor, worth
   ``Prior.n_eff`` runs) with the live runs, at most the warm budget (a third of the cold one). A
   candidate is eliminated only on two live runs of its own or more (one run has no spread to test),
   and every judgement says the history's share (``2 runs and the history worth 10``).

What it says of the pick: P(within the margin) from the runs of this tune alone (what was
measured), and beside it the P the race worked with, the priors counted, with the history's share
of the pick's estimate (:meth:`WarmAdaptive.history_share`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from gftpwb.core.format import ci_text, rate_text

from .candidates import Candidate
from .ranking import Arm, p_within_margin_of, shrunk_sd
from .ranking import pooled_cv as arms_pooled_cv
from .strategies import Adaptive, Tuner
from .warm import (
    DEFAULT_CAMPAIGNS,
    MIN_SIMILARITY,
    PastCampaign,
    PathFeatures,
    Prior,
    Probe,
    UsedCampaign,
    Verdict,
    agreement,
    build_priors,
    open_set,
    select_campaigns,
    warm_budget,
)

PROBE, RACE, COLD = "probe", "race", "cold"
LEFT_OUT = "left out by the history"
HISTORY_CV_DF = 10.0  # how many degrees of freedom the history's run-to-run CV counts for live
# Runs asked of a candidate out of line before the path counts as changed: one, and one more if the
# first was out of line too (two slow outliers in a row happen; three in 1 of 8,000 at 5 % of runs).
MAX_CONFIRMATIONS = 2
MIN_LIVE_RUNS_TO_ELIMINATE = 2  # a candidate's own runs an elimination needs, whatever its prior adds


@dataclass(frozen=True)
class WarmStart:
    """What the history gives a tune: one prior per candidate (None: never measured on a similar path),
    the history's run-to-run CV and campaign-to-campaign spread, the warm budget, and each candidate's
    parameter names (for choosing sentinels of another shape)."""

    priors: tuple[Prior | None, ...]
    cv: float
    tau: float
    budget: int
    shapes: tuple[frozenset[str], ...] = ()

    @staticmethod
    def shape_of(key: str) -> frozenset[str]:
        """The parameter names of a candidate key (:func:`gftpwb.kinds.autotune.warm.candidate_key`)."""
        try:
            return frozenset(json.loads(key))
        except (ValueError, TypeError):
            return frozenset()


class WarmAdaptive(Adaptive):
    """See the module docstring."""

    def __init__(self, candidates: Sequence[Candidate], margin_mib_s: float, budget: int, warm: WarmStart,
                 duplicates: dict[int, int] | None = None, *, z_open: float | None = None, **kwargs: Any):
        super().__init__(candidates, margin_mib_s, budget, duplicates, **kwargs)
        if len(warm.priors) != len(self.arms):
            raise ValueError("a warm start needs one prior (or None) per candidate")
        self.warm = warm
        self.cold_budget = budget
        self.budget = min(warm.budget, budget)
        self.phase = PROBE
        self.scale = 1.0
        self.verdict: Verdict | None = None
        self.confirmed = False
        self.fallback = ""  # why the tune went cold ("" while warm)
        self.fell_back_after = 0  # transfers used when it did
        self._extra: dict[int, int] = {}  # index -> runs it must reach before the verdict (confirmations)
        self._confirmations: dict[int, int] = {}  # index -> confirmation runs asked of it
        k = max(len(self.arms) - 1, 1)
        z = z_open if z_open is not None else NormalDist().inv_cdf(1 - self.alpha / k)
        self.z_open = z
        usable = [p if a.duplicate_of is None else None for p, a in zip(warm.priors, self.arms, strict=True)]
        opens = open_set(usable, z)
        best = max((p.mean for p in usable if p is not None and not p.failed), default=None)
        for arm, prior, is_open in zip(self.arms, warm.priors, opens, strict=True):
            if arm.eliminated:
                continue
            if is_open:
                if prior is not None and not prior.failed:
                    arm.prior = f"history {ci_text(prior.mean, prior.se, 0)} MiB/s ({prior.campaigns} campaign(s))"
                continue
            if prior is not None and prior.failed:
                why = f"{LEFT_OUT}: it only failed there"
            else:
                why = (f"{LEFT_OUT}: {rate_text(prior.mean if prior else None, 0)} MiB/s there, the best "
                       f"{rate_text(best, 0)}")
            self._eliminate(arm, why)
        self.sentinels = self._choose_sentinels()
        open_arms = [i for i, a in enumerate(self.arms) if not a.eliminated]
        by_prior = sorted(open_arms, key=lambda i: (self._prior_mean(i) is None, -(self._prior_mean(i) or 0.0), i))
        self.probe_order = tuple(by_prior) + self.sentinels
        self.leader = next((i for i in by_prior if self._prior_mean(i) is not None), None)

    # --- the history's view ----------------------------------------------------------------------

    def _prior(self, index: int) -> Prior | None:
        prior = self.warm.priors[index]
        if prior is None or prior.failed:
            return None
        return prior.scaled(self.scale) if self.scale != 1.0 else prior

    def _prior_mean(self, index: int) -> float | None:
        prior = self._prior(index)
        return None if prior is None else prior.mean

    def _choose_sentinels(self) -> tuple[int, ...]:
        """Up to two left-out candidates to run once: the best by its prior, and the best whose
        parameters have another shape than the history's leader (another set of parameter names)."""
        left = [i for i, a in enumerate(self.arms)
                if a.eliminated and a.duplicate_of is None and self._prior(i) is not None]
        if not left:
            return ()
        left.sort(key=lambda i: (-(self._prior_mean(i) or 0.0), i))
        chosen = [left[0]]
        shapes = self.warm.shapes
        leaders = [i for i, a in enumerate(self.arms) if not a.eliminated and self._prior(i) is not None]
        if shapes and leaders:
            top = max(leaders, key=lambda i: self._prior_mean(i) or 0.0)
            other = next((i for i in left[1:] if shapes[i] != shapes[top]), None)
            if other is not None:
                chosen.append(other)
        return tuple(chosen)

    # --- estimates that blend prior and live runs -------------------------------------------------

    def _warm(self) -> bool:
        return self.phase != COLD

    def _n0(self, arm: Arm) -> float:
        prior = self._prior(arm.candidate.index) if self._warm() else None
        return prior.n_eff if prior is not None else 0.0

    def _mean(self, arm: Arm) -> float | None:
        n0 = self._n0(arm)
        if not n0:
            return arm.mean
        prior = self._prior(arm.candidate.index)
        assert prior is not None
        return (sum(arm.rates) + n0 * prior.mean) / (len(arm.rates) + n0)

    def _n(self, arm: Arm) -> float:
        return len(arm.rates) + self._n0(arm)

    def _stats(self, arm: Arm, cv: float) -> tuple[float, float, float]:
        n0 = self._n0(arm)
        if not n0:
            return super()._stats(arm, cv)
        mean = self._mean(arm) or 0.0
        sd = shrunk_sd(arm.rates, cv) if arm.rates else cv * mean
        return mean, sd * sd, len(arm.rates) - 1 + 3.0 + n0

    def _can_eliminate(self, arm: Arm) -> bool:
        if not self._n0(arm):
            return super()._can_eliminate(arm)
        return len(arm.rates) >= MIN_LIVE_RUNS_TO_ELIMINATE and self._n(arm) >= self.min_runs_to_eliminate

    def evidence(self, arm: Arm) -> str:
        n0 = self._n0(arm)
        live = super().evidence(arm)
        return f"{live} and the history worth {n0:.0f}" if n0 else live

    def history_share(self) -> str:
        """What the pick's estimate rests on when the history has a share in it ("" when not)."""
        pick = self.pick()
        if pick is None or not self._warm() or not self._n0(self.arms[pick]):
            return ""
        return self.evidence(self.arms[pick])

    def pooled_cv(self) -> float:
        if not self._warm():
            return super().pooled_cv()
        return arms_pooled_cv(self.arms, prior_cv=self.warm.cv, prior_df=HISTORY_CV_DF)

    def p_with_history(self) -> float | None:
        """P(the pick is within the margin of the best) as the race sees it: live runs blended with the
        priors, and the history's prediction for candidates it left out (None once the tune went cold)."""
        if not self._warm():
            return None
        pick = self.pick()
        if pick is None:
            return None
        cv = self.pooled_cv()
        means, ses, rows = [], [], []
        for i, arm in enumerate(self.arms):
            prior = self._prior(i)
            if arm.rates:
                m, v, _ = self._stats(arm, cv)
                means.append(m)
                ses.append(math.sqrt(v / self._n(arm)))
            elif prior is not None:
                means.append(prior.mean)
                ses.append(prior.se)
            else:
                continue
            rows.append(i)
        if pick not in rows:
            return None
        return p_within_margin_of(np.array(means), np.array(ses), rows.index(pick), self.margin)

    # --- ask ---------------------------------------------------------------------------------------

    def _probe_target(self) -> Arm | None:
        for index in self.probe_order:
            arm = self.arms[index]
            if arm.runs == 0:
                return arm
        if self.leader is not None:
            arm = self.arms[self.leader]
            if arm.runs < 2 and not (arm.failures >= self.max_failures and not arm.rates):
                return arm
        for index, runs in sorted(self._extra.items()):
            arm = self.arms[index]
            if arm.runs < runs and not (arm.failures >= self.max_failures and not arm.rates):
                return arm
        return None

    def _second_look_target(self) -> Arm | None:
        if not self._warm():
            return super()._second_look_target()
        # The priors stand in for a second look; candidates the history never ran get one.
        return next((a for a in self._alive() if a.runs < 2 and self._prior(a.candidate.index) is None
                     and not (a.failures and not a.rates)), None)

    def _decide(self) -> tuple[int | None, str]:
        if self.phase == PROBE:
            target = self._probe_target()
            if target is None:  # the verdict is taken as the last probe is told; only a tune of none ends here
                return None, "no candidate to probe"
            return target.candidate.index, ""  # within the budget: at its end the verdict is taken
        index, reason = super()._decide()
        if index is None and self.phase == RACE and reason.startswith("budget of"):
            reason = f"warm {reason}"
        return index, reason

    # --- tell --------------------------------------------------------------------------------------

    def _after_tell(self, index: int) -> None:
        if self.phase != PROBE:
            super()._after_tell(index)
            return
        arm = self.arms[index]
        if not arm.eliminated and not arm.rates and arm.failures >= self.max_failures:
            self._eliminate(arm, f"dropped after {self.transfers_used} transfers: {arm.failures} failed runs")
        # The verdict once every probe is in, or when the warm budget ends first (a small budget): the
        # history is never trusted unchecked.
        if self._probe_target() is None or self.transfers_used >= self.budget:
            self._judge()

    def probes(self) -> list[Probe]:
        out = []
        for index in self.probe_order:
            arm, prior = self.arms[index], self.warm.priors[index]
            if arm.rates and prior is not None and not prior.failed:
                out.append(Probe(arm.candidate.label, tuple(arm.rates), prior))
        return out

    def _judge(self) -> None:
        """The verdict on the probes: race on, confirm what is out of line, or go cold. A candidate out
        of line runs once more, and once more again if still out of line (its run closest to the
        prediction counts, so slow runs do not condemn a path); when all rates moved, the three best
        probes run once more. Out of line after that: cold."""
        verdict = agreement(self.probes(), self.warm.cv, self.warm.tau)
        self.verdict = verdict
        if verdict.agree:
            self.scale = verdict.scale
            self.phase = RACE
            self._screen_out()
            self._welch_eliminate()
            return
        if verdict.worst:
            worst = next(i for i in self.probe_order if self.arms[i].candidate.label == verdict.worst)
            if self._confirmations.get(worst, 0) < MAX_CONFIRMATIONS:
                self._confirmations[worst] = self._confirmations.get(worst, 0) + 1
                self._extra[worst] = self.arms[worst].runs + 1
        elif not self.confirmed:
            self.confirmed = True
            for i in [i for i in self.probe_order if self.arms[i].rates][:3]:
                self._extra.setdefault(i, self.arms[i].runs + 1)
        if self._probe_target() is not None and self.transfers_used < self.budget:
            return  # judged again when the confirmations are in
        self._go_cold(verdict.text)

    def _go_cold(self, why: str) -> None:
        """Every candidate back in, the cold budget, no priors: a cold race that already ran the probes."""
        self.phase = COLD
        self.fallback = why
        self.fell_back_after = self.transfers_used
        self.budget = self.cold_budget
        for arm in self.arms:
            if arm.elimination.startswith(LEFT_OUT):
                arm.eliminated_after = None
                arm.elimination = ""
        self.eliminations = [e for e in self.eliminations if not e.reason.startswith(LEFT_OUT)]
        if self._screening_target() is None:
            self._screen_out()
            if self._second_look_target() is None:
                self._welch_eliminate()

    # --- what it did -------------------------------------------------------------------------------

    @property
    def went_cold(self) -> bool:
        return self.phase == COLD

    def warm_facts(self) -> dict[str, Any]:
        """The warm start's state for the record: phase, verdict, scale, what it left out."""
        left = [a.candidate.number for a in self.arms if a.elimination.startswith(LEFT_OUT)]
        return {
            "phase": self.phase, "warm_budget": min(self.warm.budget, self.cold_budget),
            "cold_budget": self.cold_budget, "fell_back": self.went_cold, "fallback_reason": self.fallback,
            "fell_back_after": self.fell_back_after if self.went_cold else None,
            "verdict": self.verdict.text if self.verdict else "", "scale": self.scale,
            "history_cv": self.warm.cv, "history_tau": self.warm.tau,
            "left_out": left, "sentinels": [self.arms[i].candidate.number for i in self.sentinels],
            "probed": [self.arms[i].candidate.number for i in self.probe_order],
        }


@dataclass(frozen=True)
class WarmPlan:
    """What a tune takes from its history: the warm start (None: a cold tune) and why."""

    warm: WarmStart | None
    used: tuple[UsedCampaign, ...]
    reason: str  # why there is no warm start, or what it rests on, for people


def plan_warm_start(now: PathFeatures, campaigns: Sequence[PastCampaign], keys: Sequence[str], budget: int, *,
                    limit: int = DEFAULT_CAMPAIGNS, min_similarity: float = MIN_SIMILARITY) -> WarmPlan:
    """The warm start of a tune of the candidates ``keys`` on the path ``now`` from the earlier
    ``campaigns`` (any path; the similar ones are chosen here)."""
    if not campaigns:
        return WarmPlan(None, (), "no earlier campaign in the history")
    similar = select_campaigns(now, campaigns, keys, min_similarity=min_similarity)
    if not similar:
        return WarmPlan(None, (), f"none of the {len(campaigns)} earlier campaign(s) in the history is of a similar "
                                  "path with these candidates")
    priors, cv, tau, used = build_priors(similar, campaigns, keys, limit=limit)
    if not any(p is not None and not p.failed for p in priors.values()):
        return WarmPlan(None, tuple(used), "the similar campaigns have no successful run of these candidates")
    warm = WarmStart(tuple(priors.get(k) for k in keys), cv, tau, warm_budget(budget),
                     tuple(WarmStart.shape_of(k) for k in keys))
    return WarmPlan(warm, tuple(used), f"{len(used)} earlier campaign(s) of a similar path")


def priors_to_json(warm: WarmStart) -> dict[str, Any]:
    """A warm start as the tune's record keeps it, so ``--resume`` after Ctrl-C races on the same priors."""
    return {"cv": warm.cv, "tau": warm.tau, "budget": warm.budget,
            "priors": [None if p is None else [p.mean, p.sd_run, p.se, p.runs, p.campaigns, p.failed]
                       for p in warm.priors],
            "shapes": [sorted(s) for s in warm.shapes]}


def priors_from_json(data: dict[str, Any]) -> WarmStart | None:
    """The warm start :func:`priors_to_json` kept, or None when ``data`` is not one."""
    try:
        priors = tuple(None if p is None else Prior(float(p[0]), float(p[1]), float(p[2]), float(p[3]), int(p[4]),
                                                    bool(p[5])) for p in data["priors"])
        shapes = tuple(frozenset(s) for s in data.get("shapes", ()))
        return WarmStart(priors, float(data["cv"]), float(data["tau"]), int(data["budget"]), shapes)
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def similarity_range(used: Sequence[UsedCampaign]) -> str:
    values = [u.similarity for u in used]
    if not values:
        return ""
    low, high = min(values), max(values)
    return f"similarity {low:.2f}" if round(low, 2) == round(high, 2) else f"similarity {low:.2f}-{high:.2f}"


def warm_text(tuner: Tuner, used: Sequence[UsedCampaign], reason: str) -> str:
    """One line on what the history did for the tune, as it goes (console, TUI, report)."""
    if not isinstance(tuner, WarmAdaptive):
        return f"cold search: {reason}" if reason else ""
    left = sum(1 for a in tuner.arms if a.elimination.startswith(LEFT_OUT))
    base = f"warm start from {len(used)} earlier campaign(s) ({similarity_range(used)})"
    if tuner.phase == PROBE:
        return (f"{base}: probing {len(tuner.probe_order)} candidate(s), {left} left out by the history; "
                f"warm budget {tuner.budget} of {tuner.cold_budget}")
    if tuner.phase == RACE:
        verdict = tuner.verdict.text if tuner.verdict else "no probe to compare"
        return (f"{base}: {verdict}; racing within a warm budget of {tuner.budget} of {tuner.cold_budget}, "
                f"{left} left out by the history")
    return (f"fell back to a cold search after {tuner.fell_back_after} transfers (budget {tuner.cold_budget}): "
            f"{tuner.fallback}")


def used_text(used: Sequence[UsedCampaign]) -> str:
    """The campaigns a warm start rests on, newest first: what, when, how similar, what weight."""
    parts = []
    for u in used:
        why = f", {u.why}" if u.why else ""
        parts.append(f"{u.source} {u.ref} of {u.started_at[:16]} (similarity {u.similarity:.2f}, weight "
                     f"{u.weight:.2f}{why})")
    return "; ".join(parts)


PLAN_DETAIL = "warm_start_plan"  # the details key of the tune's first transfer that keeps its warm start


def plan_to_json(plan: WarmPlan, history: str | None) -> dict[str, Any]:
    """What a tune's first transfer records of its warm start (:func:`plan_from_json` reads it back)."""
    return {"history": history, "reason": plan.reason, "used": [u.as_dict() for u in plan.used],
            "warm": None if plan.warm is None else priors_to_json(plan.warm)}


def plan_from_json(data: dict[str, Any]) -> WarmPlan:
    """The warm start :func:`plan_to_json` recorded (a cold one where it cannot be read)."""
    try:
        used = tuple(UsedCampaign(str(u["ref"]), str(u["started_at"]), float(u["similarity"]), float(u["weight"]),
                                  str(u["source"]), str(u["why"])) for u in data.get("used") or ())
    except (KeyError, TypeError, ValueError):
        return WarmPlan(None, (), "the recorded warm start could not be read")
    warm = priors_from_json(data["warm"]) if isinstance(data.get("warm"), dict) else None
    return WarmPlan(warm, used, str(data.get("reason", "")))
