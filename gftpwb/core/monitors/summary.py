"""Monitor samples summarised per run, and over the whole scenario run. Pure.

A sample stands for the interval since the previous sample of its stream (one monitor on one host):
rates are averages over it, and a gauge (load, memory, connections) is taken as its value for it.
The first sample of a stream stands for one interval before it. A run's summary takes, for every
figure of every stream, the samples whose interval overlaps the run (from its RunStarted to its
RunFinished, on the controller's monotonic clock): the mean weighted by the overlap, the min, the
max and how many samples. So a run shorter than the interval still gets the figures of the interval
it fell in, and a long run's mean is the time average.

A summary is final once every live stream has a sample at or after the run's end (or at the end of
the scenario run): :class:`SummaryBook` keeps the samples still needed and says when.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

Stream = tuple[str, str]  # (monitor id, host)


@dataclass(frozen=True)
class Span:
    """One sample: its stream, the interval it stands for (controller monotonic seconds), its figures."""

    monitor: str
    host: str
    start: float
    end: float
    values: Mapping[str, float]

    @property
    def stream(self) -> Stream:
        return (self.monitor, self.host)


@dataclass
class Stat:
    """Mean (time-weighted), min, max and count of one figure."""

    weight: float = 0.0
    total: float = 0.0
    min: float = float("inf")
    max: float = float("-inf")
    n: int = 0

    def add(self, value: float, weight: float) -> None:
        self.weight += weight
        self.total += value * weight
        self.min = min(self.min, value)
        self.max = max(self.max, value)
        self.n += 1

    @property
    def mean(self) -> float:
        return self.total / self.weight if self.weight > 0 else self.max

    def to_dict(self) -> dict[str, float | int]:
        return {"mean": round(self.mean, 6), "min": round(self.min, 6), "max": round(self.max, 6), "n": self.n}


Figures = dict[str, dict[str, dict[str, Stat]]]  # monitor -> host -> figure -> Stat


def overlap(span: Span, start: float, end: float) -> float | None:
    """How long ``span`` overlaps [start, end]; None when it does not (a run of no length counts
    the sample whose interval holds it)."""
    if end <= start:
        return 1e-9 if span.start <= start <= span.end else None
    length = min(end, span.end) - max(start, span.start)
    return length if length > 0 else None


def summarize(spans: Iterable[Span], start: float, end: float) -> Figures:
    """The figures of every stream during [start, end]."""
    out: Figures = {}
    for span in spans:
        weight = overlap(span, start, end)
        if weight is None:
            continue
        figures = out.setdefault(span.monitor, {}).setdefault(span.host, {})
        for name, value in span.values.items():
            figures.setdefault(name, Stat()).add(value, weight)
    return out


def figures_to_dict(figures: Figures) -> dict[str, dict[str, dict[str, dict[str, float | int]]]]:
    return {monitor: {host: {name: stat.to_dict() for name, stat in sorted(values.items())}
                      for host, values in sorted(hosts.items())}
            for monitor, hosts in sorted(figures.items())}


@dataclass(frozen=True)
class RunSummary:
    """The monitors' figures during one run."""

    run_id: str
    start: float
    end: float
    figures: Figures = field(compare=False)


