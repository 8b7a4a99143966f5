"""``gftpwb import``, ``gftpwb export`` and ``gftpwb log``: moving between tgftp and gftpwb.

The conversions themselves are pure (``gftpwb.tgftp``); this module reads and writes the files.

Where imported tag logs go: ``gftpwb import taglogs LOG...`` writes their records to a results
directory of their own, ``results/<UTC timestamp>-imported-<scenario>/`` (or ``--results DIR``), with
``results.jsonl`` and a ``meta.json`` that says where they came from. It looks like any other results
directory to readers, but its meta.json says ``"imported": true`` and it has no plan, so ``gftpwb run
--resume`` never picks it up. Logs named like tgftp's batch logs (``tests.csv_#003_001.log``) keep their scenario, test
(``test-003``) and repeat, the same run ids ``gftpwb run tests.csv`` gives, so old and new results
line up run by run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import socket
import sys
from datetime import UTC, datetime

from gftpwb import __version__
from gftpwb.cli.outfiles import refuse_overwrite, write_output
from gftpwb.converters.batchfile import ExportError, export_batchfile
from gftpwb.converters.batchfile_format import MAX_BATCHFILE_BYTES, convert
from gftpwb.converters.taglog import ImportedLog, TagLogError, number_cases, record_from_taglog
from gftpwb.core.compare import WHOLE_SECOND_RATES
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import EXIT_OK, Diagnostic, ScenarioError, UsageError
from gftpwb.core.masking import mask
from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import registry
from gftpwb.core.scenario.keys import NAME_PATTERN
from gftpwb.core.undecodable import restore_undecodable, set_aside_undecodable
from gftpwb.shell import results_dir as rd
from gftpwb.shell.frontend import load, shell_env
from gftpwb.shell.sinks.journal import JOURNAL_NAME, JournalSink, read_journal
from gftpwb.shell.sinks.taglogs import write_taglog

EXIT_LOG_ERROR = 1  # tgftp_log's exit status for a bad attribute or a missing file


def _err(text: str) -> None:
    print(text, file=sys.stderr)


def _read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_BATCHFILE_BYTES + 1)
    except OSError as exc:
        raise ScenarioError([Diagnostic(path, 0, 0, f"cannot read scenario: {exc.strerror or exc}")]) from None


def _print_diagnostics(diagnostics) -> None:
    for diagnostic in sorted(diagnostics, key=lambda d: (d.file, d.line, d.column)):
        _err(str(diagnostic))


def cmd_import(args: argparse.Namespace) -> int:
    items: list[str] = args.items
    if items[0] in ("parallel-libgfapi", "libgfapi-results"):
        from gftpwb.cli.migrate_libgfapi import import_results_cmd, import_settings

        if items[0] == "parallel-libgfapi":
            return import_settings(items[1:], args)
        if len(items) < 2:
            raise UsageError("import libgfapi-results needs at least one log directory, result.csv or worker log")
        return import_results_cmd(items[1:], args)
    if items[0] == "taglogs":
        if len(items) < 2:
            raise UsageError("import taglogs needs at least one tag log file")
        return import_taglogs(items[1:], args)
    if len(items) != 1:
        raise UsageError("import takes one batchfile (or: gftpwb import taglogs FILE...)")
    path = items[0]
    result = convert(path, _read_bytes(path), shell_env())
    _print_diagnostics(result.warnings)
    load_scenario_text(result.text, f"{path} (as imported)")  # the converter's own promise, checked
    if args.output:
        refuse_overwrite(args.output, args.force)
        write_output(args.output, result.text)
        _err(f"{path}: {result.tests} test(s) from a tgftp {result.version} batchfile -> {args.output} "
             f"({len(result.warnings)} warning(s))")
    else:
        sys.stdout.write(result.text)
    return EXIT_OK


# --- tag logs -> records --------------------------------------------------------------------------


def import_taglogs(paths: list[str], args: argparse.Namespace) -> int:
    """Tag logs -> a results directory of their own. A log that cannot be read (no tags, a damaged
    ``GFTPWB_RECORD``, a scenario name that is not a name) is reported at its file:line and the others
    are imported; exit 2 when any failed."""
    args.scenario = args.scenario or "imported"
    if not re.fullmatch(NAME_PATTERN, args.scenario):
        raise UsageError(f"--scenario {args.scenario!r} is not a valid scenario name (letters, digits, '.', '_' and "
                         "'-', starting with a letter or digit)")
    logs: list[ImportedLog] = []
    failed = 0
    for index, path in enumerate(paths):
        try:
            # bytes that are not UTF-8 are kept (surrogateescape): export taglogs writes them back
            with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
                text = handle.read()
        except OSError as exc:
            _err(f"{path}: cannot read: {exc.strerror or exc}")
            failed += 1
            continue
        try:
            imported = record_from_taglog(text, os.path.basename(path), scenario=args.scenario, case=index)
        except TagLogError as exc:
            _err(exc.located(path))
            failed += 1
            continue
        imported.record.details.setdefault("imported_from", os.path.abspath(path))
        if imported.tgftp_command is not None:  # so that export taglogs writes it back as it was
            imported.record.details.setdefault("tgftp_command", imported.tgftp_command)
        for note in imported.notes:
            _err(f"{path}: note: {note}")
        logs.append(imported)
    number_cases(logs)  # the executions of one batch line are one case
    records: list[ResultRecord] = [set_aside_undecodable(imported.record) for imported in logs]
    if not records:
        _err("gftpwb: no tag log could be imported")
        return 2
    scenarios = sorted({r.scenario for r in records})
    label = scenarios[0] if len(scenarios) == 1 else args.scenario
    directory = args.results or _imported_dir(args.results_base, label)
    if os.path.exists(os.path.join(directory, JOURNAL_NAME)):
        raise UsageError(f"{directory} already holds results; choose another --results directory")
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create {directory}: {exc.strerror or exc}") from None
    seen: dict[tuple[str, str], str] = {}
    for record in records:
        key = (record.scenario, record.run_id)
        if key in seen:
            _err(f"warning: run {record.scenario} {record.run_id} comes from both {seen[key]} and "
                 f"{record.details.get('imported_from')}; readers take the later one")
        seen[key] = str(record.details.get("imported_from"))
    journal = JournalSink(os.path.join(directory, JOURNAL_NAME))
    try:
        for record in records:
            journal.append(mask(record))  # passwords in URLs, as everything gftpwb stores
    finally:
        journal.close()
    meta = {"gftpwb_version": __version__, "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": ["gftpwb", *sys.argv[1:]], "controller": socket.gethostname(), "scenario": label,
            "imported": True, "sources": [os.path.abspath(p) for p in paths], "runs": len(records)}
    whole_seconds = sum(1 for r in records if r.details.get("written_by") == "tgftp")
    if whole_seconds:
        # tgftp timed a transfer with `date +%s` on both sides: its rate is the size over whole seconds
        meta[WHOLE_SECOND_RATES] = whole_seconds
        _err(f"gftpwb: note: {whole_seconds} of {len(records)} log(s) were written by tgftp: their rates are tgftp's, "
             "the size over whole seconds (a transfer under a second counts as one), not timed to the microsecond "
             "as gftpwb's runs are; report and compare say so")
    meta = mask(meta)
    write_output(os.path.join(directory, "meta.json"), json.dumps(meta, indent=1) + "\n")
    from gftpwb.shell.sinks.console import ConsoleSink, plain_or_terminal_console

    ConsoleSink(plain_or_terminal_console(), live=False).print_table(records)
    print(f"{len(records)} record(s) imported -> {os.path.join(directory, JOURNAL_NAME)}")
    return 2 if failed else EXIT_OK


def _imported_dir(base: str, label: str) -> str:
    # "<stamp>-imported-<scenario>": never taken for a run of <scenario> by --resume (its meta.json says
    # "imported" and it has no plan: see results_dir.run_directories).
    return rd.new_results_dir(base, f"imported-{label}")


# --- records -> tag logs / scenario -> batchfile --------------------------------------------------


def cmd_export(args: argparse.Namespace) -> int:
    if args.what == "taglogs":
        return export_taglogs(args.source, args.output)
    scenario = load(args.source)
    try:
        text, notes = export_batchfile(scenario)
    except ExportError as exc:
        raise UsageError(f"{args.source}: {exc}") from None
    for note in notes:
        _err(str(note))
    if args.output:
        refuse_overwrite(args.output, args.force)
        write_output(args.output, text)
        _err(f"{args.source}: batchfile -> {args.output}")
    else:
        sys.stdout.write(text)
    return EXIT_OK


def export_taglogs(directory: str, output: str | None) -> int:
    journal = os.path.join(directory, JOURNAL_NAME)
    if not os.path.isfile(journal):
        raise UsageError(f"{directory} is not a results directory (no {JOURNAL_NAME})")
    records, problems = read_journal(journal)
    for problem in problems:
        _err(f"{journal}: {problem}")
    command = ""
    try:
        with open(os.path.join(directory, "meta.json"), encoding="utf-8") as handle:
            command = shlex.join(json.load(handle).get("command", []))
    except (OSError, ValueError, TypeError):
        pass
    target = output or directory
    os.makedirs(target, exist_ok=True)
    written = 0
    # one log per run of each scenario (tag logs of several batchfiles imported together share run ids)
    latest = {(record.scenario, record.run_id): record for record in records}
    for record in latest.values():
        kind = registry().find(record.kind)
        if kind is not None and not kind.run.writes_taglog:  # e.g. small-file runs (their CSVs are in the results)
            continue
        name = restore_undecodable(record).taglog or f"{record.scenario}_#{record.case:03d}_{record.repeat:03d}.log"
        try:
            write_taglog(target, record, command, name=os.path.basename(name))
        except OSError as exc:
            raise UsageError(f"cannot write {os.path.join(target, os.path.basename(name))}: "
                             f"{exc.strerror or exc}") from None
        written += 1
    print(f"{written} tag log(s) written to {target}")
    return EXIT_OK
