"""The executor: runs planned specs one after another on transports and publishes what happens.

It owns the clocks (a monotonic clock for durations, UTC wall time for timestamps), timeouts and
cancellation; drivers own the meaning of the output. Every run ends in exactly one RunFinished
event, including runs that time out, fail to start or are interrupted by Ctrl-C, so the journal
always holds a record of the run in flight.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Callable
from datetime import UTC, datetime

from ..bus import EventBus
from ..drivers.guc import GucRun, unbuffered
from ..drivers.guc_output import ProgressSample, TextLine
from ..events import OutputLine, Progress, RunFinished, RunStarted, ScenarioFinished, ScenarioStarted
from ..records import ResultRecord, Summary
from ..specs import RunSpec
from .transport import LocalTransport, StartError, Transport


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


class Executor:
    """Runs specs sequentially; ``stop()`` (wired to Ctrl-C) interrupts the run in flight."""

    def __init__(self, bus: EventBus, transport_for: Callable[[str], Transport] | None = None,
                 *, kill_grace_s: float = 2.0, unbuffer: bool | None = None):
        local = LocalTransport()
        self.bus = bus
        self.transport_for = transport_for or (lambda host: local)
        self.kill_grace_s = kill_grace_s
        # Without stdbuf guc's progress arrives only at its exit; results stay the same.
        self.unbuffer = shutil.which("stdbuf") is not None if unbuffer is None else unbuffer
        self._stopping = False
        self._current: asyncio.Task[ResultRecord] | None = None

    def stop(self) -> None:
        """Stop after recording the run in flight as interrupted; no further runs start."""
        self._stopping = True
        if self._current is not None:
            self._current.cancel()

    async def run(self, specs: list[RunSpec], *, results_dir: str, scenario: str,
                  done: frozenset[str] = frozenset(), earlier: list[ResultRecord] | None = None) -> Summary:
        """Run every spec whose id is not in ``done``; ``earlier`` records count in the summary."""
        self.bus.publish(ScenarioStarted(scenario=scenario, results_dir=results_dir, plan=tuple(specs),
                                         skipped_run_ids=done))
        records = list(earlier or [])
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
        self.bus.publish(ScenarioFinished(summary=summary))
        return summary

    async def run_one(self, spec: RunSpec) -> ResultRecord:
        run = GucRun(length_bytes=spec.length_bytes)
        transport = self.transport_for(spec.host)
        started_at = utc_now_iso()
        t0 = time.monotonic()
        self.bus.publish(RunStarted(spec=spec, argv=spec.argv, started_at=started_at))
        exit_code: int | None = None
        timed_out = interrupted = False
        start_error = ""
        proc = None
        try:
            proc = await transport.start(unbuffered(spec.argv) if self.unbuffer else spec.argv)
        except StartError as exc:
            start_error = str(exc)
        except asyncio.CancelledError:
            interrupted = True
        if proc is not None:
            try:
                async with asyncio.timeout(spec.timeout_s):
                    async for stream, data in proc.output():
                        self._emit(spec, run.feed(stream, data), t0)
                    exit_code = await proc.wait()
            except TimeoutError:
                timed_out = True
                await proc.stop(self.kill_grace_s)
                exit_code = await proc.wait()
            except asyncio.CancelledError:
                interrupted = True
                await asyncio.shield(proc.stop(self.kill_grace_s))
                exit_code = await asyncio.shield(proc.wait())
        seconds = round(time.monotonic() - t0, 6)  # µs: the record and its rate use the same figure
        ended_at = utc_now_iso()
        self._emit(spec, run.close(), t0)
        outcome = run.outcome(exit_code, seconds, timed_out=timed_out, interrupted=interrupted,
                              timeout_s=spec.timeout_s, start_error=start_error)
        record = ResultRecord(
            scenario=spec.scenario, test_id=spec.test_id, run_id=spec.run_id, case=spec.case,
            repeat=spec.repeat, kind=spec.kind, host=spec.host, argv=list(spec.argv), status=outcome.status,
            params=dict(spec.params), started_at=started_at, ended_at=ended_at, seconds=seconds,
            bytes=outcome.bytes, rate_incl_setup_mib_s=outcome.rate_incl_setup_mib_s,
            rate_guc_avg_mib_s=outcome.rate_guc_avg_mib_s, exit_code=exit_code, error=outcome.error,
            output=outcome.output, comment=spec.comment, engine=spec.engine, taglog=spec.taglog_name,
        )
        self.bus.publish(RunFinished(record=record))
        if interrupted:
            task = asyncio.current_task()
            if not self._stopping or task is None:
                raise asyncio.CancelledError  # cancelled from outside: keep cancelling
            task.uncancel()  # our own stop(): the interruption is recorded, not propagated
        return record

    def _emit(self, spec: RunSpec, items: list[ProgressSample | TextLine], t0: float) -> None:
        for item in items:
            if isinstance(item, ProgressSample):
                self.bus.publish(Progress(run_id=spec.run_id, bytes=item.bytes, rate_avg_mib_s=item.avg_mib_s,
                                          rate_inst_mib_s=item.inst_mib_s, elapsed_s=time.monotonic() - t0,
                                          length_bytes=spec.length_bytes))
            else:
                self.bus.publish(OutputLine(run_id=spec.run_id, stream=item.stream, text=item.text))
