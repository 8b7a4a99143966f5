"""The live event stream (``gftpwb run --events jsonl``): each event as one JSON object, one line.

Pure: :class:`EventEncoder` turns the events every front end hears (the TUI's live state reads the
same ones) into the lines ``schemas/events.schema.json`` describes; the shell's sink writes them
(:mod:`gftpwb.shell.sinks.events`). Every line has the envelope

* ``v``: the stream's version (:data:`VERSION`; a reader checks it; keys may be added within a
  version, never removed or changed in meaning),
* ``event``: what happened (``run-started``, ``progress``, ``thread``, ``monitor-sample``,
  ``run-finished``, ``thresholds``, ``scenario-finished``, ...: :data:`EVENT_NAMES`),
* ``t``: seconds since the stream started, on the controller's monotonic clock (every event's ``t``),
* ``utc``: the same instant in UTC (the stream's start in UTC plus ``t``),

and the event's own fields beside them, flat (``jq 'select(.event == "progress") | .bytes'``).
Times inside an event (a monitor sample's ``sampled_t``) are on the same time line as ``t``.
Passwords in URLs are masked in every line (:mod:`gftpwb.core.masking`), whatever published them.
The binary I/O traces of the ``io`` trace level are not part of the stream (``trace.jsonl`` keeps them).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, is_dataclass
from datetime import datetime, timedelta
from typing import Any

import orjson

from .events import (
    CopiesFinished,
    Event,
    ExpectationsChecked,
    IoTrace,
    MonitorSample,
    MonitorsFinished,
    MonitorSummary,
    Notice,
    OutputLine,
    Progress,
    RunDelayed,
    RunFinished,
    RunStarted,
    SamplerEnded,
    SamplerStarted,
    ScenarioFinished,
    ScenarioStarted,
    TraceLevelChanged,
    TuneUpdate,
    WorkerProgress,
)
from .masking import mask_text
from .specs import RunSpec

VERSION = 1
SCHEMA_ID = "https://gftpwb.invalid/schemas/events.schema.json"
#: Events the stream leaves out, and why (a test holds every other event type to a line of its own).
LEFT_OUT: dict[type[Event], str] = {IoTrace: "binary I/O trace data: trace.jsonl keeps it"}

Fields = dict[str, Any]


def _round(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(value, digits)


def _spec(spec: RunSpec) -> Fields:
    """What the stream says of a planned run: who it is and where it runs."""
    return {"run_id": spec.run_id, "test_id": spec.test_id, "case": spec.case, "repeat": spec.repeat,
            "kind": spec.kind, "host": spec.host, "engine": spec.engine}


class EventEncoder:
    """Events to lines. ``origin_t`` is the monotonic time the stream starts at (``t`` is counted from
    it) and ``origin_utc`` the same instant in UTC, both read by the caller (the core reads no clock).
    """

    def __init__(self, origin_t: float, origin_utc: datetime, *, generator: str = ""):
        self.origin_t = origin_t
        self.origin_utc = origin_utc
        self.generator = generator
        self._fields: dict[type, Callable[[Any], Fields]] = {
            ScenarioStarted: self._scenario_started, RunDelayed: self._run_delayed,
            RunStarted: self._run_started, Progress: self._progress, WorkerProgress: self._thread,
            OutputLine: self._output, RunFinished: self._run_finished, Notice: self._notice,
            ExpectationsChecked: self._thresholds, ScenarioFinished: self._scenario_finished,
            CopiesFinished: self._copies_finished, TuneUpdate: self._tune,
            TraceLevelChanged: self._trace_level, SamplerStarted: self._sampler_started,
            SamplerEnded: self._sampler_ended, MonitorSample: self._monitor_sample,
            MonitorSummary: self._monitor_summary, MonitorsFinished: self._monitors_finished,
        }

    @property
    def mapped(self) -> frozenset[type]:
        """The event types that become lines."""
        return frozenset(self._fields)

    def relative(self, t: float) -> float:
        """A monotonic time as seconds since the stream started."""
        return round(t - self.origin_t, 6)

    def utc(self, t: float) -> str:
        return (self.origin_utc + timedelta(seconds=t - self.origin_t)).isoformat(timespec="microseconds")

    def envelope(self, name: str, t: float) -> Fields:
        return {"v": VERSION, "event": name, "t": self.relative(t), "utc": self.utc(t)}

    def started(self) -> Fields:
        """The first line: the stream's version, its schema and what wrote it."""
        return {**self.envelope("stream-started", self.origin_t), "schema": SCHEMA_ID, "generator": self.generator}

    def fields(self, event: Event) -> Fields | None:
        """The line of ``event`` as a dict (None: the stream leaves this event out)."""
        make = self._fields.get(type(event))
        if make is None:
            return None
        name, body = make(event)
        return {**self.envelope(name, event.t), **body}

    def line(self, event: Event) -> bytes | None:
        """The line of ``event`` as UTF-8 JSON with its newline, passwords masked (None: left out)."""
        fields = self.fields(event)
        return None if fields is None else encode(fields)

    # --- one method per event: (name, fields) ---------------------------------------------------

    def _scenario_started(self, e: ScenarioStarted) -> tuple[str, Fields]:
        skipped = e.skipped_run_ids
        return "scenario-started", {
            "scenario": e.scenario, "results_dir": e.results_dir, "planned": len(e.plan),
            "skipped": len(skipped), "earlier": len(e.earlier),
            "runs": [{**_spec(s), "skipped": s.run_id in skipped} for s in e.plan]}

    def _run_delayed(self, e: RunDelayed) -> tuple[str, Fields]:
        return "run-delayed", {**_spec(e.spec), "delay_s": e.delay_s}

    def _run_started(self, e: RunStarted) -> tuple[str, Fields]:
        spec = e.spec
        return "run-started", {**_spec(spec), "argv": list(e.argv), "params": spec.params,
                               "started_at": e.started_at, "group": spec.group, "length_bytes": spec.length_bytes,
                               "timeout_s": spec.timeout_s}

    def _progress(self, e: Progress) -> tuple[str, Fields]:
        return "progress", {"run_id": e.run_id, "channel": e.channel, "bytes": e.bytes,
                            "rate_avg_mib_s": _round(e.rate_avg_mib_s), "rate_inst_mib_s": _round(e.rate_inst_mib_s),
                            "elapsed_s": _round(e.elapsed_s), "length_bytes": e.length_bytes, "span": e.span}

    def _thread(self, e: WorkerProgress) -> tuple[str, Fields]:
        return "thread", {"run_id": e.run_id, "host": e.host, "thread": e.thread, "state": e.state,
                          "files": e.files, "bytes": e.bytes, "ios": e.ios, "elapsed_s": _round(e.elapsed_s),
                          "files_total": e.files_total, "bytes_total": e.bytes_total, "error": e.error}

    def _output(self, e: OutputLine) -> tuple[str, Fields]:
        return "output", {"run_id": e.run_id, "stream": e.stream, "text": e.text}

    def _run_finished(self, e: RunFinished) -> tuple[str, Fields]:
        r = e.record
        return "run-finished", {"run_id": r.run_id, "status": r.status, "record": r}

    def _notice(self, e: Notice) -> tuple[str, Fields]:
        return "notice", {"level": e.level, "text": e.text}

    def _thresholds(self, e: ExpectationsChecked) -> tuple[str, Fields]:
        return "thresholds", {"test_id": e.test_id, "checked_at": e.checked_at, "violations": len(e.violations),
                              "checks": [c.to_dict() for c in e.checks]}

    def _scenario_finished(self, e: ScenarioFinished) -> tuple[str, Fields]:
        s = e.summary
        return "scenario-finished", {"planned": s.total, "counts": s.counts, "all_passed": s.all_passed,
                                     "interrupted": s.interrupted, "stopped_by": s.stopped_by,
                                     "violations": s.violations, "results_dir": s.results_dir}

    def _copies_finished(self, e: CopiesFinished) -> tuple[str, Fields]:
        return "copies-finished", {"group": e.group, "run_ids": list(e.run_ids),
                                   "aggregate": asdict(e.aggregate) if e.aggregate is not None else None}

    def _tune(self, e: TuneUpdate) -> tuple[str, Fields]:
        return "tune", {"test_id": e.test_id, "strategy": e.strategy, "engine": e.engine,
                        "transfers_used": e.transfers_used, "budget": e.budget, "margin_mib_s": e.margin_mib_s,
                        "leader": e.leader, "finished": e.finished, "p_within_margin": e.p_within_margin,
                        "p_with_history": e.p_with_history, "history_share": e.history_share,
                        "stop_reason": e.stop_reason, "rows": [asdict(row) for row in e.rows]}

    def _trace_level(self, e: TraceLevelChanged) -> tuple[str, Fields]:
        return "trace-level", {"run_id": e.run_id, "host": e.host, "level": e.level, "source": e.source}

    def _sampler_started(self, e: SamplerStarted) -> tuple[str, Fields]:
        return "sampler-started", {"host": e.host, "monitors": list(e.monitors), "clock_offset_s": e.clock_offset_s,
                                   "clock_uncertainty_s": e.clock_uncertainty_s}

    def _sampler_ended(self, e: SamplerEnded) -> tuple[str, Fields]:
        return "sampler-ended", {"host": e.host, "reason": e.reason}

    def _monitor_sample(self, e: MonitorSample) -> tuple[str, Fields]:
        return "monitor-sample", {"monitor": e.monitor, "type": e.type, "host": e.host,
                                  "sampled_t": self.relative(e.sampled_t), "sampled_utc": e.utc,
                                  "span_s": _round(e.span_s), "values": e.values, "error": e.error}

    def _monitor_summary(self, e: MonitorSummary) -> tuple[str, Fields]:
        return "monitor-summary", {"run_id": e.run_id, "started_utc": e.started_utc, "ended_utc": e.ended_utc,
                                   "figures": e.figures}

    def _monitors_finished(self, e: MonitorsFinished) -> tuple[str, Fields]:
        return "monitors-finished", {"samples": e.samples, "figures": e.figures, "types": e.types}


