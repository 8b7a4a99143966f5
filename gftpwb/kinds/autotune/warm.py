"""The warm start of an adaptive auto-tune: what earlier campaigns of a similar path say about each
candidate, and whether today's path still behaves as they say. Pure: the runner reads the history
and measures the path (``gftpwb.kinds.autotune.run``); this module only reasons.

* A path is described by features measured when a tune starts (:class:`PathFeatures`): which kind of
  transfer and engine, the two end points (scheme, host, port), the bytes per transfer, the round-trip
  time to the ends and the kernel's buffer cap. :func:`similarity` compares two paths on those
  features (1 = the same path as far as they tell; 0 = not comparable).
* An earlier campaign (an auto-tune, or a sweep of the same transfers) leaves, per candidate, how often
  it ran, its mean rate and spread (:class:`CandidateStats`), keyed on the candidate's parameters as
  a canonical text (:func:`candidate_key`), whatever the parameters of the kind are.
* :func:`select_campaigns` keeps the campaigns of similar paths; :func:`build_priors` turns the newest
  of them that ran each candidate into one prior per candidate: a predicted mean with an uncertainty that
  includes how much the path's rates moved between those campaigns, worth ``n_eff`` live runs
  (:class:`Prior`).
* :func:`agreement` says whether the first live transfers (probes) agree with the priors: a common
  change of all rates beyond what the history's own campaign-to-campaign spread explains, or one
  candidate out of line with the others, means the path changed: the tune falls back to a cold search.

Similarity weights (documented, not fitted): different kinds or engines: 0; the size per transfer
enters as exp(-d^2/2) with d the log2 ratio of the sizes; both ends the same: 1, one: 0.7, none: 0.4;
the RTT as exp(-(d/0.4)^2/2) with d the log ratio of (RTT + 0.5 ms) (0.8 when either is unknown);
other data moved (other paths, or files against memory to memory): 0.7; different buffer caps: 0.2.
A campaign is used from a similarity of 0.5.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

MIN_SIMILARITY = 0.5
DEFAULT_CAMPAIGNS = 5
RTT_FLOOR_S = 0.0005  # loopback connects take tens of microseconds, and vary more than that under load
RTT_WIDTH = 0.4  # log-ratio scale of RTT similarity: 20 ms vs 27 ms is 0.72
ONE_END_SAME = 0.7
NO_END_SAME = 0.4
UNKNOWN_RTT = 0.8
OTHER_CAP = 0.2
OTHER_DATA = 0.7  # other files (or memory against files): disks may set the pace
# Campaign-to-campaign relative spread of a candidate's mean assumed before the history shows its own
# (a weak prior, worth PRIOR_TAU_DF candidate-campaign pairs), and the least ever assumed: a path is
# never taken to be perfectly stable, so a live run always moves the estimate.
PRIOR_TAU = 0.02
PRIOR_TAU_DF = 2.0
MIN_TAU = 0.01
MAX_PRIOR_RUNS = 12.0  # a prior is never worth more than this many live runs
MIN_PRIOR_RUNS = 2.0  # a prior resting on fewer (weighted) runs does not take part in the shape test


@dataclass(frozen=True)
class PathFeatures:
    """What a tune knows of its path when it starts."""

    transfer_kind: str  # the kind of the tune's transfers ("guc")
    engine: str  # "real", or the engine that computes the transfers
    source: str  # scheme://host:port of the source end ("" for a local file)
    target: str
    length: int  # bytes per transfer
    rtt_s: float | None = None  # round-trip time to the ends (the larger of the two), if measured
    buffer_cap: int | None = None  # the path's kernel buffer cap, if read
    data: str = ""  # what moves: "<source path> -> <target path>" (memory to memory: /dev/zero -> /dev/null)

    def as_dict(self) -> dict[str, Any]:
        return {"transfer_kind": self.transfer_kind, "engine": self.engine, "source": self.source,
                "target": self.target, "length": self.length, "rtt_s": self.rtt_s, "buffer_cap": self.buffer_cap,
                "data": self.data}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PathFeatures:
        rtt = data.get("rtt_s")
        cap = data.get("buffer_cap")
        return cls(str(data.get("transfer_kind", "")), str(data.get("engine", "")), str(data.get("source", "")),
                   str(data.get("target", "")), int(data.get("length") or 0),
                   float(rtt) if rtt is not None else None, int(cap) if cap is not None else None,
                   str(data.get("data", "")))


@dataclass(frozen=True)
class CandidateStats:
    """One candidate in one earlier campaign: successful runs, their mean and standard deviation."""

    n: int
    mean: float | None
    sd: float | None = None  # None with fewer than two runs
    failures: int = 0

    @classmethod
    def of(cls, rates: Sequence[float], failures: int = 0) -> CandidateStats:
        """The figures of a candidate's runs in one campaign: the mean without slow outliers
        (:func:`trimmed`: it forecasts the path's usual speed), the spread of all runs (live runs
        will have their outliers too)."""
        n = len(rates)
        if n == 0:
            return cls(0, None, None, failures)
        usual = trimmed(rates)
        mean = sum(usual) / len(usual)
        whole = sum(rates) / n
        sd = math.sqrt(sum((x - whole) ** 2 for x in rates) / (n - 1)) if n > 1 else None
        return cls(n, mean, sd, failures)


SLOW_OUTLIER_SDS = 4.0


def trimmed(rates: Sequence[float]) -> list[float]:
    """A campaign's runs of one candidate without its slow outliers (a stall, a competing flow): with
    four runs or more, those below the median by more than four robust standard deviations (1.4826 x
    the median absolute deviation, at least 1 % of the median). A prior is a forecast of the path's
    usual speed, and one stalled run among three would otherwise move it by a tenth."""
    values = sorted(float(x) for x in rates)
    if len(values) < 4:
        return values
    med = _median(values)
    spread = max(1.4826 * _median(sorted(abs(x - med) for x in values)), 0.01 * med)
    return [x for x in values if x >= med - SLOW_OUTLIER_SDS * spread]


def _median(ordered: Sequence[float]) -> float:
    n = len(ordered)
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


@dataclass(frozen=True)
class PastCampaign:
    """An earlier auto-tune or sweep of candidates, as the history holds it."""

    ref: str  # "<results directory>:<test id>"
    started_at: str  # ISO 8601 UTC (sorts in time order)
    features: PathFeatures
    stats: Mapping[str, CandidateStats]  # by candidate_key
    source: str = "auto-tune"  # "auto-tune" or "sweep"


@dataclass(frozen=True)
class UsedCampaign:
    """A campaign the warm start takes, how similar its path is, and the weight its runs get."""

    ref: str
    started_at: str
    similarity: float
    weight: float
    source: str
    why: str  # the features that lowered the similarity, for people ("" when none did)

    def as_dict(self) -> dict[str, Any]:
        return {"ref": self.ref, "started_at": self.started_at, "similarity": round(self.similarity, 4),
                "weight": round(self.weight, 4), "source": self.source, "why": self.why}


@dataclass(frozen=True)
class Prior:
    """What the history predicts for one candidate today."""

    mean: float  # MiB/s
    sd_run: float  # run-to-run standard deviation (MiB/s)
    se: float  # uncertainty of ``mean`` as a prediction of today's true mean (MiB/s)
    runs: float  # weighted successful runs behind it
    campaigns: int  # campaigns that ran it
    failed: bool = False  # it only ever failed

    @property
    def n_eff(self) -> float:
        """How many live runs the prior is worth (its uncertainty expressed in runs)."""
        if self.failed or self.se <= 0:
            return 0.0
        return min((self.sd_run / self.se) ** 2, MAX_PRIOR_RUNS)

    def scaled(self, factor: float) -> Prior:
        return Prior(self.mean * factor, self.sd_run * factor, self.se * factor, self.runs, self.campaigns,
                     self.failed)


def warm_budget(budget: int) -> int:
    """The transfers a warm tune may use: a third of the cold budget, rounded up (at least 1)."""
    return max(1, math.ceil(budget / 3))


def candidate_key(params: Mapping[str, Any], drop: Sequence[str] = ()) -> str:
    """A candidate's parameters as canonical text: the same parameters give the same key in any order,
    whatever the kind names them. ``drop``: parameters the tune sets on every transfer alike (the
    size), which do not tell candidates apart."""
    return json.dumps({k: v for k, v in params.items() if k not in drop}, sort_keys=True, separators=(",", ":"))


def endpoint(url: str, default_ports: Mapping[str, int] | None = None) -> str:
    """``scheme://host:port`` of a URL (the default port added where known); "" for a local path."""
    if not url or url.startswith(("/", "file:")):
        return ""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None and default_ports:
        port = default_ports.get(parts.scheme.lower())
    host = (parts.hostname or "").lower()
    return f"{parts.scheme.lower()}://{host}" + (f":{port}" if port is not None else "")


