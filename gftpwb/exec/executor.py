"""The executor: runs planned specs one after another and publishes what happens.

It owns the clocks (a monotonic clock for durations, UTC wall time for timestamps), timeouts and
cancellation; drivers own the meaning of the output. Every run ends in exactly one RunFinished
event, including runs that time out, fail to start or are interrupted by Ctrl-C, so the journal
always holds a record of the run in flight.

Specs that share a non-empty ``group`` (the same run of a test on several hosts, ``on: [a, b]``)
run at the same time: the executor connects to their hosts first (``transport.prepare()``, where a
transport has it), then starts them together and waits for all before the next run or group.

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
Tee = Callable[[str, str, bytes], None]


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class Interrupted(Exception):
    """Raised by a runner after it recorded an interrupted run, carrying that record."""

    def __init__(self, record: ResultRecord):
        super().__init__(record.run_id)
        self.record = record


def batches(specs: list[RunSpec]) -> list[list[RunSpec]]:
    """Consecutive specs of one non-empty group form a batch; every other spec is a batch alone."""
    out: list[list[RunSpec]] = []
    for spec in specs:
        if out and spec.group and out[-1][0].group == spec.group:
            out[-1].append(spec)
        else:
            out.append([spec])
    return out


class Executor:
    """Runs specs (or groups of them) one after another; ``stop()`` (wired to Ctrl-C) interrupts
    the runs in flight."""

    def __init__(self, bus: EventBus, transport_for: Callable[[str], Transport] | None = None,
                 *, kill_grace_s: float = 2.0, unbuffer: bool | None = None,
                 runners: dict[str, Runner] | None = None, tee: Tee | None = None):
        from .runners import DEFAULT_RUNNERS  # runners import this module's helpers

        local = LocalTransport()
        self.bus = bus
        self.transport_for = transport_for or (lambda host: local)
        self.kill_grace_s = kill_grace_s
        # Without stdbuf guc's progress arrives only at its exit; results stay the same.
        self.unbuffer = shutil.which("stdbuf") is not None if unbuffer is None else unbuffer
        self.runners = {**DEFAULT_RUNNERS, **(runners or {})}
        # A copy of every chunk the runs' programs write, as it comes: (role, stream, bytes), role being
        # "transfer" or a command's role. The tgftp drop-in shows it on the screen, as tgftp's tee did.
        self.tee = tee
        self._stopping = False
        self._current: set[asyncio.Task[ResultRecord]] = set()
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
        for task in list(self._current):
            task.cancel()

    async def run(self, specs: list[RunSpec], *, results_dir: str, scenario: str,
                  done: frozenset[str] = frozenset(), earlier: list[ResultRecord] | None = None) -> Summary:
        """Run every spec whose id is not in ``done``; ``earlier`` records count in the summary."""
        self.publish(ScenarioStarted(scenario=scenario, results_dir=results_dir, plan=tuple(specs),
                                     skipped_run_ids=done))
        self.history = list(earlier or [])
        planned = {s.run_id for s in specs}
        records = [r for r in self.history if r.run_id in planned]
        for batch in batches([s for s in specs if s.run_id not in done]):
            if self._stopping:
                break
            if len(batch) > 1:
                await self._prepare(batch)
            tasks = [asyncio.create_task(self.run_one(spec)) for spec in batch]
            self._current = set(tasks)
            try:
                await asyncio.wait(tasks)
            except asyncio.CancelledError:  # cancelled from outside: let every run record itself
                for task in tasks:
                    task.cancel()
                await asyncio.wait(tasks)
                raise
            finally:
                self._current = set()
            records.extend(task.result() for task in tasks)
        summary = Summary.of(records, planned=len(specs), interrupted=self._stopping, results_dir=results_dir)
        self.publish(ScenarioFinished(summary=summary))
        return summary

    async def _prepare(self, batch: list[RunSpec]) -> None:
        """Connect to every host of a group before any of its runs starts (errors surface at start)."""
        transports = {id(t): t for t in (self.transport_for(s.host) for s in batch)}.values()
        steps = [prepare() for t in transports if (prepare := getattr(t, "prepare", None)) is not None]
        await asyncio.gather(*steps, return_exceptions=True)

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
