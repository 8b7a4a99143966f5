"""Typed events: the only thing the executor (and the services beside it, such as the monitors)
tells the world.

The journal, tag logs, the console and the TUI all subscribe to the same stream, which is what makes
headless and TUI runs produce the same results. Every event carries ``t``, a monotonic timestamp in
seconds, so consumers can compute rates and order events without reading a clock themselves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .checks import Check
from .harness.aggregate import CopiesAggregate
from .records import ResultRecord, Summary
from .specs import RunSpec


def _now() -> float:
    return time.monotonic()


@dataclass(frozen=True)
class Event:
    t: float = field(default_factory=_now, kw_only=True)


@dataclass(frozen=True)
class ScenarioStarted(Event):
    scenario: str
    results_dir: str
    plan: tuple[RunSpec, ...]
    skipped_run_ids: frozenset[str] = frozenset()  # already done in an earlier, resumed attempt
    earlier: tuple[ResultRecord, ...] = ()  # the final records of those earlier attempts (reports show all runs)


@dataclass(frozen=True)
class RunDelayed(Event):
    """A run waits ``delay_s`` (its ``delay:``) before it starts; RunStarted follows, or RunFinished
    if it is stopped while waiting."""

    spec: RunSpec
    delay_s: float


@dataclass(frozen=True)
class CopiesFinished(Event):
    """Every run of a batch that started together (the copies of a run, a test's runs on several hosts)
    in this attempt has its RunFinished; ``aggregate`` is None when some run has no final record
    (interrupted: ``--resume`` runs it again)."""

    group: str
    run_ids: tuple[str, ...]
    aggregate: CopiesAggregate | None


@dataclass(frozen=True)
class RunStarted(Event):
    spec: RunSpec
    argv: tuple[str, ...]
    started_at: str  # ISO 8601 UTC


@dataclass(frozen=True)
class Progress(Event):
    """A live sample: bytes so far and rates in MiB/s (``rate_inst`` may be None)."""

    run_id: str
    bytes: int
    rate_avg_mib_s: float | None
    rate_inst_mib_s: float | None
    elapsed_s: float
    length_bytes: int | None = None
    channel: str | None = None  # a stream, thread or host label when the sample is partial
    # What ``rate_avg_mib_s`` and ``elapsed_s`` span when it is not the time since the run started
    # ("since the starting gun"; a last sample on the run's own measured window says which): shown
    # with the rate, so a live figure and the result never differ without a word.
    span: str = ""


@dataclass(frozen=True)
class OutputLine(Event):
    run_id: str
    stream: str  # "stdout" or "stderr"
    text: str


@dataclass(frozen=True)
class RunFinished(Event):
    record: ResultRecord


@dataclass(frozen=True)
class Notice(Event):
    """Something the user should read that is not a run result (a warning, a resume note)."""

    level: str  # "info" or "warning"
    text: str


@dataclass(frozen=True)
class ExpectationsChecked(Event):
    """A test ended and its thresholds (``expect:``) were checked on each of its cases (one
    :class:`gftpwb.core.expect.Check` per case and threshold); the console, the TUI and
    ``expectations.jsonl`` take it."""

    test_id: str
    checks: tuple[Check, ...]
    checked_at: str = ""  # ISO 8601 UTC

    @property
    def violations(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if not c.ok)

    def to_json(self) -> str:
        import json

        return json.dumps({"test_id": self.test_id, "checked_at": self.checked_at,
                           "checks": [c.to_dict() for c in self.checks]}, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class ScenarioFinished(Event):
    summary: Summary


@dataclass(frozen=True)
class WorkerProgress(Event):
    """Live telemetry of one worker thread (gfapi tests): cumulative counts since the start signal."""

    run_id: str
    host: str
    thread: int
    state: str  # "preparing", "ready", "running", "done", "failed"
    files: int = 0
    bytes: int = 0
    ios: int = 0
    elapsed_s: float = 0.0
    files_total: int | None = None
    bytes_total: int | None = None
    error: str = ""
    started_unix_ns: int | None = None  # when the thread started measuring, Unix ns on the controller's clock


@dataclass(frozen=True)
class RankingRow:
    """One candidate configuration in an auto-tune ranking, best first."""

    rank: int
    candidate: str  # guc parameters as tgftp prints them, e.g. "-vb -p 16 -tcp-bs 8M"
    mean_mib_s: float | None
    ci_low_mib_s: float | None
    ci_high_mib_s: float | None
    runs: int
    failures: int
    tied_with_leader: bool = False  # within the tie margin of #1
    eliminated: bool = False  # adaptive: dropped from the race
    eliminated_after: int | None = None  # transfers used when it was dropped
    note: str = ""  # failure reason, "same kernel-capped buffer as ...", ...


@dataclass(frozen=True)
class TuneUpdate(Event):
    """The auto-tune ranking after each transfer; ``finished`` marks the final pick."""

    test_id: str
    strategy: str  # "exhaustive" or "adaptive"
    engine: str  # "real" or "simulated"
    transfers_used: int
    budget: int
    margin_mib_s: float
    rows: tuple[RankingRow, ...]
    leader: str | None
    finished: bool = False
    # estimated P(the pick's true mean is within the margin of the best), from the runs of this tune alone
    p_within_margin: float | None = None
    stop_reason: str = ""  # why the strategy stopped before running all it could ("" : it ran its plan)
    #: The kind of the test that tunes: its ``update_blocks`` hook says how a final ranking is printed.
    kind: str = ""
    #: The kind of the runs it varies (guc, as tgftp -a; xrootd, http).
    transfers: str = "guc"
    warm_start: str = ""  # what the history did for an adaptive tune, one line ("": not an adaptive tune)
    #: A warm start's P, with the history's priors counted beside the runs (None: no warm race)
    p_with_history: float | None = None
    history_share: str = ""  # what of the pick's estimate the history supplies ("": none)
    #: The leader's transfer as it runs (its command line, ``leader`` being its label); "" without a leader.
    leader_command: str = ""


@dataclass(frozen=True)
class IoTrace(Event):
    """A worker's binary I/O trace (``io`` level, :mod:`gftpwb.core.trace.iofmt`), fetched from its host
    after the worker ended; the trace sink stores it. ``clock_offset_ns``: that host's clock minus the
    controller's."""

    run_id: str
    host: str
    process: int
    data: bytes = field(repr=False)
    clock_offset_ns: int = 0


@dataclass(frozen=True)
class TraceLevelChanged(Event):
    """The trace level of a running worker was switched (the switch is itself part of the trace)."""

    run_id: str
    host: str
    level: str
    source: str = ""  # what switched it: "signal", "tui", ...
# --- monitors: samples polled on hosts while the tests run --------------------------------


@dataclass(frozen=True)
class SamplerStarted(Event):
    """A host's sampler runs (one process for all the monitors on that host). ``clock_offset_s`` is the
    host's clock minus the controller's (± ``clock_uncertainty_s``), applied to its samples."""

    host: str
    monitors: tuple[str, ...]
    clock_offset_s: float
    clock_uncertainty_s: float


@dataclass(frozen=True)
class SamplerEnded(Event):
    """A host's sampler is gone: stopped at the end (``reason`` empty) or lost (why)."""

    host: str
    reason: str = ""


@dataclass(frozen=True)
class MonitorSample(Event):
    """One reading of a monitor on a host: its figures (names carry their units, see
    :mod:`gftpwb.core.monitors.readers`), or ``error`` when the reading failed. ``sampled_t`` is when
    it was read, on the controller's monotonic clock (that of every event's ``t``: a run runs from its
    RunStarted's ``t`` to its RunFinished's), with the host's clock offset applied; ``utc`` is the
    same instant in UTC; ``span_s`` the time since this monitor's previous sample on this host (the
    interval rates are averaged over)."""

    monitor: str
    type: str
    host: str
    sampled_t: float
    utc: str
    span_s: float
    values: dict[str, float]
    error: str = ""


@dataclass(frozen=True)
class MonitorSummary(Event):
    """The monitors' figures during one run: ``figures[monitor][host][figure]`` is
    ``{"mean", "min", "max", "n"}`` (mean weighted by time; see :mod:`gftpwb.core.monitors.summary`)."""

    run_id: str
    started_utc: str
    ended_utc: str
    figures: dict[str, Any]


@dataclass(frozen=True)
class MonitorsFinished(Event):
    """The monitors stopped (after the last run, before ScenarioFinished): how many samples they
    took and their figures over the whole scenario run, for the report."""

    samples: int
    figures: dict[str, Any]
    types: dict[str, str] = field(default_factory=dict)  # monitor id -> its type
