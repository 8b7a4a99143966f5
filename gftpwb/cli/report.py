"""``gftpwb report DIR...``: the summary of one or more results directories (every run, resumed or
not) in the console, as JSON (``--json``, on stdout), as CSV (``--csv FILE``) and as JUnit XML
(``--junit FILE``). The statistics are :mod:`gftpwb.core.summary`'s, the same the end of ``gftpwb run``
prints."""

from __future__ import annotations

import argparse
import sys

from rich.text import Text

from gftpwb import __version__
from gftpwb.cli.teardown import skip_teardown
from gftpwb.core.errors import EXIT_OK, EXIT_PUSH_FAILED, UsageError
from gftpwb.core.format import counts_text
from gftpwb.core.gcpause import paused_gc, spared_from_gc
from gftpwb.core.junit import junit_xml
from gftpwb.core.metrics.families import ResultFigures
from gftpwb.core.metrics.model import Family
from gftpwb.core.monitors.report import monitors_table
from gftpwb.core.report_csv import report_csv
from gftpwb.core.report_json import report_json
from gftpwb.core.samples import WHOLE, gaps, stalls
from gftpwb.core.slurm.report import allocation_text
from gftpwb.core.summary import DirectorySummary
from gftpwb.shell.files import atomic_write
from gftpwb.shell.html_report import write_html
from gftpwb.shell.results_dir import holder
from gftpwb.shell.results_index import read_directory
from gftpwb.shell.sinks.console import PlainTable, plain_or_terminal_console, print_checks, print_report


def _write(path: str, text: str, what: str) -> None:
    try:
        atomic_write(path, text)
    except OSError as exc:
        raise UsageError(f"cannot write the {what} to {path}: {exc.strerror or exc}") from None


def sample_notes(summary: DirectorySummary) -> list[str]:
    """A line per run whose progress stalled (no new bytes for a second or more) or went quiet."""
    lines = []
    for run_id, samples in summary.samples.items():
        whole = samples.series.get(WHOLE)
        if whole is None:
            continue
        spans = [("stalled", a, b) for a, b in stalls(whole)] + [("no progress report", a, b) for a, b in gaps(whole)]
        if spans:
            lines.append(f"  {run_id}: " + "; ".join(f"{what} for {b - a:.1f} s from {a:.1f} s" for what, a, b in
                                                     sorted(spans, key=lambda span: span[1])))
    return lines


def print_directory(console, summary: DirectorySummary) -> None:
    created = f", {summary.created_at}" if summary.created_at else ""
    console.print(Text(f"{summary.path}: {summary.scenario}{created}", style="bold"), soft_wrap=True)
    slurm = allocation_text(summary.meta)
    if slurm:  # the nodes the slots (node1, ...) stood for
        console.print(Text(slurm), soft_wrap=True)
    print_report(console, summary.records, summary.kinds)
    monitors = summary.monitors
    if monitors is not None and monitors.figures:
        console.print(PlainTable(monitors_table(monitors.figures, monitors.types, monitors.samples)))
    print_checks(console, summary.checks)
    planned = f" of {summary.planned} planned" if summary.planned is not None else ""
    not_run = f"; {len(summary.not_run)} not run" if summary.not_run else ""
    running = holder(summary.path)
    if running is not None:  # a run writes here now: what has not run yet may still run
        not_run = f"; {len(summary.not_run)} not run yet" if summary.not_run else ""
        not_run += f": still running ({running})"
    console.print(f"{counts_text(summary.counts)}{planned}{not_run}")
    for line in sample_notes(summary):
        console.print(Text(line, style="yellow"), soft_wrap=True)
    for problem in summary.problems:
        console.print(Text(f"warning: {problem}", style="yellow"), soft_wrap=True)


def directory_families(summaries: list[DirectorySummary]) -> dict[str, list[Family]]:
    """Each scenario's figures over its directories, in the order given (a later run of a case is its
    latest; runs add up), as ``gftpwb run --metrics`` showed them at the end of those runs."""
    by_scenario: dict[str, ResultFigures] = {}
    for summary in summaries:
        figures = by_scenario.setdefault(summary.scenario, ResultFigures(summary.scenario))
        figures.planned = summary.planned
        for record in sorted(summary.records, key=lambda r: r.ended_at or r.started_at):
            figures.add(record)
        figures.check(summary.checks)
    return {scenario: figures.families() for scenario, figures in by_scenario.items()}


def _metrics(args: argparse.Namespace, summaries: list[DirectorySummary]) -> int:
    """--openmetrics FILE and --pushgateway URL: 0, or 9 when a push failed (after the others)."""
    if not (args.openmetrics or args.pushgateway):
        return EXIT_OK
    from gftpwb.shell.metrics import check_gateway_url, merge, push, push_error, registry_of, textfile

    families = directory_families(summaries)
    if args.openmetrics:
        textfile(args.openmetrics, registry_of(lambda: merge(families.values())))
    code = EXIT_OK
    if args.pushgateway:
        check_gateway_url(args.pushgateway)
        for scenario, own in families.items():
            try:
                push(args.pushgateway, registry_of(lambda own=own: own), scenario)
            except (OSError, ValueError) as exc:
                print(f"gftpwb: {push_error(args.pushgateway, exc)}: {scenario} was not pushed", file=sys.stderr)
                code = EXIT_PUSH_FAILED
    return code


def cmd_report(args: argparse.Namespace) -> int:
    skip_teardown()  # what it reads is freed with the process, not one object at a time
    # Reading 100,000 records makes millions of objects that live until the command ends, none in a
    # reference cycle: no cyclic collection while reading, and none walks them afterwards (what the
    # output makes, pages and charts, is collected as usual).
    with paused_gc():
        summaries = [read_directory(path) for path in args.dirs]
    with spared_from_gc():
        return _output(args, summaries)


def _output(args: argparse.Namespace, summaries: list[DirectorySummary]) -> int:
    generator = f"gftpwb {__version__}"
    pushed = _metrics(args, summaries)
    if args.csv:
        _write(args.csv, report_csv(summaries), "CSV summary")
    if args.junit:
        _write(args.junit, junit_xml(summaries), "JUnit XML")
    if args.html:
        write_html(args.html, summaries, generator, args.trend)
    if args.json:
        sys.stdout.write(report_json(summaries, generator))
        return pushed
    console = plain_or_terminal_console()
    for summary in summaries:
        print_directory(console, summary)
    return pushed
