"""Pre, post and comment commands around a run, on the run's own host.

Order, as in tgftp: the **pre** command runs before timing starts (a failing one fails the run and the
transfer is not started, unless it says ``on_failure: continue``: then, as in tgftp, which ignored its
exit status, the transfer runs and a warning is published); the transfer; the **comment
command**, whose standard output becomes the run's comment (after any plain ``comment``); the **post**
command, only after a successful transfer. Each command's argv, exit code, output and duration are
kept in the record under ``details["commands"]``.

Commands start through ``ctx.transport_for(spec.host)``, like the transfer itself, so they run
where the test runs, local or remote, and never through a shell unless the scenario asked for one
(see :mod:`gftpwb.core.commands`).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import asdict, dataclass
from typing import Any

from gftpwb.core.commands import Command
from gftpwb.core.events import Notice, RunStarted
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, ResultRecord, bound_output
from gftpwb.core.runrecord import record_for
from gftpwb.core.specs import RunSpec
from gftpwb.core.transport import StartError, Transport
from gftpwb.core.units import format_duration

from .context import Interrupted, RunContext, Runner, Tee, utc_now_iso

COMMAND_OUTPUT_LIMIT = 16 * 1024  # characters of each stream kept per command


@dataclass
class CommandResult:
    role: str  # "pre", "post" or "comment_command"
    command: str  # as a person reads it
    argv: list[str]
    exit_code: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    error: str = ""  # could not start, timed out, interrupted

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and not self.error

    def summary(self) -> str:
        """One line on why it failed: the reason, then the last line it wrote to stderr."""
        why = self.error or f"exit status {self.exit_code}"
        last = next((line.strip() for line in reversed(self.stderr.splitlines()) if line.strip()), "")
        return f"{why}: {last}" if last and last not in why else why

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


async def run_command(transport: Transport, command: Command, role: str, *, kill_grace_s: float = 2.0,
                      tee: Tee | None = None) -> CommandResult:
    """Run ``command`` to its end (or its timeout). Cancelling stops it, then re-raises. ``tee`` gets a
    copy of its output as it comes."""
    argv = list(command.program_argv())
    t0 = time.monotonic()
    try:
        proc = await transport.start(argv)
    except StartError as exc:
        return CommandResult(role, command.text(), argv, None, "", "", round(time.monotonic() - t0, 6),
                             error=f"could not start: {exc}")
    chunks: dict[str, list[bytes]] = {"stdout": [], "stderr": []}
    timed_out = False
    try:
        async with asyncio.timeout(command.timeout_s):
            async for stream, data in proc.output():
                chunks.setdefault(stream, []).append(data)
                if tee is not None:
                    tee(role, stream, data)
            exit_code: int | None = await proc.wait()
    except TimeoutError:
        timed_out = True
        await proc.stop(kill_grace_s)
        exit_code = await proc.wait()
    except asyncio.CancelledError:
        await asyncio.shield(proc.stop(kill_grace_s))
        raise

    def text(stream: str) -> str:
        return bound_output(b"".join(chunks.get(stream, [])).decode("utf-8", errors="replace"), COMMAND_OUTPUT_LIMIT)

    error = f"timed out after {format_duration(command.timeout_s or 0)}" if timed_out else ""
    return CommandResult(role, command.text(), argv, exit_code, text("stdout"), text("stderr"),
                         round(time.monotonic() - t0, 6), timed_out=timed_out, error=error)


def _record_without_transfer(spec: RunSpec, status: str, error: str, started_at: str) -> ResultRecord:
    """The record of a run whose transfer never started (its pre command failed or was interrupted)."""
    return record_for(spec, status, started_at=started_at, ended_at=utc_now_iso(), error=error)


def with_commands(runner: Runner) -> Runner:
    """Wrap a runner so the spec's pre, comment and post commands run around it."""

    async def run(ctx: RunContext, spec: RunSpec) -> ResultRecord:
        if spec.pre is None and spec.post is None and spec.comment_command is None:
            return await runner(ctx, spec)
        transport = ctx.transport_for(spec.host)
        done: dict[str, Any] = {}

        async def step(command: Command, role: str, record: ResultRecord | None) -> CommandResult:
            try:
                result = await run_command(transport, command, role, kill_grace_s=ctx.kill_grace_s,
                                           tee=ctx.tee)
            except asyncio.CancelledError:
                done[role] = {"role": role, "command": command.text(), "error": "interrupted by the user"}
                if record is None:
                    record = _record_without_transfer(spec, INTERRUPTED, f"interrupted by the user (Ctrl-C) during "
                                                                         f"the {role} command", utc_now_iso())
                record.details["commands"] = done
                raise Interrupted(record) from None
            done[role] = result.to_dict()
            return result

        if spec.pre is not None:
            started_at = utc_now_iso()
            pre = await step(spec.pre, "pre", None)
            if not pre.ok and spec.pre.on_failure == "continue":
                ctx.publish(Notice(level="warning", text=f"{spec.run_id}: pre command failed ({pre.summary()}); "
                                                         "the transfer runs anyway (on_failure: continue)"))
            elif not pre.ok:
                record = _record_without_transfer(spec, FAILED, f"pre command failed ({pre.summary()}); the "
                                                                f"transfer was not started", started_at)
                record.details["commands"] = done
                ctx.publish(RunStarted(spec=spec, argv=spec.argv, started_at=started_at))
                return record
        try:
            record = await runner(ctx, spec)
        except Interrupted as exc:
            exc.record.details["commands"] = done
            raise
        if spec.comment_command is not None:
            result = await step(spec.comment_command, "comment_command", record)
            text = result.stdout.rstrip("\n")
            record.comment = "\n".join(part for part in (record.comment, text) if part)
            if not result.ok:
                ctx.publish(Notice(level="warning", text=f"{spec.run_id}: comment command failed "
                                                              f"({result.summary()})"))
        if spec.post is not None and record.status == PASSED:
            result = await step(spec.post, "post", record)
            if not result.ok:
                ctx.publish(Notice(level="warning", text=f"{spec.run_id}: post command failed "
                                                              f"({result.summary()}); the run still counts as "
                                                              "passed"))
        record.details["commands"] = done
        return record

    run.__name__ = f"with_commands({getattr(runner, '__name__', 'runner')})"
    return run
