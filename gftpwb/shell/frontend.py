"""The front-end service: what ``gftpwb run``, the TUI and the tgftp drop-ins do the same way before,
around and after a scenario run.

* :func:`load` reads a scenario file, or a file of another format (a tgftp batchfile) converted;
* :func:`preflight` refuses a run whose local programs are missing (the kinds say which:
  :meth:`gftpwb.core.registry.Planner.programs`), or whose hosts fail a kind's checks
  (:meth:`~gftpwb.core.registry.Planner.host_checks`, run there by :mod:`gftpwb.shell.hostchecks`);
* :func:`results_dir` picks the results directory (a new one, the one given, or with ``--resume`` the
  newest of the scenario), :func:`repeat_command` the headless command that repeats a run;
* :func:`run` prepares the directory and executes the plan (:mod:`gftpwb.shell.session`);
* :func:`exit_code` turns a summary into the exit code every front end returns.

A front end adds only what it shows (console, screens) and how it is asked (arguments, keys). The TUI
reaches this service, and the rest of the shell it needs, through :mod:`gftpwb.shell.interactive`.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from gftpwb.core.errors import (
    EXIT_EXPECTATIONS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_RUNS_FAILED,
    EXIT_STOPPED_BY,
    Diagnostic,
    EnvironmentProblem,
    ScenarioError,
    UsageError,
)
from gftpwb.core.registry import registry
from gftpwb.core.scenario.model import LOCAL, Host, Scenario
from gftpwb.core.slurm.model import SlurmSetup
from gftpwb.core.specs import RunSpec

if TYPE_CHECKING:
    from gftpwb.core.dsl.variables import Assignments
    from gftpwb.core.formats import Converted, InputFormat
    from gftpwb.core.records import Summary
    from gftpwb.core.transport import Transport

    from .session import Outcome, RunRequest


def load(path: str, overrides: Mapping[str, str] | None = None,
         environ: Mapping[str, str] | None = None) -> Scenario:
    """A scenario file, or a file of another format a plug-in converts (a tgftp batchfile: ``gftpwb run
    tests.csv``; :mod:`gftpwb.core.formats`); read once, and at most
    :data:`~gftpwb.core.dsl.source.MAX_SCENARIO_BYTES` (``validate /dev/zero``).

    A scenario's variables take their values from ``overrides`` (``--set``) and the ``GFTPWB_VAR_*``
    entries of ``environ`` (default: this process's environment); a converted file has no variables.
    """
    from gftpwb.core.dsl.loader import decode_source, load_scenario_text, read_source
    from gftpwb.core.formats import find_format

    data = read_source(path)
    fmt = find_format(path, data.decode("utf-8", "replace"))
    if fmt is not None:
        required = sorted(set(overrides or {}) - getattr(overrides, "offered", frozenset()))
        if required:
            raise UsageError(f"--set {', '.join(required)}: {path} is {fmt.description}, which has no variables")
        return load_converted(path, data, fmt)
    return load_scenario_text(decode_source(data, path), path, overrides=overrides,
                              environ=os.environ if environ is None else environ)


def load_converted(path: str, data: bytes, fmt: InputFormat) -> Scenario:
    """The file at ``path`` (its bytes ``data``) converted by ``fmt`` and loaded; what the loader says
    of the converted YAML points at the source line its test came from."""
    from gftpwb.core.dsl.loader import load_scenario_text

    converted = fmt.convert(path, data, shell_env())
    try:
        scenario = load_scenario_text(converted.text, f"{path} (as imported)")
    except ScenarioError as exc:
        raise ScenarioError([_at_source_line(d, path, converted) for d in exc.diagnostics]) from None
    warnings = [*converted.warnings, *(_at_source_line(d, path, converted) for d in scenario.warnings)]
    return dataclasses.replace(scenario, warnings=tuple(warnings))


_TEST_REF = re.compile(r"test '([^']+)'")


def _at_source_line(diagnostic: Diagnostic, path: str, converted: Converted) -> Diagnostic:
    match = _TEST_REF.search(diagnostic.message)
    line = converted.lines.get(match.group(1)) if match else None
    if line is None:
        return diagnostic
    return dataclasses.replace(diagnostic, file=path, line=line, column=0)


def shell_env() -> dict[str, str]:
    """The variables the shells of the tools gftpwb replaces had (tgftp's bash), for expanding ``$HOME``
    and the like as they did: the environment, and what bash sets itself."""
    env = dict(os.environ)
    env.setdefault("PWD", os.getcwd())
    env.setdefault("HOSTNAME", os.uname().nodename)
    env.setdefault("UID", str(os.getuid()))
    env.setdefault("EUID", str(os.geteuid()))
    return env


def parse_assignments(items: Sequence[str], offered: Sequence[str] = ()) -> Assignments:
    """``--set name=value`` and ``--lab-var name=value`` arguments as a mapping (a later one wins, and
    ``--set`` over ``--lab-var``); the names given only by ``--lab-var`` are its ``offered`` ones."""
    from gftpwb.core.dsl.variables import Assignments

    lab = _pairs(offered, "--lab-var")
    given = _pairs(items, "--set")
    return Assignments({**lab, **given}, offered=frozenset(lab) - frozenset(given))


def _pairs(items: Sequence[str], option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"{option} {item!r}: write name=value")
        out[name.strip()] = value
    return out


def preflight(specs: Sequence[RunSpec], hosts: Sequence[Host] = (),
              transport_for: Callable[[str], Transport] | None = None, *, slurm: SlurmSetup | None = None) -> None:
    """Raise EnvironmentProblem when a program that runs on this machine is not on PATH, or when a
    check a kind asks for fails on a host the runs use (``hosts``: the scenario's inventory;
    ``transport_for``: other transports than the run's, for tests), before anything is made or run.
    With ``slurm`` (the scenario's block): AllocationError (exit 10) when Slurm shows that the
    allocation cannot be had (a partition down, too few nodes, a named job not running)."""
    if slurm is not None:
        from .transports.slurm.allocation import preflight as slurm_preflight

        slurm_preflight(slurm)
    reg = registry()
    seen: set[str] = set()
    for spec in specs:
        if spec.host != LOCAL:
            continue  # other hosts: `gftpwb hosts check` looks; a run there reports what is missing
        for program in reg.kind(spec.kind).planner.programs(spec):
            if program.name not in seen and shutil.which(program.name) is None:
                raise EnvironmentProblem(f"{program.name} not found in PATH; {program.hint}")
            seen.add(program.name)
    from .hostchecks import find_problems

    slots = frozenset(slurm.slots) if slurm is not None else frozenset()
    found = find_problems(specs, hosts, transport_for, skip=slots)
    if found:
        raise EnvironmentProblem("\n".join(found))


DEFAULT_BASE = "results"  # gftpwb.shell.results_dir.DEFAULT_BASE, without importing it (validate never needs it)


def results_dir(scenario: Scenario, base: str = DEFAULT_BASE, *, results: str | None = None,
                resume: str | None = None, specs: Sequence[RunSpec] | None = None) -> str:
    """The results directory of a run: ``results`` if given; with ``resume`` that directory, or for ""
    the newest one of this scenario under ``base`` that has runs left (of the plan ``specs`` when there
    is one: :func:`gftpwb.shell.results_dir.to_resume`); else a new ``<base>/<UTC>-<scenario>``."""
    from . import results_dir as rd  # the journal, tag logs and events: loaded only when a run starts

    if resume is not None:
        return resume or rd.to_resume(base, scenario.name, specs)
    return results or rd.new_results_dir(base, scenario.name)


def repeat_command(scenario_path: str, results: str, *, only: Sequence[str] = (),
                   accept_new_host_keys: bool = False, where: Sequence[str] = (),
                   overrides: Mapping[str, str] | None = None) -> list[str]:
    """The headless command that repeats a run (recorded in meta.json and the tag logs of runs that
    were not started by a command line of their own, such as the TUI's)."""
    offered = getattr(overrides, "offered", frozenset())
    sets = [arg for name, value in (overrides or {}).items()
            for arg in ("--lab-var" if name in offered else "--set", f"{name}={value}")]
    return ["gftpwb", "run", scenario_path, *(["--only", ",".join(only)] if only else []),
            *(arg for condition in where for arg in ("--where", condition)), *sets, "--results", results,
            *(["--accept-new-host-keys"] if accept_new_host_keys else [])]


def run(request: RunRequest) -> Outcome:
    """Prepare the results directory and run the plan to its end (or to Ctrl-C)."""
    import asyncio

    from . import interrupts
    from .session import execute, prepare_run  # the executor, asyncio and SSH: loaded when a run starts

    interrupts.defer()  # from here a Ctrl-C stops the run at its next checkpoint, leaving nothing half-written
    return asyncio.run(execute(prepare_run(request)))


def exit_code(summary: Summary | None) -> int:
    """0 all passed (or nothing run), 1 some run did not pass, 8 all passed but a threshold
    (``expect:``) was not met, 130 stopped by the user (Ctrl-C or a front end's stop), 143 by
    SIGTERM, 129 by SIGHUP."""
    if summary is None:
        return EXIT_OK
    if summary.interrupted:
        return EXIT_STOPPED_BY.get(summary.stopped_by, EXIT_INTERRUPTED)
    if not summary.all_passed:
        return EXIT_RUNS_FAILED
    return EXIT_EXPECTATIONS if summary.violations else EXIT_OK
