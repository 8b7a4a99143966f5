"""The runner of guc tests: one globus-url-copy per run on the spec's host, or, with another
``engine:``, that engine's runner; the test files of a disk-to-disk run (``files:``) made before and
removed after it, and the spec's pre, comment and post commands around all that."""

from __future__ import annotations

from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import registry
from gftpwb.core.specs import REAL_ENGINE, RunSpec
from gftpwb.core.trace.setting import TraceSetting
from gftpwb.kinds.guc.driver import GucRun, unbuffered, with_debug
from gftpwb.kinds.guc.run.files import with_files
from gftpwb.shell.commands import with_commands
from gftpwb.shell.context import RunContext
from gftpwb.shell.runners import run_process


async def run_guc(ctx: RunContext, spec: RunSpec) -> ResultRecord:
    """One guc transfer (real or on the spec's engine), no commands."""
    if spec.engine != REAL_ENGINE:
        return await registry().engine_runner(spec.engine)(ctx, spec)
    argv = spec.argv
    if TraceSetting.of_details(spec.details).on:  # traced: the phases come from guc's -dbg conversation
        argv = with_debug(argv)
    argv = unbuffered(argv) if ctx.unbuffer else argv
    session = GucRun(length_bytes=spec.length_bytes, per_stripe=bool(spec.params.get("stripe")))
    return await run_process(ctx, spec, session, argv)


run = with_commands(with_files(run_guc))
