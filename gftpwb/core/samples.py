"""Progress samples of a run as a compact time series, so reports can plot rate over time and show
where a transfer stalled or stopped reporting. Pure.

Every run's samples are one line of ``samples.jsonl`` beside ``results.jsonl`` (the records stay
small, and so do the tag logs that carry a record)::

    {"run_id":"sweep[1]/0","v":1,"series":{"":{"t":[2003,4001,6004],"b":[209715200,...]},
                                           "c1/0":{"t":[...],"b":[...],"f":[...]}}}

``t`` is milliseconds since the run started (integers), ``b`` cumulative bytes, ``f`` cumulative
files where the kind counts them. Series ``""`` is the whole run (guc's ``-vb`` lines, gfapi's 1 s
aggregate); others are one stream, thread or host (gfapi: ``<host>/<thread>``). A partial series is
thinned to one sample per second (:data:`PARTIAL_INTERVAL_S`); a series longer than
:data:`MAX_POINTS` (a partial one: :data:`PARTIAL_MAX_POINTS`) is halved (every other sample), so an
hour-long run stays small. The last sample is always kept. About 16-20 bytes per sample: a 60 s guc
run reporting every 2 s adds ~0.6 KiB; a 30 s gfapi run of 8 threads ~5 KiB (bench/samples_size.py,
docs/benchmarks/samples.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

SAMPLES_VERSION = 1
WHOLE = ""  # the series of the whole run
PARTIAL_INTERVAL_S = 1.0  # keep at most one sample a second of a stream, thread or host
MAX_POINTS = 3600  # per whole-run series; beyond it the series keeps every other sample
PARTIAL_MAX_POINTS = 600  # per stream, thread or host series (there may be hundreds)
STALL_MIN_S = 1.0  # no new bytes for at least this long is a stall
GAP_FACTOR = 3.0  # no report for this many typical intervals (and at least GAP_MIN_S) is a gap
GAP_MIN_S = 1.0


@dataclass
class Series:
    """One channel's samples: times (ms since the run started) and cumulative counts."""

    t: list[int] = field(default_factory=list)
    b: list[int] = field(default_factory=list)
    f: list[int] | None = None  # files, for kinds that count them

    def __len__(self) -> int:
        return len(self.t)

    def to_dict(self) -> dict[str, list[int]]:
        out = {"t": self.t, "b": self.b}
        if self.f is not None:
            out["f"] = self.f
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Series:
        """A series read back; raises ValueError for anything but equally long arrays of whole numbers
        (readers index ``t``, ``b`` and ``f`` together)."""
        files = data.get("f")
        series = cls(_whole_numbers(data.get("t", []), "t"), _whole_numbers(data.get("b", []), "b"),
                     _whole_numbers(files, "f") if files is not None else None)
        if len(series.b) != len(series.t) or (series.f is not None and len(series.f) != len(series.t)):
            raise ValueError("t, b and f are not of the same length")
        return series


