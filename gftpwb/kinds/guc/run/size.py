"""A passed guc run's size, and where it came from (:mod:`gftpwb.kinds.guc.sizing`): ``-len`` or the
files of a ``files:`` run as planned; a plain copy's by listing its source on guc's host after the
copy (outside its time), through the run's own transport; guc's last progress report, a lower bound
left out of the statistics, only when no listing answers."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence

from gftpwb.core.commands import Command
from gftpwb.core.rates import mib_per_s
from gftpwb.core.records import ResultRecord
from gftpwb.core.specs import RunSpec
from gftpwb.core.transport import Transport
from gftpwb.kinds.guc.sizing import (
    FROM_FILES,
    FROM_LENGTH,
    FROM_LISTING,
    FROM_PROGRESS,
    listed_bytes,
    listing_argv,
)
from gftpwb.shell.commands import CommandResult, run_command
from gftpwb.shell.context import Interrupted, RunContext

LISTING_TIMEOUT_S = 60.0  # one control connection and an MLST per file


async def learn_size(ctx: RunContext, spec: RunSpec, record: ResultRecord) -> None:
    """Give a passed run its bytes and rate where the plan did not know them, and say where they came
    from (``details.size_from``; ``details.size_listing``: the listing's command and outcome)."""
    if spec.length_bytes is not None:
        record.details["size_from"] = FROM_FILES if spec.details.get("files") else FROM_LENGTH
        return
    list_file = f"/tmp/gftpwb-size-{uuid.uuid4().hex}"
    argv = listing_argv(spec.argv, list_file)
    why = "no listing says what this transfer moved (a /dev/zero source, -sync, -t, -c or a URL list)"
    if argv is not None:
        transport = ctx.transport_for(spec.host)
        try:
            listing = await _run(ctx, transport, argv)
            listed = await _run(ctx, transport, ("cat", list_file)) if listing.ok else None
        except asyncio.CancelledError:
            record.details["size_note"] = "stopped while its source was listed for its size"
            raise Interrupted(record) from None
        finally:
            await asyncio.shield(_run(ctx, transport, ("rm", "-f", list_file)))
        nbytes = listed_bytes(listed.stdout, spec.argv) if listed is not None and listed.ok else None
        record.details["size_listing"] = {"argv": list(argv), "exit_code": listing.exit_code,
                                          **({"error": listing.summary()} if not listing.ok else {})}
        if nbytes is not None:
            record.bytes = nbytes
            record.rate_incl_setup_mib_s = mib_per_s(nbytes, record.seconds)
            record.details["size_from"] = FROM_LISTING
            return
        why = f"the source's listing gave no size ({listing.summary() if not listing.ok else 'no size= in it'})"
    if record.bytes is not None:  # guc's last report: from before the copy ended
        record.details["size_from"] = FROM_PROGRESS
        record.details["size_lower_bound"] = True
    record.details["size_note"] = why


async def _run(ctx: RunContext, transport: Transport, argv: Sequence[str]) -> CommandResult:
    """A command on the run's host (its transfer's transport), never through a shell."""
    return await run_command(transport, Command(argv=tuple(argv), timeout_s=LISTING_TIMEOUT_S), "size",
                             kill_grace_s=ctx.kill_grace_s)
