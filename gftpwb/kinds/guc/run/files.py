"""Disk-to-disk runs (``files:``): make the test files, drop the caches, transfer, verify, clean up.

The steps' shell code is in :class:`gftpwb.kinds.guc.files.FileSet`; here it runs on the hosts the
files live on, through the run's own transports (SSH for inventory hosts), as ``sh -c``. Preparing
happens before the run's clock starts; a failed preparation fails the run without starting guc.
The record's ``details.files`` says what was made, whether the caches were dropped (or why not), the
verification and the clean-up.
"""

from __future__ import annotations

import asyncio
import shlex
import time
from typing import Any

from gftpwb.core.commands import Command
from gftpwb.core.events import Notice, RunStarted
from gftpwb.core.records import FAILED, PASSED, ResultRecord
from gftpwb.core.runrecord import record_for
from gftpwb.core.specs import RunSpec
from gftpwb.kinds.guc.files import DROP_CACHES, LIST, FileSet, compare, made_directories, unreachable_text
from gftpwb.shell.commands import CommandResult, run_command
from gftpwb.shell.context import RunContext, Runner, utc_now_iso

SH = "/bin/sh"
PREPARE_TIMEOUT_S = 3600.0  # making large random files takes a while; a hung host must not hang the run


async def sh(ctx: RunContext, host: str, script: str, role: str) -> CommandResult:
    command = Command(script=script, shell=SH, timeout_s=PREPARE_TIMEOUT_S)
    return await run_command(ctx.transport_for(host), command, role, kill_grace_s=ctx.kill_grace_s)


def _failed(spec: RunSpec, error: str, started_at: str, info: dict[str, Any]) -> ResultRecord:
    record = record_for(spec, FAILED, started_at=started_at, ended_at=utc_now_iso(), error=error)
    record.details["files"] = info
    return record


async def drop_caches(ctx: RunContext, hosts: list[str]) -> dict[str, str]:
    """Each host: "dropped", or why not (not root, read-only /proc)."""
    results = await asyncio.gather(*(sh(ctx, host, DROP_CACHES, "drop_caches") for host in hosts))
    return {host: "dropped" if r.ok else f"not dropped: {r.summary()}" for host, r in zip(hosts, results, strict=True)}


def with_files(runner: Runner) -> Runner:
    """Wrap a guc runner so a spec with ``details.files`` runs on test files gftpwb makes and removes."""

    async def run(ctx: RunContext, spec: RunSpec) -> ResultRecord:
        data = spec.details.get("files")
        if not data:
            return await runner(ctx, spec)
        files = FileSet.from_dict(data)
        info: dict[str, Any] = {**data}
        started_at = utc_now_iso()
        t0 = time.monotonic()
        made = await asyncio.gather(sh(ctx, files.source_host, files.create_script(), "create"),
                                    sh(ctx, files.target_host, files.target_script(), "target"))
        if files.transfer == LIST:
            write = f"cat > {shlex.quote(data['list'])} <<'GFTPWB_LIST'\n{files.list_text()}GFTPWB_LIST\n"
            made.append(await sh(ctx, spec.host, write, "list"))
        info["prepare_s"] = round(time.monotonic() - t0, 3)
        info["made_dirs"] = {"source": made_directories(made[0].stdout), "target": made_directories(made[1].stdout)}
        bad = next((r for r in made if not r.ok), None)
        try:
            unreachable = next((text for r, host in zip(made, (files.source_host, files.target_host), strict=False)
                                for text in [unreachable_text(r.stdout, host)] if text), None)
            if bad is not None:
                ctx.publish(RunStarted(spec=spec, argv=spec.argv, started_at=started_at))
                return _failed(spec, unreachable or f"could not prepare the test files ({bad.role}: {bad.summary()}); "
                                                    "the transfer was not started", started_at, info)
            if files.drop_caches:
                info["caches"] = await drop_caches(ctx, sorted({files.source_host, files.target_host}))
                if any(v != "dropped" for v in info["caches"].values()):
                    ctx.publish(Notice(level="warning", text=f"{spec.run_id}: page cache not dropped on every "
                                                                  f"host ({info['caches']}); reads may come "
                                                                  "from memory"))
            record = await runner(ctx, spec)
            if record.status == PASSED:
                source, target = await asyncio.gather(sh(ctx, files.source_host, files.verify_script("source"),
                                                         "verify"),
                                                      sh(ctx, files.target_host, files.verify_script("target"),
                                                         "verify"))
                problems = compare(files, source.stdout, target.stdout) if source.ok and target.ok else [
                    f"could not list the files ({(source if not source.ok else target).summary()})"]
                info["verified"] = problems if problems else files.verify
                if problems:
                    record.status = FAILED
                    record.error = "the files arrived wrong: " + "; ".join(problems[:5])
            record.details["files"] = info
            return record
        finally:
            await asyncio.shield(cleanup(ctx, spec, files, info))

    run.__name__ = f"with_files({getattr(runner, '__name__', 'runner')})"
    return run


async def cleanup(ctx: RunContext, spec: RunSpec, files: FileSet, info: dict[str, Any]) -> None:
    """Remove the files and directories the run made (and its list); a failure is a warning."""
    made = info.get("made_dirs") or {}
    steps = [sh(ctx, files.source_host, files.cleanup_script("source", made.get("source")), "cleanup"),
             sh(ctx, files.target_host, files.cleanup_script("target", made.get("target")), "cleanup")]
    if files.transfer == LIST:
        steps.append(sh(ctx, spec.host, f"rm -f {shlex.quote(info['list'])}", "cleanup"))
    results = await asyncio.gather(*steps, return_exceptions=True)
    failed = [r if isinstance(r, BaseException) else r.summary() for r in results
              if isinstance(r, BaseException) or not r.ok]
    info["cleaned_up"] = not failed
    if failed:
        ctx.publish(Notice(level="warning", text=f"{spec.run_id}: could not remove the test files: {failed[0]}"))
