"""The preflight's checks on the hosts (:meth:`gftpwb.core.registry.Planner.host_checks`), run before
any run of a scenario starts, through the same transports the runs use (this machine's, SSH for the
inventory's hosts).

Each check is an argv run on its host (never a shell string: scenario values are arguments of their
own); the kind reads its output. Checks with the same host and argv run once, all hosts at once. A
host that cannot be reached, or a check that cannot start or times out, is left to the run, which
reports it as it always has: the preflight refuses only what it positively saw. It does not trust
new host keys (``--accept-new-host-keys``): the run does, and reports that it did; until then such a
host is not looked at here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from gftpwb.core.commands import Command
from gftpwb.core.registry import HostCheck, registry
from gftpwb.core.scenario.model import Host
from gftpwb.core.specs import RunSpec
from gftpwb.core.transport import ProcessLost, Transport

from .commands import run_command

CHECK_TIMEOUT_S = 30.0  # a stat of a few directories; a host that hangs longer is left to the run


def host_checks(specs: Sequence[RunSpec]) -> list[HostCheck]:
    """The checks the kinds of these runs ask for, each (host, argv) once, in plan order."""
    reg = registry()
    seen: dict[tuple[str, tuple[str, ...]], HostCheck] = {}
    for spec in specs:
        for check in reg.kind(spec.kind).planner.host_checks(spec):
            seen.setdefault((check.host, check.argv), check)
    return list(seen.values())


async def problems(checks: Sequence[HostCheck], transport_for: Callable[[str], Transport]) -> list[str]:
    """What the checks found, ``"<who>: <problem>"`` each, in the checks' order."""

    async def one(check: HostCheck) -> str | None:
        try:
            result = await run_command(transport_for(check.host),
                                       Command(argv=check.argv, timeout_s=CHECK_TIMEOUT_S), "preflight")
        except (ProcessLost, OSError):
            return None  # the host went away while answering: as unreachable
        if result.error or result.exit_code is None:
            return None  # could not start or timed out: the run will say what is wrong
        problem = check.problem(result.stdout)
        return f"{check.who}: {problem}" if problem and check.who else problem

    found = await asyncio.gather(*(one(check) for check in checks))
    return [text for text in found if text]


async def _look(checks: Sequence[HostCheck], hosts: Sequence[Host]) -> list[str]:
    from .transports.hosts import HostTransports  # SSH: loaded only when a scenario has checks

    transports = HostTransports(hosts)
    try:
        return await problems(checks, transports)
    finally:
        await transports.close()


def find_problems(specs: Sequence[RunSpec], hosts: Sequence[Host],
                  transport_for: Callable[[str], Transport] | None = None, *,
                  skip: frozenset[str] = frozenset()) -> list[str]:
    """Run the checks of ``specs`` on their hosts and return the problems (blocking: it may wait for
    SSH connections, so an event loop's caller, the TUI, calls it from a worker thread; nothing is run
    and no connection opened when no kind asks for a check). Hosts in ``skip`` (a Slurm allocation's
    node slots: no allocation exists yet) are left to the run."""
    checks = [check for check in host_checks(specs) if check.host not in skip]
    if not checks:
        return []
    return asyncio.run(problems(checks, transport_for) if transport_for is not None else _look(checks, hosts))
