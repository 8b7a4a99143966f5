"""The ``gftpwb`` argument parser, one small function per command.

Nothing heavy is imported here: each command names its handler as ``"module:function"``, imported
only when that command runs, so ``gftpwb --help`` and ``gftpwb validate`` do not load the executor,
asyncssh, Rich or Textual (bench/startup.py measures it).
"""

from __future__ import annotations

import argparse

from gftpwb import __version__

DEFAULT_RESULTS_BASE = "results"  # gftpwb.shell.results_dir.DEFAULT_BASE; kept here so --help imports nothing
LAB_PORT, LAB_ADDRESS = 2811, "127.0.0.1"  # gftpwb.shell.lab.gridftp.DEFAULT_PORT / DEFAULT_ADDRESS

Sub = argparse._SubParsersAction


def handler(parser: argparse.ArgumentParser, reference: str) -> None:
    """The command's handler, ``"module:function"`` taking the parsed arguments, imported when it runs."""
    parser.set_defaults(handler=reference)


def add_set(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", metavar="NAME=VALUE", action="append", default=[], dest="set",
                   help="give a variable of the scenario's vars: a value (repeat for several; read as YAML: 4 is "
                        "a number); overrides the default and GFTPWB_VAR_NAME")


def add_validate(sub: Sub) -> None:
    p = sub.add_parser("validate", help="check scenario files; errors as file:line:col: message")
    p.add_argument("files", nargs="+", metavar="FILE")
    add_set(p)
    handler(p, "gftpwb.shell.cli.commands:cmd_validate")


def add_schema(sub: Sub) -> None:
    p = sub.add_parser("schema", help="print the scenario JSON Schema (draft-07)")
    handler(p, "gftpwb.shell.cli.commands:cmd_schema")


def add_run(sub: Sub) -> None:
    p = sub.add_parser("run", help="run a scenario headless")
    p.add_argument("scenario", metavar="SCENARIO")
    p.add_argument("--results", metavar="DIR", help="results directory of this run "
                   "(default results/<UTC timestamp>-<scenario name>)")
    p.add_argument("--results-base", metavar="DIR", default=DEFAULT_RESULTS_BASE, help=argparse.SUPPRESS)
    p.add_argument("--only", metavar="ID", action="append", default=[],
                   help="run only this test, or one case of it: ID[CASE] (repeat or comma-separate for several)")
    p.add_argument("--where", metavar="PARAM=VALUE", action="append", default=[],
                   help="run only the cases whose parameter has this value, e.g. parallel=4 or tcp_buffer!=8M "
                        "(repeat or comma-separate: all must hold)")
    add_set(p)
    p.add_argument("--dry-run", action="store_true", help="print the planned guc commands and exit")
    p.add_argument("--resume", nargs="?", const="", metavar="DIR",
                   help="continue an interrupted run (default: the newest results of this scenario), "
                        "skipping runs already recorded")
    p.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="live progress line: auto (on a terminal), always, never (plain lines)")
    p.add_argument("--accept-new-host-keys", action="store_true",
                   help="trust SSH hosts missing from their known_hosts file on first use and add their keys "
                        "to it (logged); a changed key is always refused")
    p.add_argument("--trace", metavar="LEVEL", help="trace every test at this level, whatever the scenario says: "
                   "off, run (spans of runs and their phases, samples: trace.jsonl) or io (also every I/O of the "
                   "gfapi workers; io:N keeps one in N per thread); gftpwb trace export/summary read it")
    p.add_argument("--trace-to", metavar="HOST:PORT", default="",
                   help="also stream the trace live to a collector (gftpwb trace collect --listen PORT on that host)")
    p.add_argument("--tui", action="store_true", help="show the run in the TUI workbench (same results)")
    handler(p, "gftpwb.shell.cli.commands:cmd_run")


TRACE_EXAMPLES = """\
examples:
  gftpwb run scenario.yaml --trace run
  gftpwb trace export results/20261122T143047Z-smallfiles --format perfetto   # open it in ui.perfetto.dev
  gftpwb trace export results/20261122T143047Z-smallfiles --format bp -o trace.bp
  gftpwb trace summary results/20261122T143047Z-smallfiles
"""


