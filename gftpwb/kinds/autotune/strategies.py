"""Auto-tune strategies, ask/tell and pure: they say which candidate to run next and learn from the
result; the runner (``gftpwb.kinds.autotune.run.runner``) owns transfers, clocks and events.

``ask()`` is a function of what has been told so far, so a campaign replayed from its journal asks
for exactly the same transfers again: that is how ``--resume`` continues an interrupted auto-tune.

* :class:`Exhaustive` is tgftp: every candidate ``repetitions`` times, in list order, each
  candidate's runs back to back (as tgftp's batch lines run their ``execs``), then tgftp's pick.
* :class:`Adaptive` races the candidates: a screening transfer each, a second one for every candidate
  that is not hopeless, then transfers only where they can change the answer (Welch-test elimination
  and a one-sided equivalence stop), and tgftp's pick over the survivors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from gftpwb.core.events import RankingRow
from gftpwb.core.format import rate_text
from gftpwb.core.units import format_rate

from .candidates import Candidate
from .model import ADAPTIVE, EXHAUSTIVE, STRATEGIES
from .ranking import Arm, p_within_margin, pooled_cv, ranking_rows, shrunk_sd, tgftp_pick
from .stats import critical_t, welch_df, welch_greater, welch_t


@dataclass(frozen=True)
class Elimination:
    candidate: int  # 1-based number
    after_transfers: int
    reason: str


class Tuner:
    """What both strategies share: the tallies, the pick and the ranking."""

    name = ""
    #: How the tuned kind writes its socket buffer option (the ranking's note on kernel-capped twins).
    buffer = "-tcp-bs"

    def __init__(self, candidates: Sequence[Candidate], margin_mib_s: float,
                 duplicates: dict[int, int] | None = None):
        if not candidates:
            raise ValueError("an auto-tune needs at least one candidate")
        if margin_mib_s <= 0:
            raise ValueError("the tie margin must be positive")
        self.candidates = tuple(candidates)
        self.margin = float(margin_mib_s)
        self.arms = [Arm(c) for c in self.candidates]
        for later, earlier in (duplicates or {}).items():
            self.arms[later - 1].duplicate_of = earlier
        self.transfers_used = 0
        self.eliminations: list[Elimination] = []
        self.budget = 0

    # --- ask / tell --------------------------------------------------------------------------

    def ask(self) -> int | None:  # pragma: no cover - abstract
        """0-based index of the candidate to run next, or None when the tune is finished."""
        raise NotImplementedError

    def tell(self, index: int, rate_mib_s: float | None, failure: str = "") -> None:
        """The result of one transfer of candidate ``index``: its rate, or None and why it failed."""
        arm = self.arms[index]
        if rate_mib_s is None:
            arm.failures += 1
            arm.last_failure = failure
        else:
            arm.rates.append(float(rate_mib_s))
        self.transfers_used += 1
        self._after_tell(index)

    def _after_tell(self, index: int) -> None:
        return None

    @property
    def finished(self) -> bool:
        return self.ask() is None

    @property
    def stop_reason(self) -> str:
        """Why the tune ended before running everything it could (empty: it ran its plan)."""
        return ""

    # --- answers -----------------------------------------------------------------------------

    def in_pick(self, arm: Arm) -> bool:
        """Whether ``arm`` takes part in the final pick."""
        return not arm.eliminated

    def _mean(self, arm: Arm) -> float | None:
        """The arm's estimated mean: its live runs' (a warm start blends in what the history predicts)."""
        return arm.mean

    def estimate(self, index: int) -> float | None:
        """The estimated mean of candidate ``index`` (0-based) that the pick is made on."""
        return self._mean(self.arms[index])

    def pick(self) -> int | None:
        """0-based index of the pick (tgftp's rule over the candidates taking part), or None."""
        return tgftp_pick([self._mean(a) if self.in_pick(a) else None for a in self.arms], self.margin)

    def pick_line(self) -> str:
        """The winner's label, what its transfers ran (``-vb -p 16 -tcp-bs 8M``); empty without a pick."""
        pick = self.pick()
        return "" if pick is None else self.candidates[pick].label

    def rows(self) -> tuple[RankingRow, ...]:
        """The ranking: each candidate's measured mean with the interval the race's figures rest on,
        and, once the tune is over, why each candidate stopped being run."""
        notes = self.stop_notes() if self.finished else {}
        return ranking_rows(self.arms, self.pick(), self.margin, self.buffer, cv=self.measured_cv(), notes=notes)

    def stop_notes(self) -> dict[int, str]:
        """Why each candidate still in the race (by index) stopped being run, on what evidence."""
        return {}

    def pooled_cv(self) -> float:
        """The run-to-run spread the race works with (a warm start's includes the history's)."""
        return pooled_cv(self.arms)

    def measured_cv(self) -> float:
        """The run-to-run spread of the runs measured in this tune alone, pooled over the candidates."""
        return pooled_cv(self.arms)

    def p_within_margin(self) -> float | None:
        """P(the pick is within the margin of the best) from the runs measured in this tune alone."""
        return p_within_margin(self.arms, self.pick(), self.margin, self.measured_cv())

    def p_with_history(self) -> float | None:
        """A warm start's P, its priors counted beside the runs (None: no warm race)."""
        return None

    def history_share(self) -> str:
        """What of the pick's estimate a warm start's history supplies ("" : none)."""
        return ""

    def evidence(self, arm: Arm) -> str:
        """What a judgement of ``arm`` rests on: ``4 runs`` (a warm start adds the history's share)."""
        return f"{len(arm.rates)} run{'s' if len(arm.rates) != 1 else ''}"


class Exhaustive(Tuner):
    """tgftp's auto-tune: every candidate ``repetitions`` times, in order, then tgftp's pick."""

    name = EXHAUSTIVE

    def __init__(self, candidates: Sequence[Candidate], margin_mib_s: float, repetitions: int = 10,
                 duplicates: dict[int, int] | None = None):
        super().__init__(candidates, margin_mib_s, duplicates)
        if repetitions < 1:
            raise ValueError("repetitions must be at least 1")
        self.repetitions = repetitions
        self.budget = repetitions * len(self.candidates)

    def ask(self) -> int | None:
        for index, arm in enumerate(self.arms):
            if arm.runs < self.repetitions:
                return index
        return None


class Adaptive(Tuner):
    """A race with an indifference zone of one margin, for tgftp's candidates and tgftp's pick.

    1. Screening: one transfer per candidate (kernel-capped duplicates are not run).
    2. A second transfer for every candidate whose first rate is at least ``hopeless`` times the
       best first rate; the others are dropped (a slow outlier run is 0.5-0.8x, so the best
       candidate does not fall that far on one bad run).
    3. Race: drop a candidate when a one-sided Welch test says the leader is faster
       (Bonferroni over the candidates left). Stop when, for every candidate left, the upper
       confidence bound of (its mean - the pick's mean) is below the margin: no survivor can be a
       margin better than the pick (a one-sided equivalence test). Otherwise run the pick or its most
       threatening challenger, whichever adds more to the uncertainty of their difference.
    4. At ``budget`` transfers it stops anyway and picks from what it has.

    Variances use each candidate's spread shrunk towards the pooled coefficient of variation, so
    candidates with two runs have usable confidence intervals.
    """

    name = ADAPTIVE

    def __init__(self, candidates: Sequence[Candidate], margin_mib_s: float, budget: int = 120,
                 duplicates: dict[int, int] | None = None, alpha: float = 0.05, hopeless: float = 0.4,
                 max_failures: int = 2, eliminate_alpha: float | None = None, min_runs_to_eliminate: int = 3):
        super().__init__(candidates, margin_mib_s, duplicates)
        self.budget = budget
        self.alpha = alpha
        self.eliminate_alpha = alpha if eliminate_alpha is None else eliminate_alpha
        self.min_runs_to_eliminate = min_runs_to_eliminate
        self.hopeless = hopeless
        self.max_failures = max_failures
        for arm in self.arms:
            if arm.duplicate_of is not None:
                self._eliminate(arm, "not run")
        if budget < 1:
            raise ValueError("the budget must be at least 1 transfer")

    # --- state ---------------------------------------------------------------------------------

    def _eliminate(self, arm: Arm, reason: str) -> None:
        arm.eliminated_after = self.transfers_used
        arm.elimination = reason
        self.eliminations.append(Elimination(arm.candidate.number, self.transfers_used, reason))

    def _alive(self) -> list[Arm]:
        return [a for a in self.arms if not a.eliminated]

    def _after_tell(self, index: int) -> None:
        arm = self.arms[index]
        if not arm.eliminated and not arm.rates and arm.failures >= self.max_failures:
            self._eliminate(arm, f"dropped after {self.transfers_used} transfers: {arm.failures} failed runs")
        if self._screening_target() is None:
            self._screen_out()
            if self._second_look_target() is None:
                self._welch_eliminate()

    def _screening_target(self) -> Arm | None:
        return next((a for a in self._alive() if a.runs == 0), None)

    def _screen_out(self) -> None:
        best_first = max((a.rates[0] for a in self._alive() if a.rates), default=None)
        if best_first is None:
            return
        for arm in self._alive():
            if arm.rates and len(arm.rates) == 1 and arm.rates[0] < self.hopeless * best_first:
                self._eliminate(arm, f"screened out after {self.transfers_used} transfers: its one run, "
                                     f"{rate_text(arm.rates[0])} MiB/s, below {self.hopeless:.0%} of the best first "
                                     f"run ({rate_text(best_first)} MiB/s), further than a slow outlier falls")

    def _second_look_target(self) -> Arm | None:
        return next((a for a in self._alive() if a.runs < 2 and not (a.failures and not a.rates)), None) \
            or next((a for a in self._alive() if a.failures and not a.rates and a.runs < self.max_failures), None)

    def _stats(self, arm: Arm, cv: float) -> tuple[float, float, float]:
        """mean, variance (shrunk), and the degrees of freedom the variance counts for."""
        mean = arm.mean or 0.0
        sd = shrunk_sd(arm.rates, cv)
        return mean, sd * sd, len(arm.rates) - 1 + 3.0

    def _n(self, arm: Arm) -> float:
        """How many runs the arm's mean stands for (live runs; a warm start adds its prior's worth)."""
        return float(len(arm.rates))

    def _can_eliminate(self, arm: Arm) -> bool:
        return len(arm.rates) >= self.min_runs_to_eliminate

    def _welch_eliminate(self) -> None:
        alive = [a for a in self._alive() if a.rates]
        if len(alive) < 2:
            return
        cv = self.pooled_cv()
        leader = max(alive, key=lambda a: self._mean(a) or 0.0)
        lm, lv, ldf = self._stats(leader, cv)
        level = self.eliminate_alpha / (len(alive) - 1)
        for arm in alive:
            if arm is leader or not self._can_eliminate(arm):
                continue
            m, v, df = self._stats(arm, cv)
            t, dof = welch_t(lm, lv, self._n(leader), m, v, self._n(arm), ldf, df)
            if t > critical_t(1 - level, dof):  # the one-sided p-value is below the level
                p = welch_greater(lm, lv, self._n(leader), m, v, self._n(arm), ldf, df)
                self._eliminate(arm, f"eliminated after {self.transfers_used} transfers: slower than "
                                     f"{leader.candidate.label} (Welch p={p:.2g} < {level:.2g}; {self.evidence(arm)} "
                                     f"against {self.evidence(leader)})")

    def _threats(self, pick: Arm, cv: float) -> list[tuple[float, Arm]]:
        """(upper bound of mean - pick mean, arm) for every other survivor with a rate."""
        others = [a for a in self._alive() if a.rates and a is not pick]
        if not others:
            return []
        pm, pv, pdf = self._stats(pick, cv)
        z_level = 1 - self.alpha / len(others)
        out = []
        for arm in others:
            m, v, df = self._stats(arm, cv)
            se = math.sqrt(v / self._n(arm) + pv / self._n(pick))
            dof = welch_df(v, self._n(arm), pv, self._n(pick), df, pdf)
            out.append((m - pm + critical_t(z_level, dof) * se, arm))
        return out

    def stop_notes(self) -> dict[int, str]:
        """Why each survivor other than the pick stopped being run: the race's bound on how much better
        than the pick it can be (when no survivor could be a margin better), or the budget."""
        _, reason = self._decide()
        pick_index = self.pick()
        if pick_index is None:
            return {}
        pick = self.arms[pick_index]
        if reason.startswith("no survivor"):
            return {arm.candidate.index: (
                f"stopped after {self.evidence(arm)}: at most {bound:+.1f} MiB/s against the pick (one-sided 95 %, "
                f"Bonferroni), under the {format_rate(self.margin)} margin") for bound, arm in self._threats(
                    pick, self.pooled_cv())}
        if "budget" in reason:
            return {arm.candidate.index: f"still in the race when the budget ran out ({self.evidence(arm)})"
                    for arm in self._alive() if arm.rates and arm is not pick}
        return {}

    # --- ask -----------------------------------------------------------------------------------

    def ask(self) -> int | None:
        return self._decide()[0]

    @property
    def stop_reason(self) -> str:
        """Why the race ended (empty while it goes on)."""
        return self._decide()[1]

    def _decide(self) -> tuple[int | None, str]:
        """The next candidate to run, or None and why the race is over. A function of the state."""
        target = self._screening_target() or self._second_look_target()
        if target is not None:
            if self.transfers_used < self.budget:
                return target.candidate.index, ""
            return None, f"budget of {self.budget} transfers used before every candidate was screened"
        if self.transfers_used >= self.budget:
            return None, f"budget of {self.budget} transfers used"
        alive = [a for a in self._alive() if a.rates]
        if not alive:
            return None, "no candidate succeeded"
        cv = self.pooled_cv()
        pick_index = self.pick()
        if pick_index is None:
            # Nothing reaches the margin yet (a very slow path): settle whether the fastest does.
            leader = max(alive, key=lambda a: self._mean(a) or 0.0)
            m, v, df = self._stats(leader, cv)
            upper = m + critical_t(1 - self.alpha, df) * math.sqrt(v / self._n(leader))
            if upper < self.margin:
                return None, f"no candidate reaches {format_rate(self.margin)}"
            return leader.candidate.index, ""
        pick = self.arms[pick_index]
        threats = self._threats(pick, cv)
        if not threats or max(t for t, _ in threats) < self.margin:
            return None, f"no survivor can be {format_rate(self.margin)} better than the pick"
        _, challenger = max(threats, key=lambda item: item[0])
        _, pv, _ = self._stats(pick, cv)
        _, cvar, _ = self._stats(challenger, cv)
        # Run whichever of the two contributes more to the uncertainty of their difference.
        if pv / self._n(pick) >= cvar / self._n(challenger):
            return pick.candidate.index, ""
        return challenger.candidate.index, ""


def make_tuner(strategy: str, candidates: Sequence[Candidate], margin_mib_s: float, *, repetitions: int = 10,
               budget: int = 120, duplicates: dict[int, int] | None = None) -> Tuner:
    if strategy == EXHAUSTIVE:
        return Exhaustive(candidates, margin_mib_s, repetitions, duplicates)
    if strategy == ADAPTIVE:
        return Adaptive(candidates, margin_mib_s, budget, duplicates)
    raise ValueError(f"unknown strategy {strategy!r}; use one of: {', '.join(STRATEGIES)}")
