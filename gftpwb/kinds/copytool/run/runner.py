"""The runner of the copy-tool kinds: the tool once per run on the spec's host, with a terminal as its
stdout (its progress needs one: :mod:`gftpwb.kinds.copytool.relay`); ``files:`` test files made
before and removed after it (guc's machinery), and the spec's pre, comment and post commands around."""

from __future__ import annotations

from gftpwb.core.records import ResultRecord
from gftpwb.core.specs import RunSpec
from gftpwb.kinds.copytool.relay import with_terminal
from gftpwb.kinds.copytool.session import CopyRun
from gftpwb.kinds.copytool.tool import Tool
from gftpwb.kinds.guc.run.files import with_files
from gftpwb.shell.commands import with_commands
from gftpwb.shell.context import RunContext, Runner
from gftpwb.shell.runners import run_process


def copy_runner(tool: Tool) -> Runner:
    """The whole runner of a copy-tool kind (timeouts, Ctrl-C and the process group: ``run_process``)."""

    async def run_copy(ctx: RunContext, spec: RunSpec) -> ResultRecord:
        session = CopyRun(tool, length_bytes=spec.length_bytes)
        return await run_process(ctx, spec, session, with_terminal(spec.argv))

    run_copy.__name__ = f"run_{tool.kind}"
    return with_commands(with_files(run_copy))
