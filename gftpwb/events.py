"""Typed events: the only thing the executor tells the world.

The journal, tag logs, the console and the TUI all subscribe to the same stream, which is what makes
headless and TUI runs produce the same results. Every event carries ``t``, a monotonic timestamp in
seconds, so consumers can compute rates and order events without reading a clock themselves.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

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
class ScenarioFinished(Event):
    summary: Summary
