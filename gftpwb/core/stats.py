"""Statistics of one case's figures (the rates of its repeated runs): what tells a stable result
from a noisy one. Pure; numpy and scipy do the arithmetic.

For ``n`` values :func:`describe` gives the median, mean, sample standard deviation, coefficient of
variation, minimum and maximum, and two 95 % confidence intervals, made as
:mod:`gftpwb.core.intervals` says (the one place of those rules):

* of the **mean**: on the log scale for a positive figure (every figure a kind names), so it never
  reaches below 0; from 3 values;
* of the **median**: order statistics, at least 95 % for any distribution, within the values
  measured; from 6 values.

Outliers are flagged, never dropped: a value beyond 1.5 interquartile ranges below the first or
above the third quartile (Tukey's fences; quartiles interpolated linearly, as numpy's default),
from n >= 4. A flagged run still counts: whether it is a fluke or the truth is for a person to say.

Intervals are kept as their two bounds; how each is printed follows its shape (the rule in
:mod:`gftpwb.core.format`): none of these is symmetric about its estimate, so each is printed as
``[low, high]``.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

from .intervals import CONFIDENCE, Interval, mean_interval, median_interval, no_mean_interval, ratio_interval

__all__ = ["CONFIDENCE", "Interval", "Ratio", "Stats", "describe", "describe_many", "ratio_of_means", "seed_of",
           "tukey_outliers"]


def interval_dict(value: Interval | None) -> dict[str, object] | None:
    """An interval as JSON: its bounds, half-width, level and how it was made."""
    if value is None:
        return None
    return {"low": value.low, "high": value.high, "half_width": value.half_width, "confidence": value.confidence,
            "method": value.method}


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
    ci_mean: Interval | None  # gftpwb.core.intervals.mean_interval; None below 3 values
    ci_median: Interval | None  # order statistics; None below 6 values
    outliers: tuple[int, ...] = ()  # positions (in the order given) beyond 1.5 IQR; checked from 4 values
    no_ci_mean: str = ""  # why there is no interval of the mean ("no CI under 3 runs"); "" when there is one

    def to_dict(self) -> dict[str, object]:
        """Plain JSON data (reports, the JSON summary): intervals as bounds with their half-width."""
        return {"n": self.n, "median": self.median, "mean": self.mean, "stdev": self.stdev, "cv": self.cv,
                "min": self.min, "max": self.max, "ci_mean": interval_dict(self.ci_mean),
                "ci_median": interval_dict(self.ci_median), "outliers": list(self.outliers),
                "no_ci_mean": self.no_ci_mean or None}


def seed_of(*parts: object) -> int:
    """A seed from what names a case (test id, parameters): stable across runs, machines and Python
    versions (unlike ``hash()``), and independent of the order cases are summarised in."""
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def tukey_outliers(values: Sequence[float], k: float = 1.5) -> tuple[int, ...]:
    """Positions of values below Q1 - k·IQR or above Q3 + k·IQR (none below 4 values)."""
    import numpy as np

    if len(values) < 4:
        return ()
    q1, q3 = np.percentile(np.asarray(values, dtype=float), [25, 75])
    low, high = q1 - k * (q3 - q1), q3 + k * (q3 - q1)
    return tuple(i for i, v in enumerate(values) if v < low or v > high)


def describe(values: Sequence[float], *, positive: bool = True, confidence: float = CONFIDENCE) -> Stats | None:
    """The statistics of ``values`` (None for no values). ``positive``: the figure cannot be 0 or
    below (:attr:`gftpwb.core.registry.Figure.positive`), so its interval is made on the log scale."""
    return describe_many([(values, positive)], confidence=confidence)[0]


def describe_many(samples: Sequence[tuple[Sequence[float], bool]], *,
                  confidence: float = CONFIDENCE) -> list[Stats | None]:
    """:func:`describe` of each ``(values, positive)``, for a fraction of the time: a report
    describes two figures of each of a thousand cases, and numpy's per-call cost was most of it.
    Samples of one size are stacked and sorted along rows (their medians, extremes, quartiles and
    the median's interval are order statistics), which numpy computes row by row exactly as for
    one sample; sums stay :func:`math.fsum`'s."""
    import numpy as np

    out: list[Stats | None] = [None] * len(samples)
    by_size: dict[int, list[int]] = {}
    for i, (values, _positive) in enumerate(samples):
        if len(values):
            by_size.setdefault(len(values), []).append(i)
    for n, positions in by_size.items():
        data = np.sort(np.array([samples[i][0] for i in positions], dtype=float).reshape(len(positions), n), axis=1)
        medians = np.median(data, axis=1)
        quartiles = np.percentile(data, [25, 75], axis=1) if n >= 4 else None
        for row, i in enumerate(positions):
            values, positive = samples[i]
            mean = math.fsum(values) / n
            stdev = math.sqrt(math.fsum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else None
            outliers: tuple[int, ...] = ()
            if quartiles is not None:
                q1, q3 = quartiles[0, row], quartiles[1, row]
                low, high = q1 - 1.5 * (q3 - q1), q3 + 1.5 * (q3 - q1)
                outliers = tuple(j for j, v in enumerate(values) if v < low or v > high)
            ci_mean = mean_interval(values, positive=positive, confidence=confidence)
            out[i] = Stats(
                n=n, median=float(medians[row]), mean=mean, stdev=stdev,
                cv=stdev / abs(mean) if stdev is not None and mean != 0 else None,
                min=float(data[row, 0]), max=float(data[row, -1]), ci_mean=ci_mean,
                ci_median=median_interval(values, confidence, ordered=data[row]), outliers=outliers,
                no_ci_mean="" if ci_mean is not None else no_mean_interval(values, positive))
    return out


@dataclass(frozen=True)
class Ratio:
    """The ratio of two samples' means (guc's rate over its iperf3 baseline's: an efficiency) and its
    interval (:func:`gftpwb.core.intervals.ratio_interval`; None below 3 values on either side)."""

    value: float
    ci: Interval | None
    n_numerator: int
    n_denominator: int

    def to_dict(self) -> dict[str, object]:
        return {"value": self.value, "ci": interval_dict(self.ci), "n_numerator": self.n_numerator,
                "n_denominator": self.n_denominator}


def ratio_of_means(numerator: Sequence[float], denominator: Sequence[float], *,
                   confidence: float = CONFIDENCE) -> Ratio | None:
    """``mean(numerator) / mean(denominator)`` with its interval: each side's runs on their own (no
    complete pairs needed, so a failed run of one side costs only that run), the spread of both
    widening it. None when either side has no value or the denominator's mean is not positive."""
    if not numerator or not denominator:
        return None
    top, bottom = math.fsum(numerator) / len(numerator), math.fsum(denominator) / len(denominator)
    if bottom <= 0:
        return None
    return Ratio(top / bottom, ratio_interval(numerator, denominator, confidence), len(numerator), len(denominator))
