"""Command-line entry points of the TUI: ``gftpwb tui [SCENARIO]`` and ``gftpwb run SCENARIO --tui``.

``gftpwb.cli.main`` imports this module only when the TUI is asked for, so headless runs never load Textual.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from gftpwb.core.errors import UsageError
from gftpwb.shell import interactive as service
from gftpwb.shell.interactive import RunRequest

from .app import WorkbenchApp

if TYPE_CHECKING:
    from rich.console import Console


def require_terminal() -> None:
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise UsageError("the TUI needs a terminal (stdin and stdout); use gftpwb run SCENARIO without --tui for "
                         "pipes, cron and CI")


def cmd_tui(args: argparse.Namespace) -> int:
    """Open the workbench; with a scenario, its tests are listed and ``r`` runs them."""
    require_terminal()
    app = WorkbenchApp(args.scenario, results_base=args.results_base, handle_signals=True,
                       accept_new_host_keys=args.accept_new_host_keys,
                       overrides=service.parse_assignments(args.set, args.lab_var))
    app.run()
    if app.diagnostics and not app.ever_valid:  # as validate ends: its problems on stderr, its exit code
        for diagnostic in app.diagnostics:
            print(diagnostic, file=sys.stderr)
        return app.invalid_exit_code
    print_results(app)
    return service.exit_code(app.summary)


def print_results(app: WorkbenchApp, console: Console | None = None) -> None:
    """After the screen closes: the report, the monitors' table, the thresholds checked (``expect:``,
    violations in red) and the results path, as the end of a headless run prints them (every attempt's
    records of the directory, so a resumed run shows all its runs)."""
    directory = app.live.results_dir
    if not directory or not os.path.isdir(directory):
        return
    service.print_results(directory, app.summary or app.live.summary, console)


def run_in_tui(request: RunRequest, *, scenario_path: str, results_base: str,
               overrides: Mapping[str, str] | None = None) -> int:
    """``gftpwb run SCENARIO --tui``: the run starts at once; exit codes as headless.

    The results directory is prepared before the screen opens, so a refusal (it already holds
    results, ``--resume`` of another plan) is reported on stderr with its exit code, as headless.
    """
    require_terminal()
    prepared = service.prepare_run(request)
    app = WorkbenchApp(scenario_path, prepared=prepared, results_base=results_base, handle_signals=True,
                       accept_new_host_keys=request.accept_new_host_keys, overrides=overrides)
    app.run()
    print_results(app)
    return service.exit_code(app.summary)