def data_of(source: str, target: str) -> str:
    """What a transfer moves, as a feature: ``<source path> -> <target path>``."""
    def path(url: str) -> str:
        return url if url.startswith("/") else urlsplit(url).path

    return f"{path(source)} -> {path(target)}"


# --- similarity ------------------------------------------------------------------------------------


def similarity(now: PathFeatures, past: PathFeatures) -> tuple[float, str]:
    """How alike two paths are (0-1) on their features, and which features made them less alike."""
    if now.transfer_kind != past.transfer_kind:
        return 0.0, f"other transfer kind ({past.transfer_kind})"
    if now.engine != past.engine:
        return 0.0, f"other engine ({past.engine})"
    if now.length <= 0 or past.length <= 0:
        return 0.0, "size per transfer unknown"
    score, why = 1.0, []
    d = math.log2(now.length / past.length)
    if d:
        score *= math.exp(-d * d / 2)
        why.append(f"{past.length / now.length:.3g}x the size per transfer")
    same = (now.source == past.source) + (now.target == past.target)
    if same < 2:
        score *= ONE_END_SAME if same == 1 else NO_END_SAME
        why.append("one end differs" if same == 1 else "both ends differ")
    if now.rtt_s is not None and past.rtt_s is not None:
        d = math.log((now.rtt_s + RTT_FLOOR_S) / (past.rtt_s + RTT_FLOOR_S)) / RTT_WIDTH
        factor = math.exp(-d * d / 2)
        if factor < 0.995:
            why.append(f"RTT {past.rtt_s * 1000:.3g} ms then, {now.rtt_s * 1000:.3g} ms now")
        score *= factor
    else:
        score *= UNKNOWN_RTT
        why.append("RTT not measured " + ("now" if now.rtt_s is None else "then"))
    if now.data and past.data and now.data != past.data:
        score *= OTHER_DATA
        why.append(f"other data ({past.data})")
    if now.buffer_cap is not None and past.buffer_cap is not None and now.buffer_cap != past.buffer_cap:
        score *= OTHER_CAP
        why.append(f"buffer cap {past.buffer_cap} then, {now.buffer_cap} now")
    return score, "; ".join(why)