def add_trace(sub: Sub) -> None:
    p = sub.add_parser("trace", help="export or summarise the traces of a results directory",
                       epilog=TRACE_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    cmds = p.add_subparsers(dest="trace_command", required=True, metavar="ACTION")
    q = cmds.add_parser("export", help="write the traces as NetLogger BP text or Chrome/Perfetto trace JSON")
    q.add_argument("directory", metavar="DIR", help="a results directory of a traced run")
    q.add_argument("--format", choices=("bp", "perfetto"), required=True,
                   help="bp: NetLogger best-practice lines (ts=... event=... level=...); perfetto: Chrome "
                        "Trace Event JSON (ui.perfetto.dev, chrome://tracing)")
    q.add_argument("-o", "--output", metavar="FILE",
                   help="where to write (default: DIR/trace.bp or DIR/trace.perfetto.json; - for stdout)")
    handler(q, "gftpwb.shell.cli.trace:cmd_export")
    q = cmds.add_parser("summary", help="per-operation latency histograms and the slowest intervals")
    q.add_argument("directory", metavar="DIR", help="a results directory of a traced run")
    q.add_argument("--top", type=int, default=5, metavar="N", help="how many slowest intervals and I/Os to list "
                   "(default 5)")
    handler(q, "gftpwb.shell.cli.trace:cmd_summary")
    q = cmds.add_parser("collect", help="receive live traces over TCP (gftpwb run --trace-to HOST:PORT) and store them")
    q.add_argument("--listen", metavar="[HOST]:PORT", default=":14380",
                   help="address and port to listen on (default :14380, all addresses, NetLogger's netlogd port)")
    q.add_argument("--out", metavar="DIR", default="traces",
                   help="where to store them: DIR/<sender host>/<results directory>/ (default traces/)")
    q.add_argument("--once", action="store_true", help="exit after the first sender has finished")
    handler(q, "gftpwb.shell.cli.trace:cmd_collect")


REPORT_EXAMPLES = """\
examples:
  gftpwb report results/20261122T143047Z-quickstart
  gftpwb report results/*-quickstart --csv cases.csv --junit junit.xml
  gftpwb report results/20261122T143047Z-quickstart --json | jq '.directories[0].cases[0].figures[0].stats'

Per case: the median, mean ± 95 % confidence interval and CV of each kind's figures (guc: the rate
incl. set-up and guc's own average), over passed runs that are not warm-ups. Every run of a directory
counts, resumed or not (the latest record of each run id). --json follows schemas/report.schema.json.
"""


def add_report(sub: Sub) -> None:
    p = sub.add_parser("report", help="summarise results directories: statistics per case, JSON, CSV, JUnit XML",
                       description="Summarise one or more results directories.", epilog=REPORT_EXAMPLES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dirs", nargs="+", metavar="DIR", help="results directories (results/<UTC>-<scenario>)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON on stdout instead of tables")
    p.add_argument("--csv", metavar="FILE", help="also write each case's statistics as CSV (one row per figure)")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML: one testcase per run, failures as failures")
    handler(p, "gftpwb.shell.cli.report:cmd_report")


def add_tui(sub: Sub) -> None:
    p = sub.add_parser("tui", help="the TUI workbench: scenario, live run, threads, auto-tune, past results")
    p.add_argument("scenario", nargs="?", metavar="SCENARIO", help="scenario to show and run (r); invalid ones "
                   "show their problems at file:line:col")
    p.add_argument("--results-base", metavar="DIR", default=DEFAULT_RESULTS_BASE,
                   help=f"where results directories go and are browsed (default {DEFAULT_RESULTS_BASE}/)")
    p.add_argument("--accept-new-host-keys", action="store_true",
                   help="trust SSH hosts missing from their known_hosts file on first use (logged)")
    add_set(p)
    handler(p, "gftpwb.tui.launch:cmd_tui")  # Textual is loaded only when the TUI is asked for


def add_tgftp(sub: Sub) -> None:
    p = sub.add_parser("tgftp", help="tgftp 0.7.0's command line (drop-in): gftpwb tgftp --help", add_help=False)
    handler(p, "gftpwb.shell.cli.commands:cmd_never")  # main() hands "tgftp ..." to the drop-in first


def add_hosts(sub: Sub) -> None:
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
    handler(q, "gftpwb.shell.cli.hosts:cmd_hosts")


def add_lab_up_options(q: argparse.ArgumentParser) -> None:
    q.add_argument("--port", type=int, default=LAB_PORT, help=f"GridFTP port (default {LAB_PORT})")
    q.add_argument("--address", default=LAB_ADDRESS, help=f"address (default {LAB_ADDRESS})")
    q.add_argument("--hosts", type=int, default=0, metavar="N",
                   help="also create N test hosts: network namespaces with their own sshd")
    q.add_argument("--rate", metavar="RATE", help="shape each host's link with tc tbf (e.g. 400mbit)")
    q.add_argument("--gridftp-on-hosts", action="store_true",
                   help="also run a GridFTP server in each namespace host")
    q.add_argument("--striped", action="store_true",
                   help="with --hosts N: striped GridFTP, a data node per side on each host and a front end per "
                        "side on the bridge (guc -stripe from ftp://CONTROLLER:2812 to ftp://CONTROLLER:2813)")
    q.add_argument("--gluster", action="store_true",
                   help="also start glusterd and a single-brick volume for gfapi tests")
    q.add_argument("--gluster-address", metavar="ADDR",
                   help="the volume's server address, reachable by every client (default: a 198.18.x.y "
                        "address the lab adds to lo)")
    q.add_argument("--gluster-volume", metavar="NAME",
                   help="the volume's name (default gftpwb-<hash of the state directory>)")


def add_lab(sub: Sub) -> None:
    p = sub.add_parser("lab", help="the local lab: a GridFTP server on loopback, and namespace test hosts")
    lab_sub = p.add_subparsers(dest="lab_command", required=True, metavar="ACTION")
    for name, text in (("up", "start the lab"), ("down", "stop the lab"), ("status", "show the lab")):
        q = lab_sub.add_parser(name, help=text)
        q.add_argument("--state-dir", metavar="DIR", help="lab state directory (default $GFTPWB_LAB_DIR or "
                       "~/.local/state/gftpwb/lab)")
        if name == "up":
            add_lab_up_options(q)
        if name == "status":
            q.add_argument("--json", action="store_true", help="machine-readable output")
            q.add_argument("--vars", action="store_true", help="print --set options that point a scenario's "
                           "variables at the lab (lab, ctrl, src, dst), as scenarios/teragrid-study.yaml takes them")
        handler(q, "gftpwb.shell.cli.lab:cmd_lab")


def build_parser() -> argparse.ArgumentParser:
    from gftpwb.migrate_cli import add_parsers as add_migration_parsers

    parser = argparse.ArgumentParser(prog="gftpwb", description="GridFTP / GlusterFS performance workbench.")
    parser.add_argument("--version", action="version", version=f"gftpwb {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_validate(sub)
    add_schema(sub)
    add_run(sub)
    add_report(sub)
    add_trace(sub)
    add_tui(sub)
    add_migration_parsers(sub)
    add_tgftp(sub)
    add_hosts(sub)
    add_lab(sub)
    return parser
