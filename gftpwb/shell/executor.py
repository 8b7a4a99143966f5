"""The executor: runs planned specs and publishes what happens.

It owns the clocks (a monotonic clock for durations, UTC wall time for timestamps), delays,
timeouts and cancellation; kinds own the meaning of the output. Every run that starts (or waits for
its delay) ends in exactly one RunFinished event, including runs that time out, fail to start or are
interrupted by Ctrl-C, so the journal always holds a record of every run in flight.

*When* runs start is the scheduler's (:mod:`gftpwb.shell.scheduler`): tests in plan order, one at a
time unless ``concurrent_tests`` allows more, each after the tests it ``needs``. Specs that share a
non-empty ``group`` (the same run of a test on several hosts, ``on: [a, b]``, and the copies of a run,
``concurrency: N``) form a batch and run at the same time: the executor connects to their hosts first
(``transport.prepare()``), then starts them together, each after its own delay, and waits for all.

How a run of a given kind is carried out is that kind's *runner* (the registry names it; see
:mod:`gftpwb.shell.context`); the executor is the :class:`~gftpwb.shell.context.RunContext` it gets,
publishes RunFinished for it and handles stop requests around it.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Awaitable, Callable, Sequence

from gftpwb.core.bus import EventBus
from gftpwb.core.events import Event, RunDelayed, RunFinished, ScenarioFinished, ScenarioStarted
from gftpwb.core.harness.agenda import Schedule
from gftpwb.core.masking import mask
from gftpwb.core.records import FINAL_STATUSES, INTERRUPTED, ResultRecord, Summary, attribute_interruption
from gftpwb.core.registry import registry
from gftpwb.core.runrecord import record_for
from gftpwb.core.specs import RunSpec
from gftpwb.core.transport import Transport

from .context import Interrupted, Runner, Tee, launch_group, utc_now_iso
from .scheduler import Scheduler, batches
from .transports.local import LocalTransport

__all__ = ["Executor", "batches"]


class Executor:
    """Runs specs, batch by batch, as the scheduler starts them; ``stop()`` (wired to Ctrl-C)
    interrupts every run in flight. ``runners`` replaces the registry's runner of some kinds (tests,
    benches)."""

    def __init__(self, bus: EventBus, transport_for: Callable[[str], Transport] | None = None,
                 *, kill_grace_s: float = 2.0, unbuffer: bool | None = None,
                 runners: dict[str, Runner] | None = None, tee: Tee | None = None, mask_events: bool = True):
        local = LocalTransport()
        self.bus = bus
        self.transport_for = transport_for or (lambda host: local)
        self.kill_grace_s = kill_grace_s
        # Without stdbuf guc's progress arrives only at its exit; results stay the same.
        self.unbuffer = shutil.which("stdbuf") is not None if unbuffer is None else unbuffer
        self.runners = dict(runners or {})
        # A copy of every chunk the runs' programs write, as it comes: (role, stream, bytes), role being
        # "transfer" or a command's role. The tgftp drop-in shows it on the screen, as tgftp's tee did.
        self.tee = tee
        # Passwords in URLs are masked in every event published (gftpwb.core.masking); only the tgftp
        # drop-in, asked for tgftp-faithful tag logs (GFTPWB_TGFTP_FAITHFUL_LOGS=1), turns that off.
        self._mask = mask if mask_events else (lambda event: event)
        self._stopping = False
        self.stopped_by = ""  # what stop() was told stopped us: "SIGINT", "SIGTERM", "SIGHUP", "" (a front end)
        self._current: set[asyncio.Task[ResultRecord]] = set()  # runs in flight, of every batch
        # Final records of earlier attempts (--resume), including runs a runner started itself (an
        # auto-tune's transfers): a runner that decides its own runs replays them from here.
        self.history: list[ResultRecord] = []

    @property
    def stopping(self) -> bool:
        return self._stopping

    def publish(self, event: Event) -> None:
        """Every event runners and the executor publish, with passwords in URLs masked: subscribers
        (journal, tag logs, console, TUI) never see one (:mod:`gftpwb.core.masking`)."""
        self.bus.publish(self._mask(event))

    def subscribe(self, handler: Callable[[Event], None]) -> Callable[[], None]:
        """Hear every event from now on (a service aligning its samples with runs); returns the
        function that stops it."""
        return self.bus.subscribe(handler)

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

    async def run(self, specs: Sequence[RunSpec], *, results_dir: str, scenario: str,
                  done: frozenset[str] = frozenset(), earlier: list[ResultRecord] | None = None,
                  schedule: Schedule | None = None,
                  wind_down: Callable[[], Awaitable[None]] | None = None) -> Summary:
        """Run every spec whose id is not in ``done``; ``earlier`` records count in the summary.
        ``schedule`` says which tests need which and how many may run at once (default: none, one).
        ``wind_down`` is awaited after the last run and before ScenarioFinished (the session stops
        its services there, so what they publish last still belongs to the scenario run)."""
        self.publish(ScenarioStarted(scenario=scenario, results_dir=results_dir, plan=tuple(specs),
                                     skipped_run_ids=done, earlier=tuple(earlier or ())))
        self.history = list(earlier or [])
        planned = {s.run_id for s in specs}
        records = [r for r in self.history if r.run_id in planned]
        final = {r.run_id: r for r in records if r.status in FINAL_STATUSES}
        scheduler = Scheduler(self, specs, schedule or Schedule(), done, final)
        records.extend(await scheduler.run())
        if wind_down is not None:
            await wind_down()
        summary = Summary.of(records, planned=len(specs), interrupted=self._stopping, results_dir=results_dir,
                             violations=scheduler.violations, stopped_by=self.stopped_by)
        self.publish(ScenarioFinished(summary=summary))
        return summary

    async def run_batch(self, batch: list[RunSpec]) -> list[ResultRecord]:
        """Run the specs of one batch at the same time (after connecting to their hosts) and return
        their records; a stop interrupts them all."""
        if len(batch) > 1:
            await self._prepare(batch)
            if self._stopping:  # stopped while connecting: these runs never started
                return []
        published: list[ResultRecord] = []
        tasks = [asyncio.create_task(self.run_one(spec, published)) for spec in batch]
        self._current.update(tasks)
        try:
            await asyncio.wait(tasks)
        except asyncio.CancelledError:  # cancelled from outside: let every run record itself
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks)
            raise
        finally:
            self._current.difference_update(tasks)
        # The records published, not the tasks' results: a task stopped before its runner began has
        # none (nothing ran), and one stopped while publishing its record ends cancelled.
        for task in tasks:
            if task.cancelled():
                if not self._stopping:
                    raise asyncio.CancelledError
            elif task.exception() is not None:
                raise task.exception()  # type: ignore[misc]
        order = {spec.run_id: index for index, spec in enumerate(batch)}
        return sorted(published, key=lambda record: order.get(record.run_id, len(order)))

    async def _prepare(self, batch: list[RunSpec]) -> None:
        """Connect to every host of a group before any of its runs starts (errors surface at start)."""
        transports = {id(t): t for t in (self.transport_for(s.host) for s in batch)}.values()
        await asyncio.gather(*(t.prepare() for t in transports), return_exceptions=True)

    async def run_one(self, spec: RunSpec, published: list[ResultRecord] | None = None) -> ResultRecord:
        """Run one spec (after its delay) with the runner of its kind and publish its record (also
        appended to ``published``)."""
        runner = self.runner_for(spec.kind)
        launch_group.set(spec.group or spec.run_id)  # this task's context only: one run, or its batch
        try:
            if spec.delay_s > 0:
                await self._delay(spec)
            record = await runner(self, spec)
        except (Interrupted, asyncio.CancelledError) as exc:
            # A runner that let the cancellation through without recording the run gets a record here,
            # so every run that started ends in exactly one RunFinished.
            record = exc.record if isinstance(exc, Interrupted) else \
                record_for(spec, INTERRUPTED, ended_at=utc_now_iso(), error="interrupted by the user (Ctrl-C)")
            attribute_interruption(record, self.stopped_by)
            record = self._finish(record, published)
            task = asyncio.current_task()
            if not self._stopping or task is None:
                raise asyncio.CancelledError from None  # cancelled from outside: keep cancelling
            task.uncancel()  # our own stop(): the interruption is recorded, not propagated
            return record
        return self._finish(record, published)

    def _finish(self, record: ResultRecord, published: list[ResultRecord] | None) -> ResultRecord:
        """Publish a run's RunFinished (the journal, first subscriber, has it on disk after this);
        returns the record as published (passwords masked)."""
        event = self._mask(RunFinished(record=record))
        self.bus.publish(event)
        if published is not None:
            published.append(event.record)
        return event.record

    async def _delay(self, spec: RunSpec) -> None:
        """Wait the run's delay; a stop while waiting records the run as interrupted (never started)."""
        self.publish(RunDelayed(spec=spec, delay_s=spec.delay_s))
        started_at = utc_now_iso()
        try:
            await asyncio.sleep(spec.delay_s)
        except asyncio.CancelledError:
            raise Interrupted(record_for(spec, INTERRUPTED, started_at=started_at, ended_at=utc_now_iso(),
                                         error=f"stopped during its {spec.delay_s:g}s delay, before it "
                                               "started")) from None

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
