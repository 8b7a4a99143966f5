"""The front-end service as an interactive front end (the TUI) uses it: the one shell module the TUI
imports.

:mod:`gftpwb.shell.frontend` is what every front end does the same way before, around and after a
scenario run (loading, preflight, the results directory, the repeat command, exit codes); it is
re-exported here unchanged. A front end that stays open around its runs needs more of the shell, and
that is this module's one job, kept apart so ``frontend`` keeps its own: a run it can stop
(:class:`ScenarioRun`), the results directories it browses (listing, reading, their thresholds, when
they last changed), the HTML report it writes, the trace level it switches, the files it saves, and
what it prints when its screen closes. Each is a thin door to the shell module that does it, so the
TUI never learns where those live and the shell can move them without touching it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gftpwb.core.records import STOPPED_BY_TEXT, Summary
from gftpwb.core.registry import ReportTable
from gftpwb.core.specs import RunSpec

from .executor import Executor
from .frontend import (
    DEFAULT_BASE,
    exit_code,
    load,
    parse_assignments,
    preflight,
    repeat_command,
    results_dir,
)
from .results_index import ResultsDirInfo, list_results, read_directory
from .session import PreparedRun, RunRequest, prepare_run
from .sinks.expectations import EXPECTATIONS_NAME
from .sinks.journal import JOURNAL_NAME

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from gftpwb.core.checks import Check
    from gftpwb.core.summary import DirectorySummary

__all__ = [
    "DEFAULT_BASE", "Executor", "PreparedRun", "ResultsDirInfo", "RunRequest", "ScenarioRun", "Stamp",
    "checks_of", "exit_code", "expectations_stamp", "journal_stamp", "list_results", "load", "needs_host_checks",
    "parse_assignments", "preflight", "prepare_run", "print_results", "read_directory", "repeat_command",
    "report_table", "results_dir", "save_text", "switch_trace", "warm_up", "write_html_report",
]

# --- a scenario run the front end can stop ----------------------------------------------------------


def needs_host_checks(specs: Sequence[RunSpec]) -> bool:
    """Whether the preflight of ``specs`` checks hosts (over SSH, so it may wait: run it off the UI
    thread); without, it only looks for programs on PATH."""
    from .hostchecks import host_checks

    return bool(host_checks(specs))


class ScenarioRun:
    """A prepared run (:func:`prepare_run`) and the executor that carries it out: ``await run()`` runs
    it to its end, :meth:`stop` ends it early (the run in flight is recorded as interrupted, nothing
    else starts), as Ctrl-C does a headless run. ``executor``: the tests' stand-in runners."""

    def __init__(self, prepared: PreparedRun, executor: Executor | None = None):
        from gftpwb.core.bus import EventBus

        self.prepared = prepared
        self.executor = executor if executor is not None else Executor(EventBus())

    async def run(self) -> Summary:
        from .session import execute

        return (await execute(self.prepared, install_signal_handlers=False, executor=self.executor)).summary

    def stop(self, stopped_by: str = "SIGINT") -> None:
        self.executor.stop(stopped_by)


def switch_trace(level: str, source: str) -> int:
    """Switch the trace level of the runs in flight (as SIGUSR2 and SIGUSR1 do); how many were asked."""
    from . import tracecontrol

    return tracecontrol.switch(level, source)


# --- results directories ----------------------------------------------------------------------------

Stamp = tuple[float, int]  # when a file last changed, and its size: what caches of a directory compare


def _stamp(path: str) -> Stamp:
    try:
        stat = os.stat(path)
    except OSError:
        return (0.0, -1)
    return (stat.st_mtime, stat.st_size)


def journal_stamp(directory: str) -> Stamp:
    """When the directory's journal (its records) last changed, and its size (-1: none)."""
    return _stamp(os.path.join(directory, JOURNAL_NAME))


def expectations_stamp(directory: str) -> Stamp:
    """When the directory's thresholds file last changed, and its size (-1: none)."""
    return _stamp(os.path.join(directory, EXPECTATIONS_NAME))


def checks_of(directory: str) -> list[Check]:
    """The thresholds (``expect:``) checked in a results directory, met or violated."""
    from .sinks.expectations import read_checks

    return read_checks(directory)[0]


def write_html_report(target: str, directory: str, generator: str, warn: Callable[[str], None]) -> None:
    """``gftpwb report DIRECTORY --html TARGET``: the same page, trend included."""
    from .html_report import DEFAULT_TREND, write_html

    write_html(target, [read_directory(directory)], generator, DEFAULT_TREND, warn)


def warm_up() -> None:
    """Load what reading and comparing results directories compute with (numpy, scipy's statistics:
    a second or more on a busy machine, paid by the first comparison of a session), so a front end
    can do it in a worker thread before it is asked, and the screen does not freeze then."""
    import numpy  # noqa: F401
    import scipy.special
    import scipy.stats  # noqa: F401

    from gftpwb.core import compare, mannwhitney, summary  # noqa: F401


def report_table(table: ReportTable) -> Table:
    """A report table as rich draws it for ``gftpwb report``: in parts that fit the width it is drawn
    at (the key columns repeated, "(continued)"), so no number is cut."""
    from .sinks.plain_table import rich_table

    return rich_table(table)


# --- files and the end of a session -----------------------------------------------------------------


def save_text(path: str, text: str, *, newline: str | None = None) -> None:
    """Write ``text`` to ``path`` whole or not at all (a crash leaves the old file or none). Raises OSError."""
    from .files import atomic_write

    atomic_write(path, text, newline=newline)


def print_results(directory: str, summary: Summary | None, console: Console | None = None) -> None:
    """What the end of a headless run prints, for a results directory: the report, the monitors'
    table, the thresholds checked (violations in red), then the counts (of ``summary``: this
    session's run) and the path. Every attempt's records of the directory, so a resumed run shows
    all its runs."""
    from gftpwb.core.format import counts_text
    from gftpwb.core.monitors.report import monitors_table

    from .sinks.console import plain_or_terminal_console, print_checks, print_report
    from .sinks.plain_table import PlainTable

    console = console or plain_or_terminal_console()
    read: DirectorySummary = read_directory(directory)
    print_report(console, read.records, read.kinds)
    monitors = read.monitors
    if monitors is not None and monitors.figures:
        console.print(PlainTable(monitors_table(monitors.figures, monitors.types, monitors.samples)))
    print_checks(console, read.checks)
    if summary is None:
        console.print(f"Results: {directory}")
        return
    note = f" ({STOPPED_BY_TEXT.get(summary.stopped_by, 'interrupted by the user')})" if summary.interrupted else ""
    console.print(f"{counts_text(summary.counts)} of {summary.total} planned{note}. Results: {directory}")
