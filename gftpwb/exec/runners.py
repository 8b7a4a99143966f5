"""Runners: how a run of each kind is carried out on a transport.

``run_process`` is the common path for kinds that run one program and read its output: it starts
argv on the spec's host, feeds every chunk to a pure driver *session* (feed/close/outcome), turns the
session's items into events, and applies the timeout and stop rules. A kind with a different shape
(several processes, a strategy deciding the next run) writes its own runner and registers it in
``DEFAULT_RUNNERS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Sequence
from typing import Protocol

from ..drivers.connection import ConnectionTestRun
from ..drivers.guc import GucRun, Outcome, unbuffered
from ..drivers.guc_output import ProgressSample, TextLine
from ..dsl.model import LOCAL
from ..events import OutputLine, Progress, RunStarted
from ..records import INTERRUPTED, PASSED, ResultRecord
from ..specs import RunSpec
from ..tgftp_model import length_texts, listing_argv, listing_text, listing_wanted
from .commands import with_commands
from .executor import Executor, Interrupted, Runner, utc_now_iso
from .gfapi_runner import GfapiRunner
from .transport import ProcessLost, StartError


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
        taglog=spec.taglog_name, details=dict(spec.details),
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
                        if executor.tee is not None:
                            executor.tee("transfer", stream, data)
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
        from .simulated import run_simulated_guc

        return await run_simulated_guc(executor, spec)
    # A tgftp-style run leaves guc's stdout buffered, as tgftp's FIFO did: its output then reads as
    # tgftp logged it (stderr first, stdout at exit), at the price of no live progress.
    argv = unbuffered(spec.argv) if executor.unbuffer and not spec.tgftp_style else spec.argv
    record = await run_process(executor, spec, GucRun(length_bytes=spec.length_bytes), argv)
    if spec.tgftp_style and record.kind == "guc" and record.status == PASSED:
        await list_transfer(executor, spec, record)
    return record


async def list_transfer(executor: Executor, spec: RunSpec, record: ResultRecord) -> None:
    """tgftp 0.7.0's listing after a successful transfer: ``globus-url-copy -do <PID>_transferList ...``
    (outside the timing). Its text goes to ``details["transfer_list"]`` for the tag log's LIST tag (and
    the size of a transfer without -len); the file is removed again (tgftp left it behind)."""
    texts = spec.details.get("tgftp", {})
    params = texts.get("params", " ".join(spec.argv[1:-2]))
    if not listing_wanted(params, spec.source, spec.target):
        return
    if texts.get("url_list") and not length_texts(params):  # guc -f LIST without source and target
        try:
            with open(texts["url_list"], encoding="utf-8", errors="surrogateescape") as handle:
                record.details["transfer_list"] = handle.read().rstrip("\n")
        except OSError:
            record.details["transfer_list"] = ""
        return
    list_file = f"{os.getpid()}_transferList"
    argv = listing_argv(spec.source, spec.target, params, list_file)
    text = ""
    if argv is not None and spec.host == LOCAL:
        transport = executor.transport_for(spec.host)
        try:
            proc = await transport.start(list(argv))
            async for _stream, _data in proc.output():
                pass
            code = await proc.wait()
        except StartError as exc:
            code, record.details["transfer_list_error"] = None, str(exc)
        try:
            with open(list_file, encoding="utf-8", errors="surrogateescape") as handle:
                text = listing_text(handle.read()) if code == 0 else ""
        except OSError:
            text = ""
        with contextlib.suppress(OSError):
            os.remove(list_file)
    record.details["transfer_list"] = text.rstrip("\n")


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
    from .autotune import run_autotune

    return await run_autotune(executor, spec)


DEFAULT_RUNNERS: dict[str, Runner] = {
    "guc": with_commands(run_guc),
    "connection-test": with_commands(run_connection_test),
    "autotune": _run_autotune,  # runs its transfers through run_guc itself
    "gfapi": GfapiRunner(),  # its own runner module; no pre/post commands (not in its DSL keys)
}
