"""Probing a scenario's Slurm node slots for ``gftpwb hosts check``: the same probe and clock samples as an
SSH host gets, run as tasks of job steps through the scenario's Slurm launcher (never over SSH).

The allocation is found or asked for as a run would (the enclosing job, ``job:``, or a new one released
at the end); one that cannot be had raises :class:`~gftpwb.core.errors.AllocationError` (exit 10), as for
``run``. Every slot's probe starts at once, so they make one job step with a task per node; a node whose
task cannot start, is lost or does not answer gets a failed row of its own.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from gftpwb.core.hostcheck import ERROR, OK, PROBE_SCRIPT, HostReport, parse_probe
from gftpwb.core.slurm.model import SlurmSetup
from gftpwb.core.transport import ProcessLost, StartError
from gftpwb.shell.context import launch_group

PROBE_TIMEOUT_S = 60.0  # a probe answers in well under a second; a node that hangs longer fails its row
GROUP = "hosts-check"  # the launch group of the probes: one job step for all the slots


def slurm_preflight(setup: SlurmSetup) -> None:
    """What ``run`` refuses before it asks for anything (Slurm's client commands missing: exit 3; a
    partition down or too small, a named job not running: exit 10), with the same words."""
    from .transports.slurm.allocation import preflight

    preflight(setup)


async def check_slurm_nodes(setup: SlurmSetup, slots: Sequence[str], *,
                            notify: Callable[[str], None] | None = None) -> tuple[list[HostReport], dict[str, object]]:
    """One report per slot, in ``slots``' order, and what meta.json would record of the allocation."""
    from .transports.slurm.launcher import SlurmLauncher  # only scenarios on Slurm load it

    launcher = SlurmLauncher(setup, notify=notify)
    token = launch_group.set(GROUP)
    try:
        allocation = await launcher.ensure()  # AllocationError: the caller's exit 10
        reports = await asyncio.gather(*(check_slot(launcher, slot, allocation.node_of(slot)) for slot in slots))
        return list(reports), launcher.environment
    finally:
        launch_group.reset(token)
        await launcher.close()


async def check_slot(launcher, slot: str, node: str | None) -> HostReport:
    started = time.monotonic()
    address = node or "-"

    def failed(why: str) -> HostReport:
        return HostReport(slot, address, ERROR, why, seconds=time.monotonic() - started)

    if node is None:
        return failed(f"the allocation has no node for {slot}")
    transport = launcher.transport(slot)
    try:
        proc = await transport.start(["/bin/sh", "-c", PROBE_SCRIPT, "gftpwb-probe"])
    except (StartError, OSError) as exc:
        return failed(f"the probe could not start on node {node}: {exc}")
    out, err = bytearray(), bytearray()
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S):
            async for stream, data in proc.output():
                (out if stream == "stdout" else err).extend(data)
            status = await proc.wait()
    except TimeoutError:
        await proc.stop(1.0)
        return failed(f"the probe gave no answer on node {node} within {PROBE_TIMEOUT_S:g}s")
    except ProcessLost as exc:
        return failed(f"node {node} was lost during the probe: {exc}")
    facts = parse_probe(out.decode("utf-8", "replace"))
    if status != 0:
        return HostReport(slot, address, ERROR, f"probe exited with status {status} on node {node}: "
                          f"{err.decode('utf-8', 'replace').strip()[-300:]}", facts, seconds=time.monotonic() - started)
    try:
        clock = await transport.clock_offset()
        error = ""
    except (StartError, ProcessLost, OSError, ValueError, TimeoutError) as exc:
        clock, error = None, f"clock offset not measured: {exc}"
    return HostReport(slot, address, OK if not error else ERROR, error, facts, clock,
                      seconds=time.monotonic() - started)