def encode(fields: Fields) -> bytes:
    """One line of the stream: compact JSON (non-finite numbers as null, anything else orjson cannot
    write as its text), a newline, and no password of a URL."""
    try:
        data = orjson.dumps(fields, default=str, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY)
    except orjson.JSONEncodeError:  # an integer beyond 64 bits, a nesting too deep: the standard library's way
        data = json.dumps(_finite(fields), default=str, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if b"://" in data:
        data = mask_text(data.decode("utf-8")).encode("utf-8")
    return data + b"\n"


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float as None (JSON has no NaN), for the fallback encoder."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    if is_dataclass(value) and not isinstance(value, type):
        return _finite(asdict(value))
    return value


#: Every ``event`` value a line may have, for readers and the schema.
EVENT_NAMES = ("stream-started", "scenario-started", "run-delayed", "run-started", "progress", "thread", "output",
               "run-finished", "notice", "thresholds", "scenario-finished", "copies-finished", "tune",
               "trace-level", "sampler-started", "sampler-ended", "monitor-sample", "monitor-summary",
               "monitors-finished")


def schema() -> dict[str, Any]:
    """``schemas/events.schema.json`` as installed with the package (``gftpwb.schemas``)."""
    from importlib.resources import files

    return json.loads(files("gftpwb.schemas").joinpath("events.schema.json").read_text(encoding="utf-8"))
