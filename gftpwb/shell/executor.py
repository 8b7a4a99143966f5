"""The executor: runs planned specs one after another and publishes what happens.

It owns the clocks (a monotonic clock for durations, UTC wall time for timestamps), timeouts and
cancellation; kinds own the meaning of the output. Every run ends in exactly one RunFinished
event, including runs that time out, fail to start or are interrupted by Ctrl-C, so the journal
always holds a record of the run in flight.

Specs that share a non-empty ``group`` (the same run of a test on several hosts, ``on: [a, b]``)
run at the same time: the executor connects to their hosts first (``transport.prepare()``), then
starts them together and waits for all before the next run or group.

How a run of a given kind is carried out is that kind's *runner* (the registry names it; see
:mod:`gftpwb.shell.context`); the executor is the :class:`~gftpwb.shell.context.RunContext` it gets,
publishes RunFinished for it and handles stop requests around it.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable

from gftpwb.core.bus import EventBus
from gftpwb.core.events import Event, RunFinished, ScenarioFinished, ScenarioStarted
from gftpwb.core.masking import mask
from gftpwb.core.records import INTERRUPTED, ResultRecord, Summary, attribute_interruption
from gftpwb.core.registry import registry
from gftpwb.core.runrecord import record_for
from gftpwb.core.specs import RunSpec
from gftpwb.core.transport import Transport

from .context import Interrupted, Runner, utc_now_iso
from .transports.local import LocalTransport


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
    the runs in flight. ``runners`` replaces the registry's runner of some kinds (tests, benches)."""

    def __init__(self, bus: EventBus, transport_for: Callable[[str], Transport] | None = None,
                 *, kill_grace_s: float = 2.0, unbuffer: bool | None = None,
                 runners: dict[str, Runner] | None = None):
        local = LocalTransport()
        self.bus = bus
        self.transport_for = transport_for or (lambda host: local)
        self.kill_grace_s = kill_grace_s
        # Without stdbuf guc's progress arrives only at its exit; results stay the same.
        self.unbuffer = shutil.which("stdbuf") is not None if unbuffer is None else unbuffer
        self.runners = dict(runners or {})
        self._stopping = False
        self.stopped_by = ""  # what stop() was told stopped us: "SIGINT", "SIGTERM", "SIGHUP", "" (a front end)
        self._current: set[asyncio.Task[ResultRecord]] = set()
        self._finished: list[ResultRecord] = []  # records of the batch in flight, as published
        # Final records of earlier attempts (--resume), including runs a runner started itself (an
        # auto-tune's transfers): a runner that decides its own runs replays them from here.
        self.history: list[ResultRecord] = []

    @property
    def stopping(self) -> bool:
        return self._stopping

    def publish(self, event: Event) -> None:
        """Every event runners and the executor publish, with passwords in URLs masked: subscribers
        (journal, tag logs, console, TUI) never see one (:mod:`gftpwb.core.masking`)."""
        self.bus.publish(mask(event))

    def runner_for(self, kind: str) -> Runner:
        runner = self.runners.get(kind)
        return runner if runner is not None else registry().runner(kind)

    def stop(self, stopped_by: str = "SIGINT") -> None:
        """Stop after recording the run in flight as interrupted; no further runs start.

        Only the first call cancels: a second Ctrl-C (or SIGTERM after it) while the runs in flight
        are being stopped must not cancel their clean-up, which ends in a SIGKILL of whatever ignored
        the polite signal."""
        if self._stopping:
            return
        self._stopping = True
        self.stopped_by = stopped_by
        for task in list(self._current):
            if not task.done():
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
                if self._stopping:
                    break
            self._finished = []
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
            # The records published, not the tasks' results: a task stopped before its runner began
            # has none (nothing ran), and one stopped while publishing its record ends cancelled.
            records.extend(self._finished)
            for task in tasks:
                if task.cancelled():
                    if not self._stopping:
                        raise asyncio.CancelledError
                elif task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]
        summary = Summary.of(records, planned=len(specs), interrupted=self._stopping, results_dir=results_dir,
                             stopped_by=self.stopped_by)
        self.publish(ScenarioFinished(summary=summary))
        return summary

    async def _prepare(self, batch: list[RunSpec]) -> None:
        """Connect to every host of a group before any of its runs starts (errors surface at start)."""
        transports = {id(t): t for t in (self.transport_for(s.host) for s in batch)}.values()
        await asyncio.gather(*(t.prepare() for t in transports), return_exceptions=True)

    async def run_one(self, spec: RunSpec) -> ResultRecord:
        """Run one spec with the runner of its kind and publish its record."""
        runner = self.runner_for(spec.kind)
        try:
            record = await runner(self, spec)
        except (Interrupted, asyncio.CancelledError) as exc:
            # A runner that let the cancellation through without recording the run gets a record here,
            # so every run that started ends in exactly one RunFinished.
            record = exc.record if isinstance(exc, Interrupted) else \
                record_for(spec, INTERRUPTED, ended_at=utc_now_iso(), error="interrupted by the user (Ctrl-C)")
            attribute_interruption(record, self.stopped_by)
            self._finish(record)
            task = asyncio.current_task()
            if not self._stopping or task is None:
                raise asyncio.CancelledError from None  # cancelled from outside: keep cancelling
            task.uncancel()  # our own stop(): the interruption is recorded, not propagated
            return record
        self._finish(record)
        return record

    def _finish(self, record: ResultRecord) -> None:
        event = mask(RunFinished(record=record))
        self.bus.publish(event)  # the journal, first subscriber, has it on disk now
        self._finished.append(event.record)

    async def run_child(self, spec: RunSpec) -> ResultRecord:
        """A run inside another one (an auto-tune's transfer): its own record and RunFinished; raises
        CancelledError once an interruption is recorded."""
        try:
            record = await self.runner_for(spec.kind)(self, spec)
        except Interrupted as exc:
            attribute_interruption(exc.record, self.stopped_by)
            self.publish(RunFinished(record=exc.record))
            raise asyncio.CancelledError from None
        self.publish(RunFinished(record=record))
        return record
