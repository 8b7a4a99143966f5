"""The simulated engine: a guc spec with ``engine: simulated`` is computed from its link model.

No process runs. The outcome comes from :mod:`gftpwb.kinds.simulated.link`, seeded by the link's seed and the
run id, so the same scenario always gives the same results, resumed or not. The record's ``engine``
is ``simulated``, its output (and so its tag log) starts with ``SIMULATED``, and the console marks
it. With ``time_scale`` > 0 the run takes that share of its simulated duration in real time and
reports progress as it goes (useful for the TUI); otherwise results arrive at once.
"""

from __future__ import annotations

import asyncio
import time

from gftpwb.core.events import Progress, RunStarted
from gftpwb.core.output import Outcome
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, ResultRecord
from gftpwb.core.specs import RunSpec
from gftpwb.core.units import GIB
from gftpwb.kinds.simulated.link import LinkModel, Transfer, run_rng, simulate
from gftpwb.shell.context import Interrupted, RunContext, utc_now_iso
from gftpwb.shell.runners import record_of

PROGRESS_STEPS = 5


def transfer_of(spec: RunSpec) -> Transfer:
    p = spec.params
    return Transfer(parallel=p.get("parallel"), tcp_buffer=p.get("tcp_buffer"), block_size=p.get("block_size"),
                    fast=bool(p.get("fast")), length=spec.length_bytes or 4 * GIB)


def simulated_output(link: LinkModel, spec: RunSpec) -> str:
    return (f"SIMULATED: no transfer ran; gftpwb's link model computed this result for\n"
            f"  {' '.join(spec.argv)}\n  {link.describe()}\n")


async def run_simulated_guc(ctx: RunContext, spec: RunSpec) -> ResultRecord:
    link = spec.link or LinkModel()
    started_at = utc_now_iso()
    t0 = time.monotonic()
    ctx.publish(RunStarted(spec=spec, argv=spec.argv, started_at=started_at))
    transfer = transfer_of(spec)
    sim = simulate(link, transfer, run_rng(link.seed, spec.run_id), spec.timeout_s)
    output = simulated_output(link, spec)
    verbose = "-vb" in spec.argv  # without -vb guc prints no progress and no average: neither does the model
    try:
        if link.time_scale > 0:
            for step in range(1, PROGRESS_STEPS + 1):
                await asyncio.sleep(sim.seconds * link.time_scale / PROGRESS_STEPS)
                if sim.status == PASSED and verbose:
                    moved = transfer.length * step // PROGRESS_STEPS
                    ctx.publish(Progress(run_id=spec.run_id, bytes=moved, rate_avg_mib_s=sim.rate_guc_avg_mib_s,
                                              rate_inst_mib_s=sim.rate_guc_avg_mib_s,
                                              elapsed_s=sim.seconds * step / PROGRESS_STEPS,
                                              length_bytes=spec.length_bytes))
        else:
            await asyncio.sleep(0)  # let Ctrl-C and other tasks in between simulated runs
    except asyncio.CancelledError:
        outcome = Outcome(INTERRUPTED, None, None, None, "interrupted by the user (Ctrl-C)", output)
        record = record_of(spec, outcome, started_at=started_at, ended_at=utc_now_iso(),
                           seconds=round(time.monotonic() - t0, 6), exit_code=None)
        raise Interrupted(record) from None
    if sim.status == PASSED:
        outcome = Outcome(PASSED, transfer.length, sim.rate_incl_setup_mib_s,
                          sim.rate_guc_avg_mib_s if verbose else None, "", output)
        exit_code: int | None = 0
    else:
        outcome = Outcome(sim.status, None, None, None, sim.error, output + sim.error + "\n")
        exit_code = 1 if sim.status == FAILED else None
    return record_of(spec, outcome, started_at=started_at, ended_at=utc_now_iso(), seconds=sim.seconds,
                     exit_code=exit_code)
