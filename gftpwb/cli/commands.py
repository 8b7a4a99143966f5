"""Handlers of ``gftpwb validate``, ``schema`` and ``run``: parsed arguments in, exit code out; the
work is the front-end service's (:mod:`gftpwb.shell.frontend`)."""

from __future__ import annotations

import argparse
import os
import sys

from gftpwb.core.errors import EXIT_OK, ScenarioError, UsageError
from gftpwb.core.masking import mask_text
from gftpwb.core.plan import plan, with_trace
from gftpwb.core.registry import registry
from gftpwb.shell import frontend


def _err(text: str) -> None:
    print(text, file=sys.stderr)


def cmd_validate(args: argparse.Namespace) -> int:
    worst = EXIT_OK
    overrides = frontend.parse_assignments(args.set, args.lab_var)
    for path in args.files:
        try:
            scenario = frontend.load(path, overrides)
        except ScenarioError as exc:
            for diagnostic in exc.diagnostics:
                _err(str(diagnostic))
            worst = exc.exit_code
            continue
        for warning in scenario.warnings:
            _err(str(warning))
        runs = len(plan(scenario))
        monitors = f", {len(scenario.monitors)} monitor(s)" if scenario.monitors else ""
        print(f"{path}: ok ({len(scenario.tests)} test(s), {runs} run(s){monitors})")
    return worst


def cmd_schema(args: argparse.Namespace) -> int:
    from gftpwb.core.dsl.schema import render_schema

    sys.stdout.write(render_schema())
    return EXIT_OK


def cmd_never(args: argparse.Namespace) -> int:
    return EXIT_OK  # "gftpwb tgftp ..." never gets here: main() hands it to the drop-in first


def base_of(directory: str, base: str) -> str:
    """The results base the TUI lists in its results view (and starts further runs under): the usual one,
    or the folder of this run's directory when ``--results`` (or ``--resume DIR``) put it elsewhere, so the
    run just made is there to open (the view said 'No results under results/ yet.' after such a run)."""
    parent = os.path.dirname(os.path.normpath(directory)) or "."
    return base if os.path.abspath(parent) == os.path.abspath(base) else parent


def cmd_run(args: argparse.Namespace) -> int:
    from .liveout import check_options

    check_options(args)
    scenario = frontend.load(args.scenario, frontend.parse_assignments(args.set, args.lab_var))
    for warning in scenario.warnings:
        _err(str(warning))
    if args.trace is not None:
        from gftpwb.core.trace.setting import parse_option

        try:
            scenario = with_trace(scenario, parse_option(args.trace))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    only = [item for value in args.only for item in value.split(",") if item]
    specs = plan(scenario, only, args.where)
    if args.dry_run:
        from .liveout import check_outputs

        check_outputs(args)  # what the run would refuse before it starts, the dry run refuses too
        if scenario.slurm is not None:
            print(scenario.slurm.describe())
        for monitor in scenario.monitors:
            print(monitor.describe())
        for spec in specs:
            limit = f"  # timeout {spec.timeout_s:g}s" if spec.timeout_s else ""
            if spec.delay_s:
                limit += f"  # after {spec.delay_s:g}s delay"
            print(mask_text("\n".join(registry().kind(spec.kind).planner.describe(spec, limit))))
        return EXIT_OK
    frontend.preflight(specs, scenario.hosts, slurm=scenario.slurm)
    directory = frontend.results_dir(scenario, args.results_base, results=args.results, resume=args.resume,
                                    specs=specs)
    from gftpwb.shell.session import RunRequest

    from .liveout import open_outputs

    held: list[str] = []  # what the outputs say while the TUI draws: printed when it is gone

    def say(text: str) -> None:
        if args.tui:
            held.append(text)
        else:
            _err(f"gftpwb: {text}")

    outputs = open_outputs(args, scenario.name, say)
    request = RunRequest(scenario=scenario, specs=specs, results_dir=directory, command=["gftpwb", *sys.argv[1:]],
                         resume=args.resume is not None, accept_new_host_keys=args.accept_new_host_keys,
                         trace_to=args.trace_to, subscribers=list(outputs.subscribers))
    code = EXIT_OK
    try:
        if args.tui:
            from gftpwb.tui.launch import run_in_tui  # Textual is loaded only when the TUI is asked for

            code = run_in_tui(request, scenario_path=args.scenario, results_base=base_of(directory, args.results_base),
                              overrides=frontend.parse_assignments(args.set, args.lab_var))
        else:
            from gftpwb.shell.sinks.console import ConsoleSink, plain_or_terminal_console

            live = {"auto": None, "always": True, "never": False}[args.progress]
            console = plain_or_terminal_console(stderr=outputs.events_to_stdout)
            request.subscribers.append(ConsoleSink(console, live=live))
            code = frontend.exit_code(frontend.run(request).summary)
    finally:
        for text in held:
            _err(f"gftpwb: {text}")
        pushed = outputs.finish(lambda text: _err(f"gftpwb: warning: {text}"))
    return code if code != EXIT_OK else pushed
