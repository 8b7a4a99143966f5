"""Runners: how a run of each kind is carried out on a transport.

``run_process`` is the common path for kinds that run one program and read its output: it starts
argv on the spec's host, feeds every chunk to a pure driver *session* (feed/close/outcome), turns the
session's items into events, and applies the timeout and stop rules. A kind with a different shape
(several processes, a strategy deciding the next run) writes its own runner and registers it in
``DEFAULT_RUNNERS``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Protocol

from gftpwb.core.events import OutputLine, Progress, RunStarted
from gftpwb.core.records import INTERRUPTED, ResultRecord
from gftpwb.core.specs import RunSpec
from gftpwb.kinds.connection_test.driver import ConnectionTestRun
from gftpwb.kinds.gfapi.run.runner import GfapiRunner
from gftpwb.kinds.guc.driver import GucRun, Outcome, unbuffered
from gftpwb.kinds.guc.output import ProgressSample, TextLine
from gftpwb.shell.transports.local import ProcessLost, StartError

from .commands import with_commands
from .executor import Executor, Interrupted, Runner, utc_now_iso


class Session(Protocol):
    """A pure driver session: bytes in, items out, and an outcome once the process has ended."""

    def feed(self, stream: str, data: bytes) -> Sequence[object]: ...
    def close(self) -> Sequence[object]: ...
    def outcome(self, exit_code: int | None, wall_seconds: float, *, timed_out: bool = False,
                interrupted: bool = False, timeout_s: float | None = None, start_error: str = "") -> Outcome: ...


def make_record(spec: RunSpec, outcome: Outcome, *, started_at: str, ended_at: str, seconds: float,
                exit_code: int | None) -> ResultRecord:
    return ResultRecord(
        scenario=spec.scenario, test_id=spec.test_id, run_id=spec.run_id, case=spec.case, repeat=spec.repeat,
        kind=spec.kind, host=spec.host, argv=list(spec.argv), status=outcome.status, params=dict(spec.params),
        started_at=started_at, ended_at=ended_at, seconds=seconds, bytes=outcome.bytes,
        rate_incl_setup_mib_s=outcome.rate_incl_setup_mib_s, rate_guc_avg_mib_s=outcome.rate_guc_avg_mib_s,
        exit_code=exit_code, error=outcome.error, output=outcome.output, comment=spec.comment, engine=spec.engine,
        taglog=spec.taglog_name,
    )


def emit_items(executor: Executor, spec: RunSpec, items: Sequence[object], t0: float) -> None:
    for item in items:
        if isinstance(item, ProgressSample):
            executor.publish(Progress(run_id=spec.run_id, bytes=item.bytes, rate_avg_mib_s=item.avg_mib_s,
                                      rate_inst_mib_s=item.inst_mib_s, elapsed_s=time.monotonic() - t0,
                                      length_bytes=spec.length_bytes))
        elif isinstance(item, TextLine):
            executor.publish(OutputLine(run_id=spec.run_id, stream=item.stream, text=item.text))


async def run_process(executor: Executor, spec: RunSpec, session: Session,
                      argv: Sequence[str] | None = None) -> ResultRecord:
    """Run ``argv`` (default: the spec's) on the spec's host and let ``session`` judge the outcome.

    Raises :class:`Interrupted` (with the record) when stopped; the executor publishes it.
    """
    transport = executor.transport_for(spec.host)
    started_at = utc_now_iso()
    t0 = time.monotonic()
    executor.publish(RunStarted(spec=spec, argv=spec.argv, started_at=started_at))
    exit_code: int | None = None
    timed_out = interrupted = False
    start_error = ""
    proc = None
    try:
        proc = await transport.start(list(argv or spec.argv))
    except StartError as exc:
        start_error = str(exc)
    except asyncio.CancelledError:
        interrupted = True
    if proc is not None:
        try:
            try:
                async with asyncio.timeout(spec.timeout_s):
                    async for stream, data in proc.output():
                        emit_items(executor, spec, session.feed(stream, data), t0)
                    exit_code = await proc.wait()
            except TimeoutError:
                timed_out = True
                await proc.stop(executor.kill_grace_s)
                exit_code = await proc.wait()
            except asyncio.CancelledError:
                interrupted = True
                await asyncio.shield(proc.stop(executor.kill_grace_s))
                exit_code = await asyncio.shield(proc.wait())
        except ProcessLost as exc:  # a remote host dropped out: this run fails with the reason
            if not (timed_out or interrupted):
                start_error = str(exc)
    seconds = round(time.monotonic() - t0, 6)  # µs: the record and its rate use the same figure
    ended_at = utc_now_iso()
    emit_items(executor, spec, session.close(), t0)
    outcome = session.outcome(exit_code, seconds, timed_out=timed_out, interrupted=interrupted,
                              timeout_s=spec.timeout_s, start_error=start_error)
    record = make_record(spec, outcome, started_at=started_at, ended_at=ended_at, seconds=seconds,
                         exit_code=exit_code)
    if record.status == INTERRUPTED:
        raise Interrupted(record)
    return record


async def run_guc(executor: Executor, spec: RunSpec) -> ResultRecord:
    if spec.engine == "simulated":
        from gftpwb.kinds.simulated.run.runner import run_simulated_guc

        return await run_simulated_guc(executor, spec)
    argv = unbuffered(spec.argv) if executor.unbuffer else spec.argv
    return await run_process(executor, spec, GucRun(length_bytes=spec.length_bytes), argv)


async def run_connection_test(executor: Executor, spec: RunSpec) -> ResultRecord:
    """guc -dbg -vb -len 1; the record says which step failed (details["connection_test"])."""
    argv = unbuffered(spec.argv) if executor.unbuffer else spec.argv
    session = ConnectionTestRun()
    try:
        record = await run_process(executor, spec, session, argv)
    except Interrupted as exc:
        exc.record.details["connection_test"] = session.details()
        raise
    record.details["connection_test"] = session.details()
    return record


# with_commands adds the spec's pre, comment and post commands around a runner.
async def _run_autotune(executor: Executor, spec: RunSpec) -> ResultRecord:
    from gftpwb.kinds.autotune.run.runner import run_autotune

    return await run_autotune(executor, spec)


DEFAULT_RUNNERS: dict[str, Runner] = {
    "guc": with_commands(run_guc),
    "connection-test": with_commands(run_connection_test),
    "autotune": _run_autotune,  # runs its transfers through run_guc itself
    "gfapi": GfapiRunner(),  # its own runner module; no pre/post commands (not in its DSL keys)
}