def select_campaigns(now: PathFeatures, campaigns: Sequence[PastCampaign], keys: Sequence[str], *,
                     min_similarity: float = MIN_SIMILARITY) -> list[UsedCampaign]:
    """The campaigns of a path at least ``min_similarity`` alike that measured at least one of ``keys``
    (the candidates of this tune), newest first; weight = similarity."""
    wanted = set(keys)
    usable = []
    for campaign in campaigns:
        if not any(k in wanted and (s.n or s.failures) for k, s in campaign.stats.items()):
            continue
        score, why = similarity(now, campaign.features)
        if score >= min_similarity:
            usable.append(UsedCampaign(campaign.ref, campaign.started_at, score, score, campaign.source, why))
    usable.sort(key=lambda u: (u.started_at, u.ref), reverse=True)
    return usable


# --- priors ----------------------------------------------------------------------------------------


def pooled_cv(campaigns: Sequence[PastCampaign], prior_cv: float = 0.05, prior_df: float = 2.0) -> float:
    """Run-to-run coefficient of variation pooled over every candidate of the campaigns."""
    num, den = prior_df * prior_cv * prior_cv, prior_df
    for campaign in campaigns:
        for s in campaign.stats.values():
            if s.n >= 2 and s.sd is not None and s.mean:
                num += (s.sd / s.mean) ** 2 * (s.n - 1)
                den += s.n - 1
    return math.sqrt(num / den)


