"""Scoring and ranking: tgftp's pick rule, the per-candidate tallies, and the ranking rows.

tgftp's rule (research notes tgftp.md §4): walk the candidates in list order, starting from a best
mean of 0 and no pick; a candidate becomes the pick iff its mean is at least ``best + margin``
(equality counts). So the first candidate reaching the margin becomes the pick, a later one replaces
it only if it is at least the margin better, and the earlier of two near-equal candidates wins.
Candidates without a successful run take no part (tgftp collects nothing for failed runs).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from gftpwb.core.events import RankingRow
from gftpwb.core.units import format_rate

from .candidates import Candidate
from .stats import t_quantile


def tgftp_pick(means: Sequence[float | None], margin: float) -> int | None:
    """Index of tgftp's pick among ``means`` (None = no successful run), or None without one."""
    pick, best = None, 0.0
    for index, mean in enumerate(means):
        if mean is None:
            continue
        if mean >= best + margin:
            pick, best = index, mean
    return pick


@dataclass
class Arm:
    """Everything observed for one candidate."""

    candidate: Candidate
    rates: list[float] = field(default_factory=list)  # MiB/s of successful transfers
    failures: int = 0
    last_failure: str = ""
    eliminated_after: int | None = None  # transfers used when it was dropped (adaptive)
    elimination: str = ""
    duplicate_of: int | None = None  # candidate number whose kernel-capped twin this is
    prior: str = ""  # what a warm start's history predicted for it, for people ("" : no warm start)

    @property
    def runs(self) -> int:
        return len(self.rates) + self.failures

    @property
    def mean(self) -> float | None:
        return sum(self.rates) / len(self.rates) if self.rates else None

    @property
    def eliminated(self) -> bool:
        return self.eliminated_after is not None


def ranking_rows(arms: Sequence[Arm], pick: int | None, margin: float, buffer: str = "-tcp-bs", *,
                 cv: float | None = None, notes: Mapping[int, str] | None = None) -> tuple[RankingRow, ...]:
    """Rows best first: the pick, then candidates still in the race by mean, then eliminated ones by
    mean, then candidates not run, then candidates whose every run failed (with the reason).
    ``buffer``: how the tuned kind's socket buffer option is written (a twin's note names it);
    ``cv``: the spread pooled over the candidates (:func:`pooled_cv` by default), which each row's
    interval rests on (:func:`race_interval`); ``notes``: what the strategy says of a candidate
    (by index: why it stopped being run)."""
    with_data = [a for a in arms if a.rates]
    leader = arms[pick] if pick is not None else max(with_data, key=lambda a: a.mean or 0.0, default=None)
    spread = pooled_cv(arms) if cv is None else cv

    def by_mean(group: list[Arm]) -> list[Arm]:
        return sorted(group, key=lambda a: (-(a.mean or 0.0), a.candidate.number))

    rest = [a for a in with_data if a is not leader]
    ordered = ([leader] if leader is not None else []) + by_mean([a for a in rest if not a.eliminated]) \
        + by_mean([a for a in rest if a.eliminated]) \
        + [a for a in arms if not a.rates and a.failures == 0] + [a for a in arms if not a.rates and a.failures]
    leader_mean = leader.mean if leader is not None else None
    rows = []
    for rank, arm in enumerate(ordered, start=1):
        mean = arm.mean
        interval = race_interval(arm.rates, spread)
        tied = (arm is not leader and mean is not None and leader_mean is not None
                and abs(mean - leader_mean) < margin)
        note = "; ".join(n for n in (row_note(arm, arms, margin, buffer), (notes or {}).get(arm.candidate.index, ""))
                         if n)
        rows.append(RankingRow(
            rank=rank, candidate=arm.candidate.label, mean_mib_s=mean,
            ci_low_mib_s=interval[0] if interval else None, ci_high_mib_s=interval[1] if interval else None,
            runs=arm.runs, failures=arm.failures, tied_with_leader=tied, eliminated=arm.eliminated,
            eliminated_after=arm.eliminated_after, note=note,
        ))
    return tuple(rows)


