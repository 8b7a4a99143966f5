"""The common runner path for kinds that run one program per run and read its output.

``run_process`` starts argv on the spec's host, feeds every chunk to a pure session
(:class:`gftpwb.core.output.Session`: feed/close/outcome), turns the session's items into events,
and applies the timeout and stop rules; the record comes from :func:`gftpwb.core.runrecord.record_for`.
A kind with another shape (several processes, a strategy deciding the next run) writes its own
runner against :class:`gftpwb.shell.context.RunContext`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Sequence
from typing import Any

from gftpwb.core.events import OutputLine, Progress, RunStarted
from gftpwb.core.output import Outcome, ParsedItem, ProgressSample, Session, TextLine
from gftpwb.core.records import INTERRUPTED, ResultRecord
from gftpwb.core.runrecord import record_for
from gftpwb.core.specs import RunSpec
from gftpwb.core.transport import ProcessLost, StartError

from .context import Interrupted, RunContext, run_program, utc_now_iso


def record_of(spec: RunSpec, outcome: Outcome, *, started_at: str, ended_at: str, seconds: float,
              exit_code: int | None) -> ResultRecord:
    """The record of a run whose session judged it ``outcome``."""
    return record_for(spec, outcome.status, started_at=started_at, ended_at=ended_at, seconds=seconds,
                      bytes=outcome.bytes, rate_incl_setup_mib_s=outcome.rate_incl_setup_mib_s,
                      rate_guc_avg_mib_s=outcome.rate_guc_avg_mib_s, exit_code=exit_code, error=outcome.error,
                      output=outcome.output, details=dict(outcome.details))


def emit_items(ctx: RunContext, spec: RunSpec, items: Sequence[ParsedItem], t0: float) -> None:
    for item in items:
        if isinstance(item, ProgressSample):
            ctx.publish(Progress(run_id=spec.run_id, bytes=item.bytes, rate_avg_mib_s=item.avg_mib_s,
                                 rate_inst_mib_s=item.inst_mib_s, elapsed_s=time.monotonic() - t0,
                                 length_bytes=spec.length_bytes, channel=item.channel))
        elif isinstance(item, TextLine):
            ctx.publish(OutputLine(run_id=spec.run_id, stream=item.stream, text=item.text))


async def unstoppable(coro: Any) -> None:
    """Run a clean-up (stopping a run's processes) to its end even if the run is cancelled again
    meanwhile (Ctrl-C pressed twice): a runner with processes of its own awaits its stop so."""
    task = asyncio.ensure_future(coro)
    while not task.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(task)
    task.result()


async def run_process(ctx: RunContext, spec: RunSpec, session: Session,
                      argv: Sequence[str] | None = None) -> ResultRecord:
    """Run ``argv`` (default: the spec's) on the spec's host and let ``session`` judge the outcome.

    Raises :class:`Interrupted` (with the record) when stopped; the executor publishes it.
    """
    transport = ctx.transport_for(spec.host)
    started_at = utc_now_iso()
    t0 = time.monotonic()
    ctx.publish(RunStarted(spec=spec, argv=spec.argv, started_at=started_at))
    exit_code: int | None = None
    timed_out = interrupted = False
    start_error = ""
    proc = None
    marked = run_program.set(True)
    try:
        proc = await transport.start(list(argv or spec.argv))
    except StartError as exc:
        start_error = str(exc)
    except asyncio.CancelledError:
        interrupted = True
    finally:
        run_program.reset(marked)
    if proc is not None:
        proc.read_pause = getattr(session, "read_pause_s", None)  # a session's optional hint (guc's)
        try:
            try:
                async with asyncio.timeout(spec.timeout_s):
                    async for stream, data in proc.output():
                        if ctx.tee is not None:
                            ctx.tee("transfer", stream, data)
                        emit_items(ctx, spec, session.feed(stream, data), t0)
                    exit_code = await proc.wait()
            except TimeoutError:
                timed_out = True
                await proc.stop(ctx.kill_grace_s)
                exit_code = await proc.wait()
            except asyncio.CancelledError:
                interrupted = True
                await asyncio.shield(proc.stop(ctx.kill_grace_s))
                exit_code = await asyncio.shield(proc.wait())
        except ProcessLost as exc:  # a remote host dropped out: this run fails with the reason
            if not (timed_out or interrupted):
                start_error = str(exc)
    seconds = round(time.monotonic() - t0, 6)  # µs: the record and its rate use the same figure
    ended_at = utc_now_iso()
    emit_items(ctx, spec, session.close(), t0)
    outcome = session.outcome(exit_code, seconds, timed_out=timed_out, interrupted=interrupted,
                              timeout_s=spec.timeout_s, start_error=start_error)
    record = record_of(spec, outcome, started_at=started_at, ended_at=ended_at, seconds=seconds,
                       exit_code=exit_code)
    if record.status == INTERRUPTED:
        raise Interrupted(record)
    return record