def between_campaign_tau(campaigns: Sequence[PastCampaign], weights: Sequence[float], cv: float) -> float:
    """Relative spread of a candidate's true mean from one campaign to the next, as the history shows it:
    the spread of the campaigns' means of each candidate around their pooled mean, less what the
    runs' own noise explains; pooled with a weak prior of PRIOR_TAU, and never below MIN_TAU."""
    num, den = PRIOR_TAU_DF * PRIOR_TAU ** 2, PRIOR_TAU_DF
    keys = {k for c in campaigns for k, s in c.stats.items() if s.n >= 2 and s.mean}
    for key in keys:
        cells = [(c.stats[key], w) for c, w in zip(campaigns, weights, strict=True)
                 if key in c.stats and c.stats[key].n >= 2 and c.stats[key].mean]
        if len(cells) < 2:
            continue
        total = sum(w * s.n for s, w in cells)
        pooled = sum(w * s.n * (s.mean or 0.0) for s, w in cells) / total
        for s, _ in cells:
            rel = ((s.mean or 0.0) - pooled) / pooled
            num += max(rel * rel - cv * cv / s.n, 0.0) * (len(cells) - 1) / len(cells)
            den += (len(cells) - 1) / len(cells)
    return max(math.sqrt(num / den), MIN_TAU)


def build_priors(used: Sequence[UsedCampaign], campaigns: Sequence[PastCampaign], keys: Sequence[str], *,
                 limit: int = DEFAULT_CAMPAIGNS) -> tuple[dict[str, Prior], float, float, list[UsedCampaign]]:
    """One prior per candidate key from the ``limit`` newest of the ``used`` campaigns (newest first)
    that ran it; also the pooled run-to-run CV and the campaign-to-campaign spread (tau) behind them,
    and the campaigns that gave a prior. Per candidate, so a candidate later warm tunes left out keeps
    the older campaigns that measured it. A candidate whose runs all failed gets a failed prior; one
    the campaigns never ran gets none."""
    by_ref = {c.ref: c for c in campaigns}
    pairs = [(by_ref[u.ref], u) for u in used if u.ref in by_ref]
    if not pairs:
        return {}, 0.05, PRIOR_TAU, []
    per_key = {key: [(c, u) for c, u in pairs if key in c.stats and (c.stats[key].n or c.stats[key].failures)][:limit]
               for key in keys}
    contributing = {u.ref for cells in per_key.values() for _, u in cells}
    chosen = [(c, u) for c, u in pairs if u.ref in contributing]
    cv = pooled_cv([c for c, _ in chosen])
    tau = between_campaign_tau([c for c, _ in chosen], [u.weight for _, u in chosen], cv)
    priors: dict[str, Prior] = {}
    for key in keys:
        cells = [(c.stats[key], u.weight) for c, u in per_key[key]]
        ran = [(s, w) for s, w in cells if s.n > 0 and s.mean is not None]
        if not ran:
            if any(s.failures for s, _ in cells):
                priors[key] = Prior(0.0, 0.0, 0.0, 0.0, len(cells), failed=True)
            continue
        runs = sum(w * s.n for s, w in ran)
        mean = sum(w * s.n * (s.mean or 0.0) for s, w in ran) / runs
        sd_run = cv * mean
        weight = sum(w for _, w in ran) / len(ran)
        # The mean's uncertainty as a forecast of today: its sampling error, the path's drift between
        # campaigns (tau, less sure the less similar the campaigns are), and at least MIN_TAU.
        drift = tau * mean / math.sqrt(weight * len(ran) / (1 + (len(ran) - 1) * weight))
        se = math.sqrt(sd_run * sd_run / runs + drift * drift)
        priors[key] = Prior(mean, sd_run, se, runs, len(ran))
    return priors, cv, tau, [u for _, u in chosen]


def open_set(priors: Sequence[Prior | None], z: float) -> list[bool]:
    """Which candidates the history cannot rule out: no prior, or a prior whose mean could still be above
    the best prior's (one-sided at ``z`` standard errors of the difference). Failed priors are out."""
    usable = [(i, p) for i, p in enumerate(priors) if p is not None and not p.failed]
    if not usable:
        return [p is None for p in priors]
    leader = max(usable, key=lambda item: item[1].mean)[1]
    out = []
    for p in priors:
        if p is None:
            out.append(True)
        elif p.failed:
            out.append(False)
        else:
            out.append(leader.mean - p.mean <= z * math.hypot(leader.se, p.se))
    return out


