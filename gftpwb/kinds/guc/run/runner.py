"""The runner of guc tests: one globus-url-copy per run on the spec's host, or, with another
``engine:``, that engine's runner; the test files of a disk-to-disk run (``files:``) made before and
removed after it, and the spec's pre, comment and post commands around all that.

A ``tgftp_style`` spec runs as tgftp 0.7.0 did: guc's stdout stays buffered (tgftp's FIFO), and
after a successful transfer it is listed with ``globus-url-copy -do`` for the tag log."""

from __future__ import annotations

import contextlib
import os

from gftpwb.core.records import PASSED, ResultRecord
from gftpwb.core.registry import registry
from gftpwb.core.scenario.model import LOCAL
from gftpwb.core.specs import REAL_ENGINE, RunSpec
from gftpwb.core.trace.setting import TraceSetting
from gftpwb.core.transport import StartError
from gftpwb.kinds.guc.driver import unbuffered, with_debug
from gftpwb.kinds.guc.run.files import with_files
from gftpwb.kinds.guc.run.size import learn_size
from gftpwb.kinds.guc.session import GucRun
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
    quiet = argv != spec.argv  # -dbg is ours, not the user's: its per-buffer lines are not published
    # A tgftp-style run leaves guc's stdout buffered, as tgftp's FIFO did: its output then reads as
    # tgftp logged it (stderr first, stdout at exit), at the price of no live progress.
    argv = unbuffered(argv) if ctx.unbuffer and not spec.tgftp_style else argv
    session = GucRun(length_bytes=spec.length_bytes, per_stripe=bool(spec.params.get("stripe")),
                     quiet_data_debug=quiet)
    record = await run_process(ctx, spec, session, argv)
    if spec.tgftp_style and record.status == PASSED:
        await list_transfer(ctx, spec, record)
    if record.status == PASSED:
        await learn_size(ctx, spec, record)
    return record


async def list_transfer(ctx: RunContext, spec: RunSpec, record: ResultRecord) -> None:
    """tgftp 0.7.0's listing after a successful transfer: ``globus-url-copy -do <PID>_transferList ...``
    (outside the timing). Its text goes to ``details["transfer_list"]`` for the tag log's LIST tag (and
    the size of a transfer without -len); the file is removed again (tgftp left it behind)."""
    from gftpwb.tgftp.model import length_texts, listing_argv, listing_text, listing_wanted

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
        code = None
        try:
            proc = await ctx.transport_for(spec.host).start(list(argv))
            async for _stream, _data in proc.output():
                pass
            code = await proc.wait()
        except StartError as exc:
            record.details["transfer_list_error"] = str(exc)
        try:
            with open(list_file, encoding="utf-8", errors="surrogateescape") as handle:
                text = listing_text(handle.read()) if code == 0 else ""
        except OSError:
            text = ""
        with contextlib.suppress(OSError):
            os.remove(list_file)
    record.details["transfer_list"] = text.rstrip("\n")


run = with_commands(with_files(run_guc))
