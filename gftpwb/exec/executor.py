"""The executor: runs planned specs one after another and publishes what happens.

It owns the clocks (a monotonic clock for durations, UTC wall time for timestamps), timeouts and
cancellation; drivers own the meaning of the output. Every run ends in exactly one RunFinished
event, including runs that time out, fail to start or are interrupted by Ctrl-C, so the journal
always holds a record of the run in flight.

How a run of a given kind is carried out is a *runner* (``gftpwb.exec.runners``): an async function
``runner(executor, spec) -> ResultRecord`` that publishes its own progress and returns the record.
The executor publishes RunFinished for it and handles stop requests around it.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from ..bus import EventBus
from ..events import Event, RunFinished, ScenarioFinished, ScenarioStarted
from ..records import ResultRecord, Summary
from ..specs import RunSpec
from .transport import LocalTransport, Transport

Runner = Callable[["Executor", RunSpec], Awaitable[ResultRecord]]


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class Interrupted(Exception):
    """Raised by a runner after it recorded an interrupted run, carrying that record."""

    def __init__(self, record: ResultRecord):
        super().__init__(record.run_id)
        self.record = record


class Executor:
    """Runs specs sequentially; ``stop()`` (wired to Ctrl-C) interrupts the run in flight."""

    def __init__(self, bus: EventBus, transport_for: Callable[[str], Transport] | None = None,
                 *, kill_grace_s: float = 2.0, unbuffer: bool | None = None,
                 runners: dict[str, Runner] | None = None):
        from .runners import DEFAULT_RUNNERS  # runners import this module's helpers

        local = LocalTransport()
        self.bus = bus
        self.transport_for = transport_for or (lambda host: local)
        self.kill_grace_s = kill_grace_s
        # Without stdbuf guc's progress arrives only at its exit; results stay the same.
        self.unbuffer = shutil.which("stdbuf") is not None if unbuffer is None else unbuffer
        self.runners = {**DEFAULT_RUNNERS, **(runners or {})}
        self._stopping = False
        self._current: asyncio.Task[ResultRecord] | None = None
        # Final records of earlier attempts (--resume), including runs a runner started itself (an
        # auto-tune's transfers): a runner that decides its own runs replays them from here.
        self.history: list[ResultRecord] = []

    @property
    def stopping(self) -> bool:
        return self._stopping

    def publish(self, event: Event) -> None:
        self.bus.publish(event)

    def stop(self) -> None:
        """Stop after recording the run in flight as interrupted; no further runs start."""
        self._stopping = True
        if self._current is not None:
            self._current.cancel()

    async def run(self, specs: list[RunSpec], *, results_dir: str, scenario: str,
                  done: frozenset[str] = frozenset(), earlier: list[ResultRecord] | None = None) -> Summary:
        """Run every spec whose id is not in ``done``; ``earlier`` records count in the summary."""
        self.publish(ScenarioStarted(scenario=scenario, results_dir=results_dir, plan=tuple(specs),
                                     skipped_run_ids=done))
        self.history = list(earlier or [])
        planned = {s.run_id for s in specs}
        records = [r for r in self.history if r.run_id in planned]
        for spec in specs:
            if spec.run_id in done:
                continue
            if self._stopping:
                break
            self._current = asyncio.create_task(self.run_one(spec))
            try:
                records.append(await self._current)
            finally:
                self._current = None
        summary = Summary.of(records, planned=len(specs), interrupted=self._stopping, results_dir=results_dir)
        self.publish(ScenarioFinished(summary=summary))
        return summary

    async def run_one(self, spec: RunSpec) -> ResultRecord:
        """Run one spec with the runner of its kind and publish its record."""
        runner = self.runners.get(spec.kind)
        if runner is None:  # the planner only emits known kinds; this guards new ones half-added
            raise KeyError(f"no runner for test kind {spec.kind!r}")
        try:
            record = await runner(self, spec)
        except Interrupted as exc:
            self.publish(RunFinished(record=exc.record))
            task = asyncio.current_task()
            if not self._stopping or task is None:
                raise asyncio.CancelledError from None  # cancelled from outside: keep cancelling
            task.uncancel()  # our own stop(): the interruption is recorded, not propagated
            return exc.record
        self.publish(RunFinished(record=record))
        return record