# --- do the live runs agree? -----------------------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    """A candidate's live runs so far, next to what its prior predicted."""

    label: str
    rates: tuple[float, ...]
    prior: Prior


@dataclass(frozen=True)
class Verdict:
    agree: bool
    scale: float  # today's rates over the priors' (geometric mean over the probes, weighted)
    text: str  # what was compared, for people
    worst: str = ""  # the candidate furthest out of line ("" when none stands out)
    details: dict[str, Any] = field(default_factory=dict)


def center(rates: Sequence[float]) -> float:
    """A probe's rate: the mean of one or two runs, the median of more (one slow run among three, a
    competing flow or a stall, does not make a path look changed)."""
    ordered = sorted(rates)
    n = len(ordered)
    if n <= 2:
        return sum(ordered) / n
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


def weighted_median(values: Sequence[float], weights: Sequence[float]) -> float:
    """The value at half the total weight (the lower one on an exact tie); robust to one wild probe."""
    pairs = sorted(zip(values, weights, strict=True))
    half, acc = sum(weights) / 2, 0.0
    for value, weight in pairs:
        acc += weight
        if acc >= half:
            return value
    return pairs[-1][0]


def agreement(probes: Sequence[Probe], cv: float, tau: float, *, z: float = 3.0, tolerance: float = 0.03) -> Verdict:
    """Whether the probes' live rates agree with their priors.

    Two tests, on log rates (a change of a path's speed multiplies rates):

    * scale: all rates moved together (a busier or faster path). The weighted median log ratio must stay
      within ``z`` standard errors plus ``tolerance`` (3 %: a change smaller than that does not move the
      pick of a margin of 1-2 % much, and real paths breathe that much).
    * shape: each probe against the common scale. A candidate ``z`` standard errors (Bonferroni over
      the probes) plus ``tolerance`` out of line means the candidates changed places. Only priors that
      rest on two runs or more take part (one earlier run may itself have been a slow outlier). A
      candidate with two runs or more is out of line only if even its run closest to the prediction
      is (a slow run, a stall or a competing flow, does not condemn a path; a changed candidate is
      out of line in every run).
    """
    cells = [(p, math.log(center(p.rates) / p.prior.mean)) for p in probes
             if p.rates and not p.prior.failed and p.prior.mean > 0]
    if not cells:
        return Verdict(True, 1.0, "no probe to compare")
    variances = [cv * cv / len(p.rates) + (p.prior.se / p.prior.mean) ** 2 for p, _ in cells]
    weights = [1 / v for v in variances]
    scale_log = weighted_median([d for _, d in cells], weights)
    scale_se = math.sqrt(1 / sum(weights) + tau * tau)
    scale = math.exp(scale_log)
    shift = f"{(scale - 1) * 100:+.1f} %"
    if abs(scale_log) > z * scale_se + tolerance:
        return Verdict(False, scale, f"the path's rates moved by {shift} against its history (more than its "
                                     f"campaigns ever differed)", details={"scale": scale})
    from statistics import NormalDist

    z_shape = max(z, NormalDist().inv_cdf(1 - 0.0027 / 2 / max(len(cells), 1)))
    worst, worst_z = None, 0.0
    for (probe, d), v in zip(cells, variances, strict=True):
        if probe.prior.runs < MIN_PRIOR_RUNS:
            continue  # one earlier run (a screening run, maybe a slow one) cannot say a candidate moved
        if len(probe.rates) >= 2:  # confirmed: out of line only if even its most ordinary run is
            off = min(abs(math.log(x / probe.prior.mean) - scale_log) for x in probe.rates) - tolerance
        else:
            off = abs(d - scale_log) - tolerance
        score = off / math.sqrt(v) if off > 0 else 0.0
        if score > worst_z:
            worst, worst_z = probe, score
    if worst is not None and worst_z > z_shape:
        mean = center(worst.rates)
        return Verdict(False, scale, f"{worst.label} ran at {mean:.0f} MiB/s where its history predicts "
                                     f"{worst.prior.mean * scale:.0f} (the candidates changed places)",
                       worst=worst.label, details={"scale": scale, "worst_z": worst_z})
    return Verdict(True, scale, f"{len(cells)} probe(s) agree with the history (rates {shift} against it)",
                   details={"scale": scale, "worst_z": worst_z})
