"""The aggregate rate history of the run view, and the bounded log of the log pane.

The history counts bytes moved per second rather than sampling reported rates: guc reports every
2 s (every 5 s in third-party mode) and often only once, at its exit, so a sampled rate would read
zero, or one instant, while gigabytes move. A report's new bytes are spread back over the time since
the previous report (or the start), which is where they moved.

A run another engine carries out (the simulated one) moves nothing on this clock: its bytes and
seconds are its engine's, and a simulated auto-tune finishes a hundred 4 GiB transfers in a second of
wall time. Its figures are the simulated ones: for such runs a bucket holds their MiB and their own
seconds, and reads as the rate they had (MiB over their seconds) for the share of the bucket no
wall-clock run filled, never as bytes over the wall clock.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from gftpwb.core.specs import REAL_ENGINE

from .models import MIB, RunState


def on_own_clock(run: RunState) -> bool:
    """A run whose times are its engine's, not the wall clock's (the simulated engine's)."""
    return run.spec.engine != REAL_ENGINE


@dataclass
class Buckets:
    """One line of the chart (all runs, or one host's), per bucket: ``moved`` MiB and ``occupied``
    seconds of wall-clock runs; ``engine_moved`` MiB and ``engine_seconds`` of runs on their engine's
    clock. A bucket reads as the wall-clock runs' MiB over its length, plus the engine runs' MiB over
    their own seconds for the share of it no wall-clock run filled: a simulated run that took no wall
    time at all still reads as its simulated rate, and one beside a real run is not added in full."""

    moved: dict[int, float] = field(default_factory=dict)
    occupied: dict[int, float] = field(default_factory=dict)
    engine_moved: dict[int, float] = field(default_factory=dict)
    engine_seconds: dict[int, float] = field(default_factory=dict)

    def parts(self) -> tuple[dict[int, float], ...]:
        return self.moved, self.occupied, self.engine_moved, self.engine_seconds

    def value(self, b: int, span: float, extra: Buckets | None = None) -> float:
        """MiB/s of bucket ``b`` over ``span`` seconds (``extra``: estimates for runs in flight)."""
        moved, occupied, engine_mib, engine_s = (sum(part.get(b, 0.0) for part in parts) for parts in
                                                 zip(self.parts(), extra.parts() if extra else ({},) * 4,
                                                     strict=True))
        rate = moved / span
        if engine_s > 0:
            rate += engine_mib / engine_s * max(0.0, 1.0 - occupied / span)
        return rate


class RateHistory:
    """MiB moved per bucket of ``step_s`` seconds since the run started; the newest ``length`` kept.
    A series gives MiB/s per bucket (the newest bucket over the part of it gone by).

    ``by_host`` keeps the same buckets per host of the runs (``RunSpec.host``), so the run view can
    draw one line per host when a run or a batch spans several. Runs on their engine's clock
    (:func:`on_own_clock`) are kept apart in each line (:class:`Buckets`): their MiB and their engine's
    seconds, whose ratio a bucket reads as.
    """

    def __init__(self, step_s: float = 1.0, length: int = 900):
        self.step_s = step_s
        self.length = length
        self.t0: float | None = None
        self.total = Buckets()
        self.by_host: dict[str, Buckets] = {}
        self.last_t: float | None = None  # the newest event time

    def restart(self, t: float) -> None:
        self.total = Buckets()
        self.by_host.clear()
        self.t0 = self.last_t = t

    def account(self, run: RunState, total_bytes: int, t: float, engine_s: float | None = None) -> None:
        """Place the bytes ``run`` moved since its last report into the history, evenly over that time.
        ``engine_s``: for a run on its engine's clock, its elapsed seconds on that clock at this report."""
        self.last_t = t if self.last_t is None else max(self.last_t, t)
        if run.accounted_t is None or self.t0 is None:
            return
        delta = total_bytes - run.accounted_bytes
        host = self.by_host.get(run.spec.host)
        if host is None:
            host = self.by_host[run.spec.host] = Buckets()
        if on_own_clock(run):
            seconds = (engine_s or 0.0) - run.accounted_engine_s
            if delta > 0 and seconds > 0:
                for line in (self.total, host):
                    self._place(line, run.accounted_t, t, engine=(delta / MIB, seconds))
                run.accounted_engine_s = engine_s or 0.0
        elif delta > 0:
            for line in (self.total, host):
                self._place(line, run.accounted_t, t, mib=delta / MIB)
        run.accounted_bytes, run.accounted_t = total_bytes, max(run.accounted_t, t)

    def _place(self, line: Buckets, start: float, end: float, *, mib: float = 0.0,
               engine: tuple[float, float] | None = None, trim: bool = True) -> None:
        """A wall-clock run's ``mib`` (and the time it took), or an engine run's (MiB, seconds), over
        [start, end] into ``line``."""
        if engine is not None:
            self.spread(engine[0], start, end, line.engine_moved, trim=trim)
            self.spread(engine[1], start, end, line.engine_seconds, trim=trim)
        else:
            self.spread(mib, start, end, line.moved, trim=trim)
            self.spread(end - start, start, end, line.occupied, trim=trim)

    def spread(self, amount: float, start: float, end: float, into: dict[int, float], *, trim: bool = False) -> None:
        """Add ``amount`` to the buckets of [start, end] in proportion to their overlap; ``trim`` drops
        buckets older than ``length``."""
        t0 = self.t0
        assert t0 is not None
        step = self.step_s
        last = int((end - t0) / step) if end > t0 else 0
        first = int((start - t0) / step) if start > t0 else 0
        if first == last or end <= start:  # the common case: telemetry every ~250 ms, buckets of 1 s
            into[last] = into.get(last, 0.0) + amount
        else:
            for bucket in range(first, last + 1):
                low = max(start, t0 + bucket * step)
                high = min(end, t0 + (bucket + 1) * step)
                if high > low:
                    into[bucket] = into.get(bucket, 0.0) + amount * (high - low) / (end - start)
        if trim and len(into) > self.length:
            oldest = last - self.length
            for bucket in [b for b in into if b < oldest]:
                del into[bucket]

    def _estimates(self, now: float, until: float, in_flight: Iterable[RunState]) -> dict[str, Buckets]:
        """For the time since each run in flight last reported, its last known rate, per host."""
        out: dict[str, Buckets] = {}
        end = min(now, until)
        for run in in_flight:
            if run.inst and run.accounted_t is not None and end > run.accounted_t:
                line = out.setdefault(run.spec.host, Buckets())
                seconds = end - run.accounted_t
                if on_own_clock(run):  # its rate for the time since: a MiB a second per MiB/s
                    self._place(line, run.accounted_t, end, engine=(run.inst * seconds, seconds), trim=False)
                else:
                    self._place(line, run.accounted_t, end, mib=run.inst * seconds, trim=False)
        return out

    def series(self, now: float, points: int, until: float, in_flight: Iterable[RunState], *,
               whole: bool = False) -> list[float]:
        """MiB/s per bucket, the last ``points`` up to ``until``; for the time since a run in flight
        last reported, its last known rate stands in until its next report gives the real bytes.
        ``whole``: only the buckets that end by ``until`` (what comes after it is not known yet)."""
        if self.t0 is None or points <= 0:
            return []
        first, end_bucket = self.window(points, until, whole=whole)
        if end_bucket < 0:
            return []
        estimate = Buckets()
        for line in self._estimates(now, until, in_flight).values():
            for into, part in zip(estimate.parts(), line.parts(), strict=True):
                for b, amount in part.items():
                    into[b] = into.get(b, 0.0) + amount
        spans = [self.step_s] * (end_bucket - first + 1) if whole else self._spans(first, end_bucket, until)
        return [self.total.value(b, span, estimate) for b, span in zip(range(first, end_bucket + 1), spans,
                                                                        strict=True)]

    def _spans(self, first: int, last: int, until: float) -> list[float]:
        """Seconds each bucket covers up to ``until``: ``step_s`` for past ones; the newest, still filling,
        only the part gone by (at least a quarter step), so it reads as the rate so far in it instead
        of a drop at the right edge of the chart."""
        assert self.t0 is not None
        step = self.step_s
        gone = until - (self.t0 + last * step)
        return [step] * (last - first) + [min(step, max(gone, step / 4))]

    def window(self, points: int, until: float, *, whole: bool = False) -> tuple[int, int]:
        """The first and last bucket of the newest ``points`` buckets up to ``until`` (``whole``: the
        last one that ends by ``until``)."""
        assert self.t0 is not None
        if whole:  # the last bucket that ends by until (-1: none does yet)
            end_bucket = math.floor((until - self.t0) / self.step_s + 1e-9) - 1
        else:
            end_bucket = max(0, int((until - self.t0) / self.step_s))
        return max(0, end_bucket - points + 1), end_bucket

    def host_series(self, now: float, points: int, until: float, in_flight: Iterable[RunState], *,
                    whole: bool = False) -> dict[str, list[float]]:
        """:meth:`series` per host, over the same buckets (hosts in the order they first moved data)."""
        if self.t0 is None or points <= 0:
            return {}
        first, last = self.window(points, until, whole=whole)
        if last < 0:
            return {}
        estimates = self._estimates(now, until, in_flight)
        spans = [self.step_s] * (last - first + 1) if whole else self._spans(first, last, until)
        hosts = [*self.by_host, *(h for h in estimates if h not in self.by_host)]
        return {host: [self.by_host.get(host, Buckets()).value(b, span, estimates.get(host))
                       for b, span in zip(range(first, last + 1), spans, strict=True)] for host in hosts}


class LogBuffer:
    """The newest ``size`` lines of output and notes, numbered so a reader asks for what is new."""

    def __init__(self, size: int = 2000):
        self.lines: deque[str] = deque(maxlen=size)
        self.seq = 0

    def add(self, text: str) -> None:
        self.lines.append(text)
        self.seq += 1

    def since(self, seq: int) -> tuple[int, list[str], int]:
        """Lines after sequence number ``seq``: (new seq, lines, lines dropped because the buffer wrapped)."""
        new = self.seq - seq
        if new <= 0:
            return self.seq, [], 0
        kept = min(new, len(self.lines))
        lines = list(self.lines)[-kept:] if kept else []
        return self.seq, lines, new - kept
