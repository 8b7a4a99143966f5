"""``gftpwb hosts check SCENARIO``: can every host of the inventory, and every node of the scenario's Slurm
allocation, be used, and what is it like?"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from rich.text import Text

from gftpwb.core.errors import EXIT_OK, EXIT_RUNS_FAILED, UsageError
from gftpwb.core.hostcheck import HostReport, hosts_table
from gftpwb.shell import frontend
from gftpwb.shell.hostprobe import check_hosts
from gftpwb.shell.nodeprobe import check_slurm_nodes, slurm_preflight
from gftpwb.shell.sinks.console import plain_or_terminal_console
from gftpwb.shell.sinks.plain_table import PlainTable


def cmd_hosts(args: argparse.Namespace) -> int:
    # its variables as for run and validate: --set, then GFTPWB_VAR_*, then the file's defaults
    scenario = frontend.load(args.scenario, frontend.parse_assignments(args.set, args.lab_var))
    wanted = [name for value in args.only for name in value.split(",") if name]
    hosts = list(scenario.hosts)
    slots = list(scenario.slurm.slots) if scenario.slurm is not None else []
    if wanted:
        unknown = sorted(set(wanted) - {h.name for h in hosts} - set(slots) - {"local"})
        if unknown:
            raise UsageError(f"unknown host {', '.join(unknown)}; {scenario.name} has: "
                             f"{', '.join([h.name for h in hosts] + slots) or 'only local'}")
        hosts = [h for h in hosts if h.name in wanted]
        slots = [slot for slot in slots if slot in wanted]
    include_local = not wanted or "local" in wanted
    if slots:
        assert scenario.slurm is not None
        slurm_preflight(scenario.slurm)  # what run refuses before asking Slurm for anything: the same exit 10
    notes: list[str] = []
    infos: list[str] = []

    async def check_all() -> tuple[list[HostReport], dict[str, object]]:
        ssh = check_hosts(hosts, include_local=include_local, accept_new_host_keys=args.accept_new_host_keys,
                          notify=notes.append)
        if not slots:
            return await ssh, {}
        assert scenario.slurm is not None
        found, (nodes, allocation) = await asyncio.gather(
            ssh, check_slurm_nodes(scenario.slurm, slots, notify=infos.append))
        return found + nodes, allocation

    try:
        reports, allocation = asyncio.run(check_all())
    finally:
        for info in infos:
            print(f"info: {info}", file=sys.stderr)
        for note in notes:
            print(f"warning: {note}", file=sys.stderr)
    if args.json:
        answer: dict[str, object] = {"scenario": scenario.name, "hosts": [r.to_dict() for r in reports]}
        if allocation:
            answer["slurm"] = allocation
        print(json.dumps(answer, indent=1))
    else:
        console = plain_or_terminal_console()
        console.print(PlainTable(hosts_table(scenario.name, reports)))
        for report in reports:
            if report.error:
                console.print(Text(f"  {report.host}: {report.status}: {report.error}", style="red"), soft_wrap=True)
    return EXIT_OK if all(r.ok for r in reports) else EXIT_RUNS_FAILED
