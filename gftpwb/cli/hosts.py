"""``gftpwb hosts check SCENARIO``: can every host of the inventory be used, and what is it like?"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from rich.text import Text

from gftpwb.core.errors import EXIT_OK, EXIT_RUNS_FAILED, UsageError
from gftpwb.core.hostcheck import hosts_table
from gftpwb.shell import frontend
from gftpwb.shell.hostprobe import check_hosts
from gftpwb.shell.sinks.console import plain_or_terminal_console
from gftpwb.shell.sinks.plain_table import PlainTable


def cmd_hosts(args: argparse.Namespace) -> int:
    # its variables as for run and validate: --set, then GFTPWB_VAR_*, then the file's defaults
    scenario = frontend.load(args.scenario, frontend.parse_assignments(args.set, args.lab_var))
    wanted = [name for value in args.only for name in value.split(",") if name]
    hosts = list(scenario.hosts)
    if wanted:
        unknown = sorted(set(wanted) - {h.name for h in hosts} - {"local"})
        if unknown:
            raise UsageError(f"unknown host {', '.join(unknown)}; {scenario.name} has: "
                             f"{', '.join(h.name for h in hosts) or 'only local'}")
        hosts = [h for h in hosts if h.name in wanted]
    include_local = not wanted or "local" in wanted
    notes: list[str] = []
    reports = asyncio.run(check_hosts(hosts, include_local=include_local,
                                      accept_new_host_keys=args.accept_new_host_keys, notify=notes.append))
    for note in notes:
        print(f"warning: {note}", file=sys.stderr)
    if args.json:
        print(json.dumps({"scenario": scenario.name, "hosts": [r.to_dict() for r in reports]}, indent=1))
    else:
        console = plain_or_terminal_console()
        console.print(PlainTable(hosts_table(scenario.name, reports)))
        for report in reports:
            if report.error:
                console.print(Text(f"  {report.host}: {report.status}: {report.error}", style="red"), soft_wrap=True)
    return EXIT_OK if all(r.ok for r in reports) else EXIT_RUNS_FAILED
