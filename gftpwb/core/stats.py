"""Statistics of one case's figures (the rates of its repeated runs): what tells a stable result
from a noisy one. Pure; numpy and scipy do the arithmetic.

For ``n`` values :func:`describe` gives the median, mean, sample standard deviation, coefficient of
variation, minimum and maximum, and two 95 % confidence intervals:

* of the **mean**, from Student's t (``mean ± t(0.975, n-1) · s / √n``): symmetric, needs n >= 2;
* of the **median**, by a percentile bootstrap (``RESAMPLES`` resamples of the values with
  replacement), seeded so the same values always give the same interval: a report printed twice,
  or by two machines, reads the same. Needs n >= 3 (a bootstrap of two values only repeats them).

Outliers are flagged, never dropped: a value beyond 1.5 interquartile ranges below the first or
above the third quartile (Tukey's fences; quartiles interpolated linearly, as numpy's default),
from n >= 4. A flagged run still counts: whether it is a fluke or the truth is for a person to say.

Intervals are kept as their two bounds; how each is printed follows its shape (the rule in
:mod:`gftpwb.core.format`): the mean's, symmetric, as ``mean ± half-width``; the median's and a
ratio's, which are not, as ``[low, high]``.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

CONFIDENCE = 0.95
RESAMPLES = 2000  # bootstrap resamples: the bounds' own noise is well under 1 % of the spread at this size


@dataclass(frozen=True)
class Interval:
    """A confidence interval: its bounds, and the level it was computed for."""

    low: float
    high: float
    confidence: float = CONFIDENCE

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2


class _BootstrapInterval(Interval):
    """:func:`bootstrap_median`'s interval, drawn the first time its bounds are read: a report or a
    comparison describes every figure of a thousand cases, and most of those intervals are never
    printed (the console tables show none; ``compare`` prints one figure's per case, in ``--json``
    only), while the bootstrap's draws were a fifth of reading a directory. The same numbers as
    drawing it at once; equal to, and hashed as, the :class:`Interval` of the same bounds. It keeps
    its values (and pickles with them) until drawn."""

    def __init__(self, values: tuple[float, ...], seed: int, confidence: float, resamples: int):
        object.__setattr__(self, "_sample", (values, seed, resamples))
        object.__setattr__(self, "confidence", confidence)

    def __getattr__(self, name: str) -> Any:
        # only called for an attribute not set yet: the bounds, before they are drawn
        sample = self.__dict__.get("_sample")
        if name not in ("low", "high") or sample is None:
            raise AttributeError(name)
        values, seed, resamples = sample
        drawn = bootstrap_median(values, seed, self.confidence, resamples)
        object.__setattr__(self, "low", drawn.low)
        object.__setattr__(self, "high", drawn.high)
        return self.__dict__[name]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Interval):
            return NotImplemented
        return (self.low, self.high, self.confidence) == (other.low, other.high, other.confidence)

    def __hash__(self) -> int:
        return hash((self.low, self.high, self.confidence))

    def __repr__(self) -> str:
        return f"Interval(low={self.low!r}, high={self.high!r}, confidence={self.confidence!r})"


@dataclass(frozen=True)
class Stats:
    """What :func:`describe` says about a sample; None where the sample is too small to say it."""

    n: int
    median: float
    mean: float
    stdev: float | None  # sample standard deviation (n - 1); None for one value
    cv: float | None  # stdev / mean, a fraction; None for one value or a mean of 0
    min: float
    max: float
    ci_mean: Interval | None  # Student's t; None below 2 values
    ci_median: Interval | None  # percentile bootstrap, seeded; None below 3 values
    outliers: tuple[int, ...] = ()  # positions (in the order given) beyond 1.5 IQR; checked from 4 values

    def to_dict(self) -> dict[str, object]:
        """Plain JSON data (reports, the JSON summary): intervals as bounds with their half-width."""
        def interval(value: Interval | None) -> dict[str, float] | None:
            if value is None:
                return None
            return {"low": value.low, "high": value.high, "half_width": value.half_width,
                    "confidence": value.confidence}

        return {"n": self.n, "median": self.median, "mean": self.mean, "stdev": self.stdev, "cv": self.cv,
                "min": self.min, "max": self.max, "ci_mean": interval(self.ci_mean),
                "ci_median": interval(self.ci_median), "outliers": list(self.outliers)}


def seed_of(*parts: object) -> int:
    """A bootstrap seed from what names a case (test id, parameters): stable across runs, machines
    and Python versions (unlike ``hash()``), and independent of the order cases are summarised in."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