def race_interval(rates: Sequence[float], cv: float, confidence: float = 0.95) -> tuple[float, float] | None:
    """The 95 % interval of a candidate's mean that the race's figures rest on: the spread of its
    runs shrunk towards the spread pooled over every candidate (:func:`shrunk_sd`, worth
    :data:`PRIOR_DF` runs), Student's t with ``n - 1 + PRIOR_DF`` degrees of freedom, on the log
    scale so it never reaches 0. One run has an interval too: the pooled spread stands in for its own
    (what lets the race judge a candidate from one or two runs); None without a run."""
    n = len(rates)
    if n == 0:
        return None
    mean = sum(rates) / n
    if mean <= 0:
        return None
    half = t_quantile(0.5 + confidence / 2, n - 1 + PRIOR_DF) * shrunk_sd(rates, cv) / mean / math.sqrt(n)
    return mean * math.exp(-half), mean * math.exp(half)


def row_note(arm: Arm, arms: Sequence[Arm], margin: float, buffer: str = "-tcp-bs") -> str:
    notes = []
    if arm.duplicate_of is not None:
        twin = arms[arm.duplicate_of - 1].candidate
        notes.append(f"same kernel-capped {buffer} as {twin.label}")
    if arm.elimination:
        notes.append(arm.elimination)
    if arm.prior:
        notes.append(arm.prior)
    if arm.failures:
        what = f"all {arm.failures} runs failed" if not arm.rates else f"{arm.failures} of {arm.runs} runs failed"
        notes.append(f"{what}: {arm.last_failure}" if arm.last_failure else what)
    return "; ".join(notes)


def tie_note(margin: float) -> str:
    return f"tied with #1 (within {format_rate(margin)})"


def p_within_margin(arms: Sequence[Arm], pick: int | None, margin: float, pooled_cv: float | None,
                    draws: int = 4000, seed: int = 20261122) -> float | None:
    """Estimated probability that the pick's true mean is within ``margin`` of the best true mean.

    Parametric bootstrap: each candidate's true mean is drawn from Normal(mean, se^2), with se from
    its own spread shrunk towards the pooled coefficient of variation (so a candidate seen once still
    has an uncertainty). Candidates never measured successfully are left out. Seeded: the same
    observations always give the same figure.
    """
    if pick is None:
        return None
    measured = [i for i, a in enumerate(arms) if a.rates]
    if len(measured) < 2:
        return 1.0 if measured == [pick] else None
    cv = pooled_cv if pooled_cv is not None else 0.05
    means = np.array([arms[i].mean for i in measured], dtype=float)
    ses = np.array([shrunk_sd(arms[i].rates, cv) / np.sqrt(len(arms[i].rates)) for i in measured])
    return p_within_margin_of(means, ses, measured.index(pick), margin, draws, seed)


def p_within_margin_of(means: np.ndarray, ses: np.ndarray, pick: int, margin: float, draws: int = 4000,
                       seed: int = 20261122) -> float:
    """The parametric bootstrap of :func:`p_within_margin` from candidates' means and standard errors
    (``pick``: the pick's position among them)."""
    if len(means) < 2:
        return 1.0
    rng = np.random.default_rng(seed)
    truth = means + ses * rng.standard_normal((draws, len(means)))
    ok = truth[:, pick] >= truth.max(axis=1) - margin
    return float(ok.mean())


PRIOR_DF = 3.0  # how many degrees of freedom the pooled CV counts for in a candidate's variance

RACE_LEGEND = (f"95 % CI of the mean: the candidate's own spread shrunk towards the spread pooled over every "
               f"candidate (worth {PRIOR_DF:g} runs), Student's t, on the log scale (never below 0); the race "
               "judges by the same spread, so one or two runs have one")


def shrunk_sd(rates: Sequence[float], pooled_cv: float) -> float:
    """A candidate's standard deviation, shrunk towards ``pooled_cv`` times its mean."""
    n = len(rates)
    mean = sum(rates) / n
    prior_var = (pooled_cv * mean) ** 2
    if n < 2:
        return float(np.sqrt(prior_var))
    var = sum((x - mean) ** 2 for x in rates) / (n - 1)
    return float(np.sqrt(((n - 1) * var + PRIOR_DF * prior_var) / (n - 1 + PRIOR_DF)))


def pooled_cv(arms: Sequence[Arm], prior_cv: float = 0.05, prior_df: float = 2.0) -> float:
    """Run-to-run coefficient of variation pooled over every candidate with two or more runs."""
    num, den = prior_df * prior_cv * prior_cv, prior_df
    for arm in arms:
        n = len(arm.rates)
        if n >= 2:
            mean = sum(arm.rates) / n
            if mean > 0:
                var = sum((x - mean) ** 2 for x in arm.rates) / (n - 1)
                num += var / (mean * mean) * (n - 1)
                den += n - 1
    return float(np.sqrt(num / den))
