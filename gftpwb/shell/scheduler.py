"""The scheduler: runs a plan's tests when the :class:`~gftpwb.core.harness.agenda.Agenda` says so.

It is the asynchronous side of the pure agenda: it starts each unit (a test's runs in one pass of the
suite) as a task, at most ``concurrent_tests`` at once, records the runs of a unit whose needs did not
pass as ``skipped`` with the reason, and after each batch that ran together (copies, hosts) publishes
their aggregate. Inside a unit, runs go batch by batch through the executor (a batch: one run, or the
runs that start together: a run on several hosts, the copies of a run), skipping runs an earlier
attempt finished.

When the executor is stopped (Ctrl-C) nothing more starts; the units in flight end with their runs
recorded as interrupted, and units that never started get no record (``--resume`` runs them).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Protocol

from gftpwb.core.events import CopiesFinished, Event, ExpectationsChecked, RunFinished
from gftpwb.core.expect import check_cases
from gftpwb.core.harness.agenda import Agenda, Schedule, Unit, outcome_of, units_of
from gftpwb.core.harness.aggregate import aggregate
from gftpwb.core.records import FINAL_STATUSES, INTERRUPTED, SKIPPED, ResultRecord
from gftpwb.core.runrecord import record_for
from gftpwb.core.specs import RunSpec
from gftpwb.core.summary import summarize_cases


class BatchRunner(Protocol):
    """What the scheduler uses of the executor (which implements it)."""

    @property
    def stopping(self) -> bool: ...

    def publish(self, event: Event) -> None: ...

    async def run_batch(self, batch: list[RunSpec]) -> list[ResultRecord]: ...


def batches(specs: Iterable[RunSpec]) -> list[list[RunSpec]]:
    """Consecutive specs of one non-empty group form a batch; every other spec is a batch alone."""
    out: list[list[RunSpec]] = []
    for spec in specs:
        if out and spec.group and out[-1][0].group == spec.group:
            out[-1].append(spec)
        else:
            out.append([spec])
    return out


def ran_together(batch: list[RunSpec]) -> bool:
    """Whether a batch's runs get an aggregate: a run's copies, or a test's runs on several hosts at once."""
    return len(batch) > 1 or any(s.harness is not None and s.harness.copy is not None for s in batch)


class Scheduler:
    """One scenario run's schedule, driven on the executor (see the module docstring)."""

    def __init__(self, executor: BatchRunner, specs: Iterable[RunSpec], schedule: Schedule,
                 done: frozenset[str], earlier: dict[str, ResultRecord]):
        self.executor = executor
        self.units = units_of(specs)
        self.agenda = Agenda(self.units, schedule)
        self.done = done
        self.final: dict[str, ResultRecord] = dict(earlier)  # the latest final record of each run id
        self.records: list[ResultRecord] = []  # this attempt's records of planned runs
        self.expect = schedule.expect
        self.units_left: dict[str, int] = {}  # test id -> its units not finished yet
        for unit in self.units:
            self.units_left[unit.test_id] = self.units_left.get(unit.test_id, 0) + 1
        self.violations = 0

    async def run(self) -> list[ResultRecord]:
        tasks: dict[asyncio.Task[str], Unit] = {}
        try:
            while not self.agenda.finished:
                decisions = [] if self.executor.stopping else self.agenda.next()
                for decision in decisions:
                    if decision.skip:
                        self.agenda.finish(decision.unit, self.skip(decision.unit, decision.skip))
                        self.unit_ended(decision.unit)
                    else:
                        tasks[asyncio.create_task(self.run_unit(decision.unit))] = decision.unit
                if not tasks:
                    if decisions:
                        continue  # only skips: they may have let other units start
                    break  # stopped: nothing more starts
                finished, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                for task in finished:
                    unit = tasks.pop(task)
                    self.agenda.finish(unit, task.result())
                    self.unit_ended(unit)
        except asyncio.CancelledError:  # cancelled from outside: every unit in flight records itself
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        return self.records

    def unit_ended(self, unit: Unit) -> None:
        """When the last unit of a test ends with every run of the test final (not stopped), check the
        test's thresholds on its cases and publish the checks."""
        self.units_left[unit.test_id] -= 1
        expectations = self.expect.get(unit.test_id)
        if self.units_left[unit.test_id] or not expectations or self.executor.stopping:
            return
        specs = [s for u in self.units if u.test_id == unit.test_id for s in u.specs]
        if any(s.run_id not in self.final for s in specs):
            return  # a run was interrupted: --resume finishes the test and checks it then
        records = [self.final[s.run_id] for s in specs]
        checks = check_cases(unit.test_id, expectations, summarize_cases(records, {unit.test_id: specs[0].kind}))
        self.violations += sum(1 for c in checks if not c.ok)
        when = datetime.now(UTC).isoformat(timespec="seconds")
        self.executor.publish(ExpectationsChecked(test_id=unit.test_id, checks=tuple(checks), checked_at=when))

    def _keep(self, records: Iterable[ResultRecord]) -> None:
        for record in records:
            self.records.append(record)
            if record.status in FINAL_STATUSES:
                self.final[record.run_id] = record

    def skip(self, unit: Unit, reason: str) -> str:
        """Record every run of ``unit`` that is not done yet as skipped, with ``reason``."""
        for spec in unit.specs:
            if spec.run_id in self.done:
                continue
            record = dataclasses.replace(record_for(spec, SKIPPED, error=reason), taglog="")
            self.executor.publish(RunFinished(record=record))
            self._keep([record])
        return SKIPPED

    async def run_unit(self, unit: Unit) -> str:
        """Run a unit's batches in order; returns its outcome (see :func:`outcome_of`)."""
        for batch in batches(unit.specs):
            todo = [s for s in batch if s.run_id not in self.done]
            if not todo:
                continue
            if self.executor.stopping:
                break
            self._keep(await self.executor.run_batch(todo))
            if ran_together(batch):
                self.publish_copies(batch)
        return outcome_of(self.final[s.run_id].status if s.run_id in self.final else INTERRUPTED
                          for s in unit.specs)

    def publish_copies(self, batch: list[RunSpec]) -> None:
        """The aggregate of a batch that ran together (copies, hosts), once every run of it (of this or an
        earlier attempt) is final."""
        finals = [self.final.get(s.run_id) for s in batch]
        complete = [r for r in finals if r is not None]
        group = batch[0].group
        summary = aggregate(group, complete) if len(complete) == len(batch) else None
        self.executor.publish(CopiesFinished(group=group, run_ids=tuple(s.run_id for s in batch), aggregate=summary))
