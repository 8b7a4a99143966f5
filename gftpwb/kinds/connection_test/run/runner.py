"""The runner of connection tests: guc -dbg -vb -len 1; the record says which step failed
(``details["connection_test"]``)."""

from __future__ import annotations

from gftpwb.core.records import ResultRecord
from gftpwb.core.specs import RunSpec
from gftpwb.kinds.connection_test.driver import ConnectionTestRun
from gftpwb.kinds.guc.driver import unbuffered
from gftpwb.shell.commands import with_commands
from gftpwb.shell.context import Interrupted, RunContext
from gftpwb.shell.runners import run_process


async def run_connection_test(ctx: RunContext, spec: RunSpec) -> ResultRecord:
    argv = unbuffered(spec.argv) if ctx.unbuffer else spec.argv
    session = ConnectionTestRun()
    try:
        record = await run_process(ctx, spec, session, argv)
    except Interrupted as exc:
        exc.record.details["connection_test"] = session.details()
        raise
    record.details["connection_test"] = session.details()
    return record


run = with_commands(run_connection_test)
