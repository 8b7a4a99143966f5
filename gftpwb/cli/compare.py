"""``gftpwb compare A B``: results directory B against A, case by case (:mod:`gftpwb.core.compare`):
a table (or ``--json``), warnings when the environments differ, and with ``--fail-on-regression``
exit code 1 when a case got significantly slower (as ``pyperf compare_to`` and ``asv continuous``)."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from rich.text import Text

from gftpwb import __version__
from gftpwb.cli.teardown import skip_teardown
from gftpwb.core.compare import (
    ALPHA,
    COMPARE_COLUMNS,
    TEST_NAME,
    Comparison,
    Matching,
    change_cells,
    compare_summaries,
    comparison_data,
    measurement_warnings,
    undecided_note,
)
from gftpwb.core.compare_words import comparison_counts
from gftpwb.core.errors import EXIT_OK, EXIT_RUNS_FAILED, UsageError
from gftpwb.core.gcpause import paused_gc, spared_from_gc
from gftpwb.core.intervals import CHANGE_LEGEND
from gftpwb.core.registry import ReportTable
from gftpwb.core.summary import DirectorySummary
from gftpwb.shell.read_pair import read_for_comparison, reap_children
from gftpwb.shell.sinks.console import PlainTable, plain_or_terminal_console


def environment_warnings(c: Comparison) -> list[str]:
    return ([f"warning: environments differ: {host}: {what}: A {a!r}, B {b!r}" for host, what, a, b in c.environment]
            + measurement_warnings(c))


def print_comparison(c: Comparison) -> None:
    console = plain_or_terminal_console()
    title = f"B {c.b.path} ({c.b.created_at or '?'}) against A {c.a.path} ({c.a.created_at or '?'})"
    caption = (f"Medians of counted runs (passed, not warm-ups), n: the runs each rests on; change = B / A - 1; "
               f"{CHANGE_LEGEND}; p: {TEST_NAME}; significant when p < {ALPHA} and |change| >= {c.threshold_pct:g} "
               "%; too few runs: the test cannot decide with so few, whatever the runs say.")
    rows = tuple(change_cells(x) for x in c.changes)
    console.print(PlainTable(ReportTable(title, caption, COMPARE_COLUMNS, rows, whole=("verdict",), keys=2)))
    for what, names in (("only in A", c.only_a), ("only in B", c.only_b)):
        if names:
            console.print(f"{what}: {'; '.join(names)}", soft_wrap=True)
    note = undecided_note(c)
    if note:
        console.print(Text(note, style="yellow"), soft_wrap=True)
    console.print(comparison_counts(c))
    for line in environment_warnings(c):
        console.print(Text(line, style="yellow"), soft_wrap=True)


def _names(values: list[str] | None) -> tuple[str, ...]:
    return tuple(dict.fromkeys(n.strip() for v in values or () for n in v.split(",") if n.strip()))


def matching_of(args: argparse.Namespace) -> Matching:
    """--ignore and --match as a :class:`Matching` (they exclude each other)."""
    ignore, only = _names(args.ignore), _names(args.match)
    if ignore and args.match is not None:
        raise UsageError("--ignore and --match exclude each other: --match names the only parameters that count")
    return Matching(ignore=ignore, only=only if args.match is not None else None)


def cmd_compare(args: argparse.Namespace) -> int:
    skip_teardown()  # what it reads is freed with the process, not one object at a time
    if args.threshold < 0:
        raise UsageError(f"--threshold must be a percentage of 0 or more, not {args.threshold:g}")
    # Reading 100,000 records makes millions of objects that live until the command ends, none in a
    # reference cycle: no cyclic collection while reading, and none walks them afterwards (what the
    # output makes, pages and charts, is collected as usual).
    # What was read is frozen while the collector is still off: B's summary, unpickled from the
    # child, is some 900,000 new objects, which the collector's first runs walked (0.2-0.4 s).
    try:
        with contextlib.ExitStack() as spared:
            with paused_gc():
                a, b = read_for_comparison(args.a, args.b)
                spared.enter_context(spared_from_gc())
            return _output(args, a, b)
    finally:
        reap_children()


def _output(args: argparse.Namespace, a: DirectorySummary, b: DirectorySummary) -> int:
    matching = matching_of(args)
    comparison = compare_summaries(a, b, threshold_pct=args.threshold, all_figures=args.all_figures,
                                   matching=matching)
    if not comparison.changes:
        how = ("parameters" if matching.default else f"the parameters but {', '.join(matching.ignore)}"
               if matching.only is None else f"{', '.join(matching.only) or 'no parameter'}")
        hint = ("; to line up cases that differ in a parameter you varied, --ignore it (--ignore threads) or "
                "--match only some (--match workload,files)") if matching.default else ""
        raise UsageError(f"{args.a} and {args.b} have no case in common (cases match by test id, kind and {how})"
                         f"{hint}")
    if args.json:
        sys.stdout.write(json.dumps(comparison_data(comparison, f"gftpwb {__version__}"), indent=1,
                                    ensure_ascii=False) + "\n")
        for line in environment_warnings(comparison):
            print(f"gftpwb: {line}", file=sys.stderr)
    else:
        print_comparison(comparison)
    return EXIT_RUNS_FAILED if args.fail_on_regression and comparison.regressions else EXIT_OK