@functools.lru_cache(maxsize=4096)
def _t_quantile(q: float, df: int) -> float:
    # scipy.stats.t.ppf(q, df) is this function (``t._ppf``), with loc 0 and scale 1: the same
    # number, without importing scipy.stats (most of a report's start-up). Not at import time:
    # `gftpwb --help` and validation never need it.
    from scipy.special import stdtrit

    return float(stdtrit(df, q))


def t_interval(mean: float, stdev: float, n: int, confidence: float = CONFIDENCE) -> Interval:
    """``mean ± t((1 + confidence) / 2, n - 1) · stdev / √n`` (the quantile cached: a report of many
    cases asks for the same few)."""
    half = _t_quantile(0.5 + confidence / 2, n - 1) * stdev / math.sqrt(n)
    return Interval(mean - half, mean + half, confidence)


def bootstrap_medians(values: Sequence[float], seed: int, resamples: int = RESAMPLES) -> Any:
    """The medians of ``resamples`` bootstrap resamples (with replacement) of ``values`` (a numpy
    array), drawn by a generator seeded with ``seed``.

    A resample's median depends only on which order statistics of the sorted values it picks, so each
    resample is drawn directly rather than as n draws: drawing an index ``floor(n·U)`` n times, the
    r-th smallest index is ``floor(n·U₍ᵣ₎)`` with ``U₍ᵣ₎ ~ Beta(r, n-r+1)`` the r-th order statistic
    of n uniforms, and the next one is ``U₍ᵣ₎ + (1-U₍ᵣ₎)·Beta(1, n-r)``. Same distribution as
    resampling, O(resamples) instead of O(resamples·n): a case of 100,000 runs costs what one of 10 does."""
    import numpy as np

    data = np.sort(np.asarray(values, dtype=float))
    n = data.size
    rng = np.random.default_rng(seed)
    m = (n + 1) // 2  # the median's rank (1-based) for odd n; the lower middle one for even n
    lower = rng.beta(m, n - m + 1, size=resamples)
    pick = lambda u: data[np.minimum((u * n).astype(np.int64), n - 1)]  # noqa: E731
    if n % 2:
        return pick(lower)
    upper = lower + (1 - lower) * rng.beta(1, n - m, size=resamples)
    return (pick(lower) + pick(upper)) / 2


def bootstrap_median(values: Sequence[float], seed: int, confidence: float = CONFIDENCE,
                     resamples: int = RESAMPLES) -> Interval:
    """Percentile bootstrap interval of the median: the middle ``confidence`` of the medians of
    ``resamples`` resamples of ``values`` (:func:`bootstrap_medians`)."""
    import numpy as np

    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(bootstrap_medians(values, seed, resamples), [tail, 100 - tail])
    return Interval(float(low), float(high), confidence)


def tukey_outliers(values: Sequence[float], k: float = 1.5) -> tuple[int, ...]:
    """Positions of values below Q1 - k·IQR or above Q3 + k·IQR (none below 4 values)."""
    import numpy as np

    if len(values) < 4:
        return ()
    q1, q3 = np.percentile(np.asarray(values, dtype=float), [25, 75])
    low, high = q1 - k * (q3 - q1), q3 + k * (q3 - q1)
    return tuple(i for i, v in enumerate(values) if v < low or v > high)


def describe(values: Sequence[float], *, seed: int = 0, confidence: float = CONFIDENCE,
             resamples: int = RESAMPLES) -> Stats | None:
    """The statistics of ``values`` (None for no values). ``seed`` seeds the median's bootstrap:
    pass :func:`seed_of` of the case's name so every report of the case gives the same interval."""
    import numpy as np

    n = len(values)
    if n == 0:
        return None
    data = np.asarray(values, dtype=float)
    mean = math.fsum(values) / n
    median = float(np.median(data))
    stdev = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else None
    cv = stdev / abs(mean) if stdev is not None and mean != 0 else None
    return Stats(
        n=n, median=median, mean=mean, stdev=stdev, cv=cv, min=float(data.min()), max=float(data.max()),
        ci_mean=t_interval(mean, stdev, n, confidence) if stdev is not None else None,
        ci_median=bootstrap_median(values, seed, confidence, resamples) if n >= 3 else None,
        outliers=tukey_outliers(values),
    )