class SummaryBook:
    """Keeps samples until the runs they belong to are summarised.

    ``started``/``finished`` take a run's monotonic start and end (its events' ``t``); ``add`` takes
    samples; each returns the summaries that became final. ``streams`` are the streams expected to
    deliver; ``ended`` drops one (its sampler stopped), ``flush`` finalises everything at the end.
    It also keeps the whole scenario run's figures per stream (``overall``).
    """

    def __init__(self, streams: Iterable[Stream] = ()):
        self.live: set[Stream] = set(streams)
        self.latest: dict[Stream, float] = {}
        self.spans: list[Span] = []
        self.open: dict[str, float] = {}  # run id -> start, of runs in flight
        self.pending: list[tuple[str, float, float]] = []  # finished runs waiting for samples
        self.overall: Figures = {}

    def started(self, run_id: str, t: float) -> None:
        self.open[run_id] = t

    def finished(self, run_id: str, t: float) -> list[RunSummary]:
        start = self.open.pop(run_id, None)
        if start is None:
            return []  # never started (skipped, or stopped during its delay): nothing ran to monitor
        self.pending.append((run_id, start, t))
        return self._ready()

    def add(self, span: Span) -> list[RunSummary]:
        self.spans.append(span)
        self.latest[span.stream] = max(self.latest.get(span.stream, span.end), span.end)
        figures = self.overall.setdefault(span.monitor, {}).setdefault(span.host, {})
        for name, value in span.values.items():
            figures.setdefault(name, Stat()).add(value, max(span.end - span.start, 1e-9))
        if not self.open and not self.pending:
            self._trim()
            return []
        return self._ready()

    def ended(self, stream: Stream) -> list[RunSummary]:
        self.live.discard(stream)
        return self._ready()

    def flush(self) -> list[RunSummary]:
        """Every finished run's summary, with the samples there are (the end of the scenario run)."""
        out = [self._summary(*item) for item in self.pending]
        self.pending = []
        self._trim()
        return out

    @property
    def waiting(self) -> bool:
        return bool(self.pending)

    def _complete(self, end: float) -> bool:
        return all(self.latest.get(stream, float("-inf")) >= end for stream in self.live)

    def _ready(self) -> list[RunSummary]:
        ready = [item for item in self.pending if self._complete(item[2])]
        if not ready:
            return []
        self.pending = [item for item in self.pending if item not in ready]
        out = [self._summary(*item) for item in ready]
        self._trim()
        return out

    def _summary(self, run_id: str, start: float, end: float) -> RunSummary:
        return RunSummary(run_id, start, end, summarize(self.spans, start, end))

    def _trim(self) -> None:
        """Forget samples no run in flight or waiting can need."""
        starts = [*self.open.values(), *(start for _, start, _ in self.pending)]
        keep_after = min(starts) if starts else max(self.latest.values(), default=float("-inf"))
        self.spans = [s for s in self.spans if s.end >= keep_after]


@dataclass(frozen=True)
class DirectoryMonitors:
    """The monitors of a results directory as ``gftpwb report`` reads them back: the whole run's
    figures per monitor and host (the table the end of ``gftpwb run`` prints, recomputed from
    ``monitors.jsonl``), each monitor's type, how many samples, and each run's figures
    (``monitor-summaries.jsonl``, the latest line of a run id: a resumed run's)."""

    samples: int
    types: dict[str, str]
    figures: dict[str, dict[str, dict[str, dict[str, float | int]]]]
    runs: dict[str, dict[str, Any]]


def directory_monitors(sample_lines: Iterable[Mapping[str, Any]],
                       summary_lines: Iterable[Mapping[str, Any]]) -> DirectoryMonitors | None:
    """Read back the two files' lines (None when the run had no monitors). A sample stands for its
    ``span_s`` before it, as it did while the scenario ran; samples with an error carry no figures."""
    overall: Figures = {}
    types: dict[str, str] = {}
    order: dict[str, None] = {}  # monitor ids in the order of ``monitors:`` (each sampler's list)
    count = 0
    for line in sample_lines:
        if line.get("event") == "sampler-started" and isinstance(line.get("monitors"), list):
            order.update((str(m), None) for m in line["monitors"])
        if line.get("event") != "sample":
            continue
        count += 1  # an error is a sample too (as the run's table counts them)
        monitor, host = str(line.get("monitor")), str(line.get("host"))
        types.setdefault(monitor, str(line.get("type")))
        if not isinstance(line.get("values"), dict):
            continue
        span = line.get("span_s")
        weight = max(float(span), 1e-9) if isinstance(span, int | float) else 1e-9
        figures = overall.setdefault(monitor, {}).setdefault(host, {})
        for name, value in line["values"].items():
            if isinstance(value, int | float):
                figures.setdefault(name, Stat()).add(float(value), weight)
    runs = {str(line["run_id"]): dict(_figures_of(line.get("monitors"))) for line in summary_lines if "run_id" in line}
    if not count and not runs:
        return None
    types = {**{m: types[m] for m in order if m in types}, **types}
    return DirectoryMonitors(samples=count, types=types, figures=figures_to_dict(overall), runs=runs)


def _figures_of(monitors: Any) -> dict[str, dict[str, dict[str, dict[str, float | int]]]]:
    """A summary line's ``monitors[monitor][host][figure] = {mean, min, max, n}``, keeping only what
    has that shape (a damaged or hand-edited line must not break the reports)."""
    if not isinstance(monitors, dict):
        return {}
    out: dict[str, dict[str, dict[str, dict[str, float | int]]]] = {}
    for monitor, hosts in monitors.items():
        if not isinstance(hosts, dict):
            continue
        out[str(monitor)] = {}
        for host, figures in hosts.items():
            if not isinstance(figures, dict):
                continue
            kept = {str(name): {k: v for k, v in stat.items() if k in _STAT_KEYS and _number(v)}
                    for name, stat in figures.items() if isinstance(stat, dict)}
            out.setdefault(str(monitor), {})[str(host)] = kept
    return out


_STAT_KEYS = ("mean", "min", "max", "n")


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
