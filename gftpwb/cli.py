"""The ``gftpwb`` command line: argument parsing and wiring only.

Every error a user can cause ends here as one clear message on stderr and a distinct exit code
(see :mod:`gftpwb.errors`), never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import shlex
import shutil
import sys
from collections.abc import Sequence

from . import __version__
from . import results_dir as rd
from .autotune.plan import describe as describe_autotune
from .drivers.guc import GUC
from .dsl.schema import packaged_schema_text
from .errors import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_RUNS_FAILED,
    EnvironmentProblem,
    GftpwbError,
    ScenarioError,
    UsageError,
)
from .exec.lab import DEFAULT_ADDRESS, DEFAULT_PORT
from .migrate_cli import add_parsers as add_migration_parsers
from .migrate_cli import load_scenario_or_batchfile
from .plan import plan
from .session import RunRequest, execute, prepare_run
from .sinks.console import ConsoleSink, plain_or_terminal_console


def _err(text: str) -> None:
    print(text, file=sys.stderr)


# --- validate / schema ----------------------------------------------------------------------------


def cmd_validate(args: argparse.Namespace) -> int:
    worst = EXIT_OK
    for path in args.files:
        try:
            scenario = load_scenario_or_batchfile(path)
        except ScenarioError as exc:
            for diagnostic in exc.diagnostics:
                _err(str(diagnostic))
            worst = exc.exit_code
            continue
        for warning in scenario.warnings:
            _err(str(warning))
        runs = len(plan(scenario))
        print(f"{path}: ok ({len(scenario.tests)} test(s), {runs} run(s))")
    return worst


def cmd_schema(args: argparse.Namespace) -> int:
    sys.stdout.write(packaged_schema_text())
    return EXIT_OK


# --- run ------------------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    scenario = load_scenario_or_batchfile(args.scenario)
    for warning in scenario.warnings:
        _err(str(warning))
    only = [item for value in args.only for item in value.split(",") if item]
    specs = plan(scenario, only)
    if args.dry_run:
        for spec in specs:
            limit = f"  # timeout {spec.timeout_s:g}s" if spec.timeout_s else ""
            if spec.kind == "autotune":
                header, *commands = describe_autotune(spec)
                print("\n".join([header + limit, *commands]))
                continue
            sim = "  # SIMULATED" if spec.engine == "simulated" else ""
            print(f"{spec.run_id}: {shlex.join(spec.argv)}{limit}{sim}")
        return EXIT_OK
    if any(s.host == "local" and s.kind in ("guc", "autotune") and s.engine == "real" for s in specs) \
            and shutil.which(GUC) is None:
        raise EnvironmentProblem(f"{GUC} not found in PATH; install the Debian package globus-gass-copy-progs "
                                 "(make demo does)")
    if args.resume is not None:
        directory = args.resume or rd.latest_for(args.results_base, scenario.name)
        if not directory:
            raise UsageError(f"nothing to resume: no results of {scenario.name} under {args.results_base}/")
    else:
        directory = args.results or rd.new_results_dir(args.results_base, scenario.name)
    console = plain_or_terminal_console()
    live = {"auto": None, "always": True, "never": False}[args.progress]
    request = RunRequest(scenario=scenario, specs=specs, results_dir=directory, command=["gftpwb", *sys.argv[1:]],
                         resume=args.resume is not None,
                         subscribers=[] if args.tui else [ConsoleSink(console, live=live)],
                         accept_new_host_keys=args.accept_new_host_keys)
    if args.tui:
        from .tui.launch import run_in_tui  # Textual is loaded only when the TUI is asked for

        return run_in_tui(request, scenario_path=args.scenario, results_base=args.results_base)
    prepared = prepare_run(request)
    summary = asyncio.run(execute(prepared))
    if summary.interrupted:
        return EXIT_INTERRUPTED
    return EXIT_OK if summary.all_passed else EXIT_RUNS_FAILED


def _cmd_tui(args: argparse.Namespace) -> int:
    from .tui.launch import cmd_tui  # Textual is loaded only when the TUI is asked for

    return cmd_tui(args)


# --- lab ------------------------------------------------------------------------------------------


def cmd_lab(args: argparse.Namespace) -> int:
    from .lab_cmd import cmd_lab as run_lab_command

    return run_lab_command(args)


def cmd_hosts(args: argparse.Namespace) -> int:
    from .hosts_cmd import cmd_hosts as run_hosts_command

    return run_hosts_command(args)


# --- parser ---------------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gftpwb", description="GridFTP / GlusterFS performance workbench.")
    parser.add_argument("--version", action="version", version=f"gftpwb {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("validate", help="check scenario files; errors as file:line:col: message")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("schema", help="print the scenario JSON Schema (draft-07)")
    p.set_defaults(func=cmd_schema)

    p = sub.add_parser("run", help="run a scenario headless")
    p.add_argument("scenario", metavar="SCENARIO")
    p.add_argument("--results", metavar="DIR", help="results directory of this run "
                   "(default results/<UTC timestamp>-<scenario name>)")
    p.add_argument("--results-base", metavar="DIR", default=rd.DEFAULT_BASE, help=argparse.SUPPRESS)
    p.add_argument("--only", metavar="ID", action="append", default=[],
                   help="run only this test (repeat or comma-separate for several)")
    p.add_argument("--dry-run", action="store_true", help="print the planned guc commands and exit")
    p.add_argument("--resume", nargs="?", const="", metavar="DIR",
                   help="continue an interrupted run (default: the newest results of this scenario), "
                        "skipping runs already recorded")
    p.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="live progress line: auto (on a terminal), always, never (plain lines)")
    p.add_argument("--accept-new-host-keys", action="store_true",
                   help="trust SSH hosts missing from their known_hosts file on first use and add their keys "
                        "to it (logged); a changed key is always refused")
    p.add_argument("--tui", action="store_true", help="show the run in the TUI workbench (same results)")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("tui", help="the TUI workbench: scenario, live run, threads, auto-tune, past results")
    p.add_argument("scenario", nargs="?", metavar="SCENARIO", help="scenario to show and run (r); invalid ones "
                   "show their problems at file:line:col")
    p.add_argument("--results-base", metavar="DIR", default=rd.DEFAULT_BASE,
                   help=f"where results directories go and are browsed (default {rd.DEFAULT_BASE}/)")
    p.add_argument("--accept-new-host-keys", action="store_true",
                   help="trust SSH hosts missing from their known_hosts file on first use (logged)")
    p.set_defaults(func=_cmd_tui)

    add_migration_parsers(sub)
    p = sub.add_parser("tgftp", help="tgftp 0.7.0's command line (drop-in): gftpwb tgftp --help", add_help=False)
    p.set_defaults(func=lambda args: 0)  # never reached: main() hands "tgftp ..." to gftpwb.tgftp_cli first

    p = sub.add_parser("hosts", help="the hosts of a scenario's inventory")
    hosts_sub = p.add_subparsers(dest="hosts_command", required=True, metavar="ACTION")
    q = hosts_sub.add_parser("check", help="connect to every host: reachability, login, guc, gcc/libgfapi, clock "
                             "offset, TCP buffer caps (exit 1 if a host fails)")
    q.add_argument("scenario", metavar="SCENARIO")
    q.add_argument("--only", metavar="HOST", action="append", default=[],
                   help="check only these hosts (repeat or comma-separate; 'local' is this machine)")
    q.add_argument("--json", action="store_true", help="machine-readable output")
    q.add_argument("--accept-new-host-keys", action="store_true",
                   help="trust hosts missing from their known_hosts file on first use and add their keys to it")
    q.set_defaults(func=cmd_hosts)

    p = sub.add_parser("lab", help="the local lab: a GridFTP server on loopback, and namespace test hosts")
    lab_sub = p.add_subparsers(dest="lab_command", required=True, metavar="ACTION")
    for name, text in (("up", "start the lab"), ("down", "stop the lab"), ("status", "show the lab")):
        q = lab_sub.add_parser(name, help=text)
        q.add_argument("--state-dir", metavar="DIR", help="lab state directory (default $GFTPWB_LAB_DIR or "
                       "~/.local/state/gftpwb/lab)")
        if name == "up":
            q.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"GridFTP port (default {DEFAULT_PORT})")
            q.add_argument("--address", default=DEFAULT_ADDRESS, help=f"address (default {DEFAULT_ADDRESS})")
            q.add_argument("--hosts", type=int, default=0, metavar="N",
                           help="also create N test hosts: network namespaces with their own sshd")
            q.add_argument("--rate", metavar="RATE", help="shape each host's link with tc tbf (e.g. 400mbit)")
            q.add_argument("--gridftp-on-hosts", action="store_true",
                           help="also run a GridFTP server in each namespace host")
            q.add_argument("--gluster", action="store_true",
                           help="also start glusterd and a single-brick volume for gfapi tests")
            q.add_argument("--gluster-address", metavar="ADDR",
                           help="the volume's server address, reachable by every client (default: a 198.18.x.y "
                                "address the lab adds to lo)")
            q.add_argument("--gluster-volume", metavar="NAME",
                           help="the volume's name (default gftpwb-<hash of the state directory>)")
        if name == "status":
            q.add_argument("--json", action="store_true", help="machine-readable output")
        q.set_defaults(func=cmd_lab)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["tgftp"]:  # tgftp's own parser: its options and "--" cannot go through argparse
        from .tgftp_cli import tgftp_main

        return tgftp_main(argv[1:], program="tgftp")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ScenarioError as exc:
        for diagnostic in exc.diagnostics:
            _err(str(diagnostic))
        return exc.exit_code
    except GftpwbError as exc:
        _err(f"gftpwb: {exc}")
        return exc.exit_code
    except KeyboardInterrupt:
        _err("gftpwb: interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