def _whole_numbers(values: Any, name: str) -> list[int]:
    if not isinstance(values, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        raise ValueError(f"{name} is not an array of whole numbers")
    return values


class SeriesBuilder:
    """Collects one channel's samples as they arrive, thinned to ``interval_s`` (the latest sample
    inside an interval waits as the tail, and is kept when the series ends)."""

    def __init__(self, interval_s: float = 0.0, max_points: int = MAX_POINTS):
        self.series = Series()
        self.interval_ms = int(interval_s * 1000)
        self.max_points = max_points
        self._tail: tuple[int, int, int | None] | None = None

    def add(self, elapsed_s: float, nbytes: int, files: int | None = None) -> None:
        t = max(round(elapsed_s * 1000), 0)
        s = self.series
        if s.t and t < s.t[-1]:
            return  # out of order (a late message): the series only moves forward
        if s.t and t - s.t[-1] < self.interval_ms:
            self._tail = (t, nbytes, files)
            return
        self._append(t, nbytes, files)

    def _append(self, t: int, nbytes: int, files: int | None) -> None:
        s = self.series
        s.t.append(t)
        s.b.append(int(nbytes))
        if files is not None:
            if s.f is None:
                s.f = [0] * (len(s.t) - 1)
            s.f.append(int(files))
        elif s.f is not None:
            s.f.append(s.f[-1] if s.f else 0)
        self._tail = None
        if len(s.t) > self.max_points:
            self._halve()

    def _halve(self) -> None:
        """Keep every other sample (and the last), and twice the interval from now on."""
        s = self.series
        keep = [*range(0, len(s.t) - 1, 2), len(s.t) - 1]
        s.t, s.b = [s.t[i] for i in keep], [s.b[i] for i in keep]
        if s.f is not None:
            s.f = [s.f[i] for i in keep]
        self.interval_ms = max(self.interval_ms * 2, 1)

    def finish(self) -> Series:
        if self._tail is not None and (not self.series.t or self._tail[0] > self.series.t[-1]):
            self._append(*self._tail)
        return self.series


@dataclass
class RunSamples:
    """The samples of one run, by channel."""

    run_id: str
    series: dict[str, Series]

    def to_json(self) -> str:
        return json.dumps({"run_id": self.run_id, "v": SAMPLES_VERSION,
                           "series": {name: s.to_dict() for name, s in self.series.items()}},
                          separators=(",", ":"))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunSamples:
        return cls(str(data["run_id"]), {str(k): Series.from_dict(v) for k, v in (data.get("series") or {}).items()})

    @property
    def points(self) -> int:
        return sum(len(s) for s in self.series.values())


class RunSampler:
    """The builders of one run in flight: the whole run, and one per channel."""

    def __init__(self, run_id: str):
        self.run_id = run_id
        self.builders: dict[str, SeriesBuilder] = {}

    def add(self, channel: str, elapsed_s: float, nbytes: int, files: int | None = None) -> None:
        builder = self.builders.get(channel)
        if builder is None:
            builder = self.builders[channel] = (SeriesBuilder() if channel == WHOLE else
                                                SeriesBuilder(PARTIAL_INTERVAL_S, PARTIAL_MAX_POINTS))
        builder.add(elapsed_s, nbytes, files)

    def finish(self) -> RunSamples | None:
        """The run's samples, or None when it reported none (nothing is written for it)."""
        series = {name: b.finish() for name, b in sorted(self.builders.items())}
        series = {name: s for name, s in series.items() if len(s)}
        return RunSamples(self.run_id, series) if series else None


def parse_samples(text: str) -> tuple[dict[str, RunSamples], list[str]]:
    """``samples.jsonl`` text: the last line of each run id wins (a resumed run's), and bad lines are
    reported, never fatal (as the journal's)."""
    found: dict[str, RunSamples] = {}
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            samples = RunSamples.from_dict(json.loads(line))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            problems.append(f"line {number}: unreadable samples skipped ({exc})")
            continue
        found[samples.run_id] = samples
    return found, problems


# --- reading a series ----------------------------------------------------------------------------


def rates(series: Series) -> list[tuple[float, float]]:
    """(time in s at the end of each interval, MiB/s over that interval): rate over time, for plots."""
    out = []
    for i in range(1, len(series.t)):
        dt = (series.t[i] - series.t[i - 1]) / 1000
        if dt > 0:
            out.append((series.t[i] / 1000, (series.b[i] - series.b[i - 1]) / 1048576 / dt))
    return out


def step_points(t_ms: list[int], counts: list[int], per: float = 1.0) -> list[tuple[float, float]]:
    """The rate of each interval as the points of a step plot (each value holds until its time, from
    the run's start): ``[(0, r1), (t1, r1), (t2, r2), ...]`` in s and ``counts / per`` per second,
    the first interval counted from the start of the run (0 s, nothing done)."""
    points: list[tuple[float, float]] = []
    previous_t, previous_c = 0, 0
    for t, c in zip(t_ms, counts, strict=False):
        if t > previous_t:
            rate = (c - previous_c) / per / ((t - previous_t) / 1000)
            if not points:
                points.append((previous_t / 1000, rate))
            points.append((t / 1000, rate))
        previous_t, previous_c = t, c
    return points


def stalls(series: Series, min_s: float = STALL_MIN_S) -> list[tuple[float, float]]:
    """Spans (start s, end s) in which the count did not grow for at least ``min_s`` (consecutive
    flat intervals are one stall)."""
    spans: list[tuple[float, float]] = []
    start: int | None = None
    for i in range(1, len(series.t)):
        flat = series.b[i] <= series.b[i - 1]
        if flat and start is None:
            start = series.t[i - 1]
        if not flat and start is not None:
            spans.append((start, series.t[i - 1]))
            start = None
    if start is not None:
        spans.append((start, series.t[-1]))
    return [(a / 1000, b / 1000) for a, b in spans if (b - a) / 1000 >= min_s]


def gaps(series: Series, factor: float = GAP_FACTOR, min_s: float = GAP_MIN_S) -> list[tuple[float, float]]:
    """Spans (start s, end s) with no report for ``factor`` times the typical (median) interval
    between reports and at least ``min_s``: a reporter that went quiet (a lost host, a hung stream)."""
    steps = [series.t[i] - series.t[i - 1] for i in range(1, len(series.t))]
    if len(steps) < 2:
        return []
    typical = sorted(steps)[len(steps) // 2]
    limit = max(typical * factor, min_s * 1000)
    return [(series.t[i - 1] / 1000, series.t[i] / 1000) for i in range(1, len(series.t)) if steps[i - 1] > limit]