def describe_many(samples: Sequence[tuple[Sequence[float], int]], *, confidence: float = CONFIDENCE,
                  resamples: int = RESAMPLES) -> list[Stats | None]:
    """:func:`describe` of each ``(values, seed)``, the same numbers for a fraction of the time: a
    report describes two figures of each of a thousand cases, and numpy's per-call cost was most of
    it. Samples of one size are stacked and their medians, extremes and quartiles taken along rows,
    which numpy computes row by row exactly as for one sample; sums stay :func:`math.fsum`'s. The
    median's bootstrap interval is drawn, from its own seeded generator, only when its bounds are
    first read (:class:`_BootstrapInterval`): most are never printed. A sample given as a tuple is
    kept as it is (not copied) until then."""
    import numpy as np

    out: list[Stats | None] = [None] * len(samples)
    by_size: dict[int, list[int]] = {}
    for i, (values, _seed) in enumerate(samples):
        if len(values):
            by_size.setdefault(len(values), []).append(i)
    for n, positions in by_size.items():
        data = np.array([samples[i][0] for i in positions], dtype=float).reshape(len(positions), n)
        medians = np.median(data, axis=1)
        lows, highs = data.min(axis=1), data.max(axis=1)
        quartiles = np.percentile(data, [25, 75], axis=1) if n >= 4 else None
        for row, i in enumerate(positions):
            values = samples[i][0]
            mean = math.fsum(values) / n
            stdev = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else None
            outliers: tuple[int, ...] = ()
            if quartiles is not None:
                q1, q3 = quartiles[0, row], quartiles[1, row]
                low, high = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
                outliers = tuple(j for j, v in enumerate(values) if v < low or v > high)
            out[i] = Stats(
                n=n, median=float(medians[row]), mean=mean, stdev=stdev,
                cv=stdev / abs(mean) if stdev is not None and mean != 0 else None,
                min=float(lows[row]), max=float(highs[row]),
                ci_mean=t_interval(mean, stdev, n, confidence) if stdev is not None else None,
                ci_median=(_BootstrapInterval(values if isinstance(values, tuple) else tuple(values), samples[i][1],
                                              confidence, resamples) if n >= 3 else None),
                outliers=outliers)
    return out


@dataclass(frozen=True)
class Ratio:
    """The ratio of two samples' means (guc's rate over its iperf3 baseline's: an efficiency) and its
    percentile-bootstrap interval (None below 2 values on either side)."""

    value: float
    ci: Interval | None
    n_numerator: int
    n_denominator: int

    def to_dict(self) -> dict[str, object]:
        ci = None if self.ci is None else {"low": self.ci.low, "high": self.ci.high, "half_width": self.ci.half_width,
                                          "confidence": self.ci.confidence}
        return {"value": self.value, "ci": ci, "n_numerator": self.n_numerator, "n_denominator": self.n_denominator}


def ratio_of_means(numerator: Sequence[float], denominator: Sequence[float], *, seed: int = 0,
                   confidence: float = CONFIDENCE, resamples: int = RESAMPLES) -> Ratio | None:
    """``mean(numerator) / mean(denominator)`` with a percentile bootstrap interval: each sample is
    resampled on its own (with replacement, ``resamples`` times, a generator seeded with ``seed``)
    and the middle ``confidence`` of the resampled ratios is the interval. Resampling the two on
    their own keeps the interval honest when a run of one side failed (no complete pairs needed);
    the spread of both samples widens it. None when either side has no value or the denominator's
    mean is not positive."""
    import numpy as np

    num = np.asarray(numerator, dtype=float)
    den = np.asarray(denominator, dtype=float)
    if num.size == 0 or den.size == 0 or den.mean() <= 0:
        return None
    value = float(num.mean() / den.mean())
    if num.size < 2 or den.size < 2:
        return Ratio(value, None, int(num.size), int(den.size))
    rng = np.random.default_rng(seed)
    top = num[rng.integers(0, num.size, size=(resamples, num.size))].mean(axis=1)
    bottom = den[rng.integers(0, den.size, size=(resamples, den.size))].mean(axis=1)
    ratios = top / np.where(bottom > 0, bottom, np.nan)
    tail = (1 - confidence) / 2 * 100
    low, high = np.nanpercentile(ratios, [tail, 100 - tail])
    return Ratio(value, Interval(float(low), float(high), confidence), int(num.size), int(den.size))
