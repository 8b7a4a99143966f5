"""Events in, trace records out: the pure half of the trace sink (:mod:`gftpwb.shell.sinks.trace`).

Only runs whose spec says so (``details.trace``, see :func:`gftpwb.core.plan.traced`) are traced. A
run becomes a ``run`` span from its RunStarted to its RunFinished; its kind may read phases from its
output (``Run.trace_phases``: guc's control conversation); worker threads' states (WorkerProgress:
preparing, ready, running, done) become ``worker.prepare``, ``worker.wait`` and ``worker.run`` spans
per thread; Progress and WorkerProgress become samples. Timestamps: events carry monotonic seconds;
records carry Unix nanoseconds, ``wall_offset_ns`` (Unix minus monotonic, read once by the sink) apart.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.events import (
    Event,
    MonitorSample,
    OutputLine,
    Progress,
    RunFinished,
    RunStarted,
    TraceLevelChanged,
    WorkerProgress,
)
from gftpwb.core.specs import RunSpec

from .records import FORMAT_VERSION, Mark, Phase, PhaseReader
from .setting import TraceSetting

Record = dict[str, Any]
ReaderFor = Callable[[RunSpec], PhaseReader | None]
WORKER_PHASES = {"preparing": "worker.prepare", "ready": "worker.wait", "running": "worker.run"}


def meta_record(wall_offset_ns: int) -> Record:
    return {"type": "meta", "version": FORMAT_VERSION, "clock": "unix ns (controller)",
            "wall_offset_ns": wall_offset_ns}


@dataclass
class _Thread:
    state: str
    since: float


@dataclass
class _Run:
    spec: RunSpec
    setting: TraceSetting
    start: float
    reader: PhaseReader | None
    threads: dict[tuple[str, int], _Thread] = field(default_factory=dict)


class TraceBuilder:
    def __init__(self, wall_offset_ns: int, reader_for: ReaderFor = lambda spec: None):
        self.wall_offset_ns = wall_offset_ns
        self.reader_for = reader_for
        self.runs: dict[str, _Run] = {}

    def ns(self, t: float) -> int:
        return round(t * 1e9) + self.wall_offset_ns

    def feed(self, event: Event) -> list[Record]:
        if isinstance(event, RunStarted):
            setting = TraceSetting.of_details(event.spec.details)
            if setting.on:
                self.runs[event.spec.run_id] = _Run(event.spec, setting, event.t, self.reader_for(event.spec))
            return []
        if isinstance(event, MonitorSample):
            return self._monitor(event) if self.runs else []
        run_id = getattr(event, "run_id", None)
        if isinstance(event, RunFinished):
            run_id = event.record.run_id
        run = self.runs.get(run_id) if run_id is not None else None
        if run is None:
            return []
        if isinstance(event, OutputLine):
            return self._phases(run, run.reader.feed(event.stream, event.text, event.t)) if run.reader else []
        if isinstance(event, Progress):
            return [self._sample(run, event.t, event.channel or "total", {
                "bytes": event.bytes, "rate_avg_mib_s": event.rate_avg_mib_s,
                "rate_inst_mib_s": event.rate_inst_mib_s, "elapsed_s": round(event.elapsed_s, 6)})]
        if isinstance(event, WorkerProgress):
            return self._worker(run, event)
        if isinstance(event, TraceLevelChanged):
            return [{"type": "mark", "name": "trace.level", "run": run.spec.run_id, "host": event.host,
                     "track": "trace", "ts": self.ns(event.t), "args": {"level": event.level, "source": event.source}}]
        if isinstance(event, RunFinished):
            return self._finish(run, event)
        return []

    def iofile(self, run_id: str, host: str, process: int, path: str, events: int, size: int,
               clock_offset_ns: int, t: float) -> Record:
        """The index entry of a stored binary I/O trace (the sink stores the file and asks for this)."""
        return {"type": "iofile", "run": run_id, "host": host, "process": process, "path": path, "events": events,
                "bytes": size, "clock_offset_ns": clock_offset_ns, "ts": self.ns(t)}

    # --- records --------------------------------------------------------------------------------

    def _span(self, run: _Run, name: str, start: float, end: float, track: str, args: dict[str, Any],
              host: str | None = None) -> Record:
        return {"type": "span", "name": name, "run": run.spec.run_id, "host": host or run.spec.host,
                "track": track, "ts": self.ns(start), "dur": max(0, round((end - start) * 1e9)), "args": args}

    def _sample(self, run: _Run, t: float, track: str, values: dict[str, Any], host: str | None = None) -> Record:
        return {"type": "sample", "name": "progress", "run": run.spec.run_id, "host": host or run.spec.host,
                "track": track, "ts": self.ns(t), "values": values}

    def _phases(self, run: _Run, items: list[Phase | Mark]) -> list[Record]:
        out: list[Record] = []
        for item in items:
            if isinstance(item, Phase):
                out.append(self._span(run, item.name, item.start, item.end, item.track or "run", item.args))
            else:
                out.append({"type": "mark", "name": item.name, "run": run.spec.run_id, "host": run.spec.host,
                            "track": item.track or "run", "ts": self.ns(item.t), "args": item.args})
        return out

    def _worker(self, run: _Run, event: WorkerProgress) -> list[Record]:
        """A thread's state spans and samples. Once a thread reported its start (host clock, corrected
        by the host's offset) its times are start + elapsed, not when its lines arrived (up to one
        report interval later), so its spans and its I/O events line up."""
        key = (event.host, event.thread)
        track = f"thread {event.thread}"
        out = []
        thread = run.threads.get(key)
        start = None if event.started_unix_ns is None else (event.started_unix_ns - self.wall_offset_ns) / 1e9
        at = event.t if start is None else start + event.elapsed_s
        boundary = start if start is not None and event.state == "running" else at
        if thread is None or thread.state != event.state:
            if thread is not None and thread.state in WORKER_PHASES:
                out.append(self._span(run, WORKER_PHASES[thread.state], thread.since, boundary, track,
                                      {"next": event.state, **({"error": event.error} if event.error else {})},
                                      host=event.host))
            run.threads[key] = _Thread(event.state, boundary)
        if event.state == "running" or (thread is not None and thread.state == "running"):
            out.append(self._sample(run, at, track, {"files": event.files, "bytes": event.bytes,
                                                     "ios": event.ios, "elapsed_s": round(event.elapsed_s, 6)},
                                    host=event.host))
        return out

    def _monitor(self, event: MonitorSample) -> list[Record]:
        """A monitor's reading while traced runs are in flight (the monitors' samples alongside the runs'),
        at the instant it was read on its host, on the controller's clock."""
        values = {k: v for k, v in event.values.items() if isinstance(v, int | float)}
        if event.error or not values:
            return []
        return [{"type": "sample", "name": f"monitor.{event.type}", "run": ",".join(sorted(self.runs)),
                 "host": event.host, "track": f"monitor {event.monitor}", "ts": self.ns(event.sampled_t),
                 "values": values}]

    def _finish(self, run: _Run, event: RunFinished) -> list[Record]:
        del self.runs[run.spec.run_id]
        record = event.record
        out = self._phases(run, run.reader.close(event.t)) if run.reader else []
        for (host, number), thread in run.threads.items():
            if thread.state in WORKER_PHASES:
                out.append(self._span(run, WORKER_PHASES[thread.state], thread.since, event.t, f"thread {number}",
                                      {"next": "unfinished"}, host=host))
        args = {"test": run.spec.test_id, "kind": run.spec.kind, "status": record.status, "bytes": record.bytes,
                "rate_mib_s": record.rate_incl_setup_mib_s, "trace": run.setting.details()}
        if record.error:
            args["error"] = record.error.splitlines()[0][:200]
        out.append(self._span(run, "run", run.start, event.t, "run", args))
        return out
