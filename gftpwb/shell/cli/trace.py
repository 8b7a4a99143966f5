"""Handlers of ``gftpwb trace export`` and ``gftpwb trace summary``: read a results directory's trace
(``trace.jsonl`` and the binary I/O files it indexes), hand it to the pure exporters and summary
(:mod:`gftpwb.core.trace`), write or print the result."""

from __future__ import annotations

import argparse
import json
import os
import sys

from gftpwb.core.errors import EXIT_OK, UsageError
from gftpwb.core.trace.export import bp_lines, perfetto
from gftpwb.core.trace.reader import Trace, load_trace
from gftpwb.core.trace.records import TRACE_NAME
from gftpwb.core.trace.summary import summary_lines
from gftpwb.shell.files import atomic_write

DEFAULT_OUTPUT = {"bp": "trace.bp", "perfetto": "trace.perfetto.json"}


def read_trace(directory: str) -> Trace:
    """The trace of a results directory; UsageError when it has none (not a traced run)."""
    if not os.path.isdir(directory):
        raise UsageError(f"{directory}: no such results directory")
    path = os.path.join(directory, TRACE_NAME)
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise UsageError(f"{directory}: no {TRACE_NAME}: its runs were not traced (trace: run or io in the scenario, "
                         "or gftpwb run --trace run)") from None
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None

    base = os.path.realpath(directory)

    def read_binary(relative: str) -> bytes:
        full = os.path.realpath(os.path.join(base, relative))
        if os.path.commonpath([full, base]) != base:  # trace.jsonl names only files of its own directory
            raise OSError(f"{relative} is outside the results directory")
        with open(full, "rb") as handle:
            return handle.read()

    return load_trace(text, read_binary)


def cmd_export(args: argparse.Namespace) -> int:
    trace = read_trace(args.directory)
    if args.format == "bp":
        text = "".join(line + "\n" for line in bp_lines(trace))
    else:
        text = json.dumps(perfetto(trace), separators=(",", ":")) + "\n"
    for problem in trace.problems:
        print(f"warning: {problem}", file=sys.stderr)
    output = args.output or os.path.join(args.directory, DEFAULT_OUTPUT[args.format])
    if output == "-":
        sys.stdout.write(text)
        return EXIT_OK
    try:
        atomic_write(output, text)
    except OSError as exc:
        raise UsageError(f"{output}: cannot write: {exc.strerror or exc}") from None
    print(f"{output}: {len(text.splitlines()) if args.format == 'bp' else len(trace.records) + len(trace.io)} "
          f"event(s) in {args.format} format", file=sys.stderr)
    return EXIT_OK


def cmd_summary(args: argparse.Namespace) -> int:
    if args.top < 1:
        raise UsageError(f"--top {args.top}: give a number of 1 or more")
    trace = read_trace(args.directory)
    print("\n".join(summary_lines(trace, args.top)))
    return EXIT_OK
