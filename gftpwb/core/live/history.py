"""The aggregate rate history of the run view, and the bounded log of the log pane.

The history counts bytes moved per second rather than sampling reported rates: guc reports every
2 s (every 5 s in third-party mode) and often only once, at its exit, so a sampled rate would read
zero, or one instant, while gigabytes move. A report's new bytes are spread back over the time since
the previous report (or the start), which is where they moved.

A run another engine carries out (the simulated one) moves nothing on this clock: its bytes and
seconds are its engine's, and a simulated auto-tune finishes a hundred 4 GiB transfers in a second of
wall time. Its figures are the simulated ones: for such runs a bucket holds their MiB and their own
seconds, and reads as the rate they had (MiB over their seconds), never bytes over the wall clock.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable

from gftpwb.core.specs import REAL_ENGINE

from .models import MIB, RunState


def on_own_clock(run: RunState) -> bool:
    """A run whose times are its engine's, not the wall clock's (the simulated engine's)."""
    return run.spec.engine != REAL_ENGINE


class RateHistory:
    """MiB moved per bucket of ``step_s`` seconds since the run started; the newest ``length`` kept.
    A series gives MiB/s per bucket (the newest bucket over the part of it gone by).

    ``by_host`` keeps the same buckets per host of the runs (``RunSpec.host``), so the run view can
    draw one line per host when a run or a batch spans several. ``engine_moved`` and ``engine_seconds``
    (and ``engine_by_host``) hold the same for runs on their engine's clock (:func:`on_own_clock`):
    their MiB and their engine's seconds, whose ratio a bucket reads as.
    """

    def __init__(self, step_s: float = 1.0, length: int = 900):
        self.step_s = step_s
        self.length = length
        self.t0: float | None = None
        self.moved: dict[int, float] = {}
        self.by_host: dict[str, dict[int, float]] = {}
        self.engine_moved: dict[int, float] = {}
        self.engine_seconds: dict[int, float] = {}
        self.engine_by_host: dict[str, tuple[dict[int, float], dict[int, float]]] = {}
        self.last_t: float | None = None  # the newest event time

    def restart(self, t: float) -> None:
        self.moved.clear()
        self.by_host.clear()
        self.engine_moved.clear()
        self.engine_seconds.clear()
        self.engine_by_host.clear()
        self.t0 = self.last_t = t

    def account(self, run: RunState, total_bytes: int, t: float, engine_s: float | None = None) -> None:
        """Place the bytes ``run`` moved since its last report into the history, evenly over that time.
        ``engine_s``: for a run on its engine's clock, its elapsed seconds on that clock at this report."""
        self.last_t = t if self.last_t is None else max(self.last_t, t)
        if run.accounted_t is None or self.t0 is None:
            return
        delta = total_bytes - run.accounted_bytes
        if on_own_clock(run):
            seconds = (engine_s or 0.0) - run.accounted_engine_s
            if delta > 0 and seconds > 0:
                self._account_engine(run.spec.host, delta / MIB, seconds, run.accounted_t, t)
                run.accounted_engine_s = engine_s or 0.0
        elif delta > 0:
            self.spread(delta / MIB, run.accounted_t, t, self.moved)
            host = self.by_host.get(run.spec.host)
            if host is None:
                host = self.by_host[run.spec.host] = {}
            self.spread(delta / MIB, run.accounted_t, t, host, trim=True)
        run.accounted_bytes, run.accounted_t = total_bytes, max(run.accounted_t, t)

    def _account_engine(self, host: str, mib: float, seconds: float, start: float, end: float) -> None:
        self.spread(mib, start, end, self.engine_moved)
        self.spread(seconds, start, end, self.engine_seconds)
        moved, spent = self.engine_by_host.setdefault(host, ({}, {}))
        self.spread(mib, start, end, moved, trim=True)
        self.spread(seconds, start, end, spent, trim=True)

    def spread(self, mib: float, start: float, end: float, into: dict[int, float], *, trim: bool = False) -> None:
        """Add ``mib`` to the buckets of [start, end] in proportion to their overlap; ``trim`` (always
        for ``moved``) drops buckets older than ``length``."""
        t0 = self.t0
        assert t0 is not None
        step = self.step_s
        last = int((end - t0) / step) if end > t0 else 0
        first = int((start - t0) / step) if start > t0 else 0
        if first == last or end <= start:  # the common case: telemetry every ~250 ms, buckets of 1 s
            into[last] = into.get(last, 0.0) + mib
        else:
            for bucket in range(first, last + 1):
                low = max(start, t0 + bucket * step)
                high = min(end, t0 + (bucket + 1) * step)
                if high > low:
                    into[bucket] = into.get(bucket, 0.0) + mib * (high - low) / (end - start)
        if (trim or into is self.moved or into is self.engine_moved or into is self.engine_seconds) \
                and len(into) > self.length:
            oldest = last - self.length
            for bucket in [b for b in into if b < oldest]:
                del into[bucket]

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
        estimate: dict[int, float] = {}
        engine_mib: dict[int, float] = {}
        engine_s: dict[int, float] = {}
        end = min(now, until)
        for run in in_flight:
            if run.inst and run.accounted_t is not None and end > run.accounted_t:
                if on_own_clock(run):  # its last rate for the time since: a MiB a second per MiB/s
                    self.spread(run.inst * (end - run.accounted_t), run.accounted_t, end, engine_mib)
                    self.spread(end - run.accounted_t, run.accounted_t, end, engine_s)
                else:
                    self.spread(run.inst * (end - run.accounted_t), run.accounted_t, end, estimate)
        spans = [self.step_s] * (end_bucket - first + 1) if whole else self._spans(first, end_bucket, until)
        return [(self.moved.get(b, 0.0) + estimate.get(b, 0.0)) / span
                + _ratio(self.engine_moved.get(b, 0.0) + engine_mib.get(b, 0.0),
                         self.engine_seconds.get(b, 0.0) + engine_s.get(b, 0.0))
                for b, span in zip(range(first, end_bucket + 1), spans, strict=True)]

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
        estimates: dict[str, dict[int, float]] = {}
        engine: dict[str, tuple[dict[int, float], dict[int, float]]] = {}
        end = min(now, until)
        for run in in_flight:
            if run.inst and run.accounted_t is not None and end > run.accounted_t:
                if on_own_clock(run):
                    mib, spent = engine.setdefault(run.spec.host, ({}, {}))
                    self.spread(run.inst * (end - run.accounted_t), run.accounted_t, end, mib)
                    self.spread(end - run.accounted_t, run.accounted_t, end, spent)
                else:
                    self.spread(run.inst * (end - run.accounted_t), run.accounted_t, end,
                                estimates.setdefault(run.spec.host, {}))
        spans = [self.step_s] * (last - first + 1) if whole else self._spans(first, last, until)
        hosts = list(dict.fromkeys([*self.by_host, *self.engine_by_host, *estimates, *engine]))

        def value(host: str, b: int, span: float) -> float:
            moved, spent = self.engine_by_host.get(host, ({}, {}))
            mib, seconds = engine.get(host, ({}, {}))
            return ((self.by_host.get(host, {}).get(b, 0.0) + estimates.get(host, {}).get(b, 0.0)) / span
                    + _ratio(moved.get(b, 0.0) + mib.get(b, 0.0), spent.get(b, 0.0) + seconds.get(b, 0.0)))

        return {host: [value(host, b, span) for b, span in zip(range(first, last + 1), spans, strict=True)]
                for host in hosts}


def _ratio(mib: float, seconds: float) -> float:
    """MiB over seconds of runs on their engine's clock; 0 where none ran."""
    return mib / seconds if seconds > 0 else 0.0


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
