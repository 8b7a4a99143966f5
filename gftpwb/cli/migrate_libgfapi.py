"""``gftpwb import parallel-libgfapi`` and ``gftpwb import libgfapi-results``: moving from parallel-libgfapi.

The conversions are pure (:mod:`gftpwb.converters.libgfapi`, :mod:`gftpwb.converters.libgfapi_results`);
this module finds and reads the files and writes the scenario or the results directory.

* ``import parallel-libgfapi [SETTINGS] [--clients LIST]``: the settings are a file of variable
  assignments (an env file, a script exporting them, or the launcher with its edited lines); without
  one, the ``PSMF_*``/``PGFAPI_*``/``GFAPI_*`` variables exported in gftpwb's own environment, as the
  launcher would have seen them. The client list is ``--clients``, else the one the settings name
  (``PGFAPI_CLIENTS``, default ``clients.list``) when it exists in the current directory, where the
  launcher looked for it.
* ``import libgfapi-results PATH...``: each PATH is one run: a launcher's log directory (its
  ``<client>.t<NN>.log`` files and ``result.csv``), a ``result.csv`` (the logs beside it are read
  too), or one worker's log. The records go to a results directory of their own,
  ``results/<UTC timestamp>-imported-<scenario>/`` (or ``--results DIR``), as imported tag logs do,
  with each run's original files copied into its run directory ``<scenario>_#<case>_<repeat>/``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import sys
from datetime import UTC, datetime

from gftpwb import __version__
from gftpwb.cli.outfiles import refuse_overwrite, write_output
from gftpwb.converters.libgfapi import ClientList, import_parallel_libgfapi, read_clients, scenario_name_for
from gftpwb.converters.libgfapi_logs import LOG_NAME, parse_result_csv, parse_worker_log
from gftpwb.converters.libgfapi_results import Settings, ToolResults, import_results
from gftpwb.converters.libgfapi_settings import LAUNCHERS, choose_launcher, resolve
from gftpwb.converters.shellenv import Assignment, ShellEnv, read_assignments
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import EXIT_OK, Diagnostic, ScenarioError, UsageError
from gftpwb.core.masking import mask
from gftpwb.core.scenario.keys import NAME_PATTERN
from gftpwb.shell import results_dir as rd
from gftpwb.shell.sinks.journal import JOURNAL_NAME, JournalSink

MAX_INPUT_BYTES = 64 << 20  # a bounded input, as for scenarios
ENVIRONMENT = "(environment)"
_PREFIXES = ("PSMF_", "PGFAPI_", "GFAPI_")
LAUNCHER_CHOICES = ("auto", *LAUNCHERS)


def _err(text: str) -> None:
    print(text, file=sys.stderr)


def _read_text(path: str, what: str) -> str:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_INPUT_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_INPUT_BYTES:
        raise UsageError(f"{path}: larger than {MAX_INPUT_BYTES >> 20} MiB; not read")
    return data.decode("utf-8", errors="replace")


def _settings(path: str | None) -> tuple[ShellEnv, str, str]:
    """(the assignments, the name diagnostics give them, the text) of the settings file, or of the
    environment's parallel-libgfapi variables when there is none."""
    if path:
        text = _read_text(path, "settings")
        return read_assignments(text, os.environ), path, text
    names = sorted(n for n in os.environ if n.startswith(_PREFIXES))
    if not names:
        raise UsageError("no settings: give a file of parallel-libgfapi's variables (an env file, or the launcher "
                         "script), or export them (PGFAPI_*, PSMF_*, GFAPI_*) in this shell")
    env = ShellEnv([Assignment(n, os.environ[n], 0, 0, 0, True) for n in names])
    return env, ENVIRONMENT, ""


def _clients(explicit: str | None, env: ShellEnv, settings_name: str, launcher: str) -> ClientList | None:
    """The client list: --clients, else the file the settings name (when the launcher runs), else none."""
    if explicit:
        return read_clients(_read_text(explicit, "client list"), explicit)
    chosen = choose_launcher(env, False) if launcher == "auto" else launcher
    if chosen == "worker":
        return None
    resolved = resolve(env, settings_name, chosen)
    value = resolved.run.values["clients_file"] if resolved.run is not None else None
    name = value.text if value is not None and value.text else "clients.list"
    if not os.path.isfile(name):
        raise UsageError(f"no client list: {name} (the list the launcher reads) is not in the current directory; "
                         "give it with --clients FILE")
    return read_clients(_read_text(name, "client list"), name)


def _inventory(path: str | None, output: str | None) -> tuple[list[str], str]:
    """The host names of an inventory the scenario will include, and how the scenario names it."""
    if not path:
        return [], ""
    from ruamel.yaml import YAML

    try:
        data = YAML(typ="safe").load(_read_text(path, "host inventory"))
    except Exception as exc:  # a YAML error of any kind: the user's file, said plainly
        raise UsageError(f"{path}: not a YAML host inventory: {exc}") from None
    hosts = data.get("hosts", data) if isinstance(data, dict) else None
    if not isinstance(hosts, dict):
        raise UsageError(f"{path}: no hosts: mapping (the lab's hosts.yaml is an example)")
    base = os.path.dirname(os.path.abspath(output)) if output else os.getcwd()
    relative = os.path.relpath(os.path.abspath(path), base)
    return [str(h) for h in hosts if h != "include"], (os.path.abspath(path) if relative.startswith("..")
                                                        else relative)


def _scenario_name(args: argparse.Namespace) -> str:
    import re

    name = args.scenario or ""
    if name and not re.fullmatch(NAME_PATTERN, name):
        raise UsageError(f"--scenario {name!r} is not a valid scenario name (letters, digits, '.', '_' and '-', "
                         "starting with a letter or digit)")
    return name


def import_settings(items: list[str], args: argparse.Namespace) -> int:
    """``gftpwb import parallel-libgfapi [SETTINGS]``: a gfapi scenario, to -o or stdout."""
    if len(items) > 1:
        raise UsageError("import parallel-libgfapi takes at most one settings file (and --clients LIST)")
    name = _scenario_name(args)
    env, settings_name, text = _settings(items[0] if items else None)
    clients = _clients(args.clients, env, settings_name, args.launcher)
    included, include = _inventory(args.hosts_file, args.output)
    if text:
        result = import_parallel_libgfapi(text, settings_name, clients, launcher=args.launcher, environ=os.environ,
                                          included_hosts=included, include=include, name=name)
    else:
        from gftpwb.converters.libgfapi import import_env

        result = import_env(env, settings_name, clients, launcher=args.launcher, included_hosts=included,
                            include=include, name=name)
    for warning in result.warnings:
        _err(str(warning))
    where = os.path.dirname(os.path.abspath(args.output)) if args.output else os.getcwd()
    load_scenario_text(result.text, os.path.join(where, f"{result.name}.yaml"))  # the converter's promise, checked
    _err(f"{settings_name}: read as {LAUNCHERS[result.launcher].title}"
         + ("" if args.launcher != "auto" else " (choose another with --launcher)"))
    if args.output:
        refuse_overwrite(args.output, args.force)
        write_output(args.output, result.text)
        _err(f"{settings_name}: a gfapi scenario -> {args.output} ({len(result.warnings)} warning(s))")
    else:
        sys.stdout.write(result.text)
    return EXIT_OK


# --- results -> records --------------------------------------------------------------------------


def _run_files(path: str) -> tuple[str, list[str], str | None]:
    """(the run's directory, its worker logs, its result.csv) for a PATH given on the command line."""
    if os.path.isdir(path):
        directory = path
    elif os.path.isfile(path):
        directory = os.path.dirname(path) or "."
        if not path.endswith("result.csv") and not LOG_NAME.match(os.path.basename(path)):
            return directory, [path], None  # one worker's output
    else:
        raise FileNotFoundError(path)
    names = sorted(os.listdir(directory))
    logs = [os.path.join(directory, n) for n in names if LOG_NAME.match(n)]
    csv = os.path.join(directory, "result.csv")
    return directory, logs, csv if os.path.isfile(csv) else None


def _read_run(path: str) -> ToolResults:
    directory, logs, csv = _run_files(path)
    parsed = [parse_worker_log(_read_text(log, "log"), os.path.basename(log)) for log in logs]
    result = parse_result_csv(_read_text(csv, "result.csv")) if csv else None
    if result is not None and result.errors:
        raise ScenarioError([Diagnostic(csv or "result.csv", line, column, message)
                             for line, column, message in result.errors])
    if result is not None:
        for line, problem in result.problems:
            _err(f"{csv}:{line}: warning: {problem}")
    files = [*logs, *([csv] if csv else [])]
    newest = max((os.path.getmtime(f) for f in files), default=None)
    ended = datetime.fromtimestamp(newest, UTC).isoformat(timespec="seconds") if newest else ""
    source = path if os.path.isfile(path) and not csv and len(logs) == 1 else directory
    return ToolResults(os.path.abspath(source), parsed, result, csv or "", ended)


def _given_settings(args: argparse.Namespace) -> Settings | None:
    if not args.settings:
        return None
    env, settings_name, _text = _settings(args.settings)
    clients = _clients(args.clients, env, settings_name, args.launcher)
    chosen = choose_launcher(env, clients is not None) if args.launcher == "auto" else args.launcher
    resolved = resolve(env, settings_name, chosen)
    if resolved.run is None:
        raise ScenarioError(resolved.errors)
    hosts = [c.name for c in clients.clients] if clients else ["local"]
    return Settings(resolved.run, sorted(set(hosts)), settings_name)


def import_results_cmd(paths: list[str], args: argparse.Namespace) -> int:
    """parallel-libgfapi runs -> a results directory of their own; exit 2 when some run could not be read."""
    name = _scenario_name(args) or (scenario_name_for(args.settings) if args.settings else "parallel-libgfapi")
    failed = 0
    runs: list[ToolResults] = []
    for path in paths:
        try:
            runs.append(_read_run(path))
        except FileNotFoundError:
            _err(f"{path}: no such file or directory")
            failed += 1
        except UsageError as exc:
            _err(str(exc))
            failed += 1
        except ScenarioError as exc:  # a file it cannot read: at its line, and that run is not imported
            for diagnostic in exc.diagnostics:
                _err(str(diagnostic))
            failed += 1
    settings = _given_settings(args)
    imported = import_results(runs, scenario=name, settings=settings)
    for problem in imported.problems:
        _err(str(problem))
    failed += len({p.file for p in imported.problems})
    if not imported.runs:
        _err("gftpwb: no parallel-libgfapi run could be imported")
        return 2
    directory = args.results or rd.new_results_dir(args.results_base, f"imported-{name}")
    if os.path.exists(os.path.join(directory, JOURNAL_NAME)):
        raise UsageError(f"{directory} already holds results; choose another --results directory")
    try:
        os.makedirs(directory, exist_ok=True)
        _copy_originals(directory, imported.runs, runs)
        write_output(os.path.join(directory, "scenario.yaml"), imported.scenario_text)
    except OSError as exc:
        raise UsageError(f"cannot write {exc.filename or directory}: {exc.strerror or exc}") from None
    journal = JournalSink(os.path.join(directory, JOURNAL_NAME))
    try:
        for run in imported.runs:
            journal.append(mask(run.record))
    finally:
        journal.close()
    meta = {"gftpwb_version": __version__, "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": ["gftpwb", *sys.argv[1:]], "controller": socket.gethostname(), "scenario": name,
            "imported": True, "sources": [r.source for r in runs], "runs": len(imported.runs)}
    write_output(os.path.join(directory, "meta.json"), json.dumps(mask(meta), indent=1) + "\n")
    for run in imported.runs:
        for note in run.record.details["gfapi"]["imported"]["notes"]:
            _err(f"{run.record.details['imported_from']}: note: {note}")
    from gftpwb.shell.sinks.console import ConsoleSink, plain_or_terminal_console

    ConsoleSink(plain_or_terminal_console(), live=False).print_table([r.record for r in imported.runs])
    print(f"{len(imported.runs)} record(s) imported -> {os.path.join(directory, JOURNAL_NAME)}")
    print("figures: parallel-libgfapi's totals, sums of per-process rates over each process's own interval "
          "(gftpwb's own runs measure one common window)")
    return 2 if failed else EXIT_OK


def _copy_originals(directory: str, imported, runs: list[ToolResults]) -> None:
    """Each run's original files into its run directory ``<scenario>_#<case>_<repeat>/``."""
    from gftpwb.kinds.gfapi.run.files import run_directory_name

    by_source = {r.source: r for r in runs}
    for item in imported:
        record = item.record
        found = by_source[record.details["imported_from"]]
        target = os.path.join(directory, run_directory_name(record.scenario, record.case, record.repeat))
        os.makedirs(target, exist_ok=True)
        sources = ([found.source] if os.path.isfile(found.source) else
                   [os.path.join(found.source, log.name) for log in found.logs])
        if found.result_csv_name:
            sources.append(found.result_csv_name)
        for source in sources:
            shutil.copy2(source, os.path.join(target, os.path.basename(source)))
