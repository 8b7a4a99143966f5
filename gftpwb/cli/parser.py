"""The ``gftpwb`` argument parser, one small function per command.

Nothing heavy is imported here: each command names its handler as ``"module:function"``, imported
only when that command runs, so ``gftpwb --help`` and ``gftpwb validate`` do not load the executor,
asyncssh, Rich or Textual (bench/startup.py measures it).
"""

from __future__ import annotations

import argparse
from typing import Any

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
    p.add_argument("--lab-var", metavar="NAME=VALUE", action="append", default=[], dest="lab_var",
                   help="like --set, for a value the lab offers every scenario (gftpwb lab status --vars prints "
                        "them): a scenario that does not declare NAME ignores it")


def add_validate(sub: Sub) -> None:
    p = sub.add_parser("validate", help="check scenario files; errors as file:line:col: message")
    p.add_argument("files", nargs="+", metavar="FILE")
    add_set(p)
    handler(p, "gftpwb.cli.commands:cmd_validate")


def add_schema(sub: Sub) -> None:
    p = sub.add_parser("schema", help="print the scenario JSON Schema (draft-07)")
    handler(p, "gftpwb.cli.commands:cmd_schema")


def add_run(sub: Sub) -> None:
    p = sub.add_parser("run", help="run a scenario headless")
    p.add_argument("scenario", metavar="SCENARIO")
    p.add_argument("--results", metavar="DIR", help="results directory of this run "
                   "(default results/<UTC timestamp>-<scenario name>)")
    p.add_argument("--results-base", metavar="DIR", default=DEFAULT_RESULTS_BASE,
                   help="where new results directories go and where a bare --resume looks (default results/)")
    p.add_argument("--only", metavar="ID", action="append", default=[],
                   help="run only this test, or one case of it: ID[CASE], CASE the case's number as the tables' # "
                        "column and the run ids give it (repeat or comma-separate for several)")
    p.add_argument("--where", metavar="PARAM=VALUE", action="append", default=[],
                   help="run only the cases whose parameter has this value, e.g. parallel=4 or tcp_buffer!=8M "
                        "(repeat or comma-separate: all must hold)")
    add_set(p)
    p.add_argument("--dry-run", action="store_true", help="print the planned guc commands and exit")
    p.add_argument("--resume", nargs="?", const="", metavar="DIR",
                   help="continue an interrupted run, skipping runs already recorded (default: the newest "
                        "directory of this scenario under the results base with runs left; never a finished one)")
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
    out = p.add_argument_group("results out while they happen (docs/live-results.md)")
    out.add_argument("--events", choices=("jsonl",), help="write every event as one JSON line to stdout as it happens "
                     "(schemas/events.schema.json); the console moves to stderr")
    out.add_argument("--events-file", metavar="PATH", help="write the event stream to this file (or FIFO) instead")
    out.add_argument("--metrics", metavar="HOST:PORT", help="serve the current figures for Prometheus at "
                     "http://HOST:PORT/metrics while the run lasts (port 0: any free port)")
    out.add_argument("--pushgateway", metavar="URL", help="push the figures to a Prometheus pushgateway at the end "
                     "of each run and of the scenario (job gftpwb, grouped by scenario); exit 9 if the last push "
                     "failed and nothing else did")
    handler(p, "gftpwb.cli.commands:cmd_run")


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
    handler(q, "gftpwb.cli.trace:cmd_export")
    q = cmds.add_parser("summary", help="per-operation latency histograms and the slowest intervals")
    q.add_argument("directory", metavar="DIR", help="a results directory of a traced run")
    q.add_argument("--top", type=int, default=5, metavar="N", help="how many slowest intervals and I/Os to list "
                   "(default 5)")
    handler(q, "gftpwb.cli.trace:cmd_summary")
    q = cmds.add_parser("collect", help="receive live traces over TCP (gftpwb run --trace-to HOST:PORT) and store them")
    q.add_argument("--listen", metavar="[HOST]:PORT", default=":14380",
                   help="address and port to listen on (default :14380, all addresses, NetLogger's netlogd port)")
    q.add_argument("--out", metavar="DIR", default="traces",
                   help="where to store them: DIR/<sender host>/<results directory>/ (default traces/)")
    q.add_argument("--once", action="store_true", help="exit after the first sender has finished")
    handler(q, "gftpwb.cli.trace:cmd_collect")


REPORT_EXAMPLES = """\
examples:
  gftpwb report results/20261122T143047Z-quickstart
  gftpwb report results/*-quickstart --csv cases.csv --junit junit.xml
  gftpwb report results/20261122T143047Z-quickstart --html report.html   # open it in any browser, offline
  gftpwb report results/20261122T143047Z-quickstart --json | jq '.directories[0].cases[0].figures[0].stats'

Per case: the median, mean ± 95 % confidence interval and CV of each kind's figures (guc: the rate
incl. set-up and guc's own average), over passed runs that are not warm-ups. Every run of a directory
counts, resumed or not (the latest record of each run id). --json follows schemas/report.schema.json.
--html writes one self-contained page (inline SVG charts, nothing loaded from anywhere): the tables,
rate per case with CI whiskers, rate over time per run, gfapi per host and per thread, auto-tune
rankings, the trend of each case's median across earlier runs of the scenario (the results
directories beside DIR), and the environment of every host.
"""


def add_report(sub: Sub) -> None:
    p = sub.add_parser("report", help="summarise results directories: statistics per case, JSON, CSV, JUnit XML",
                       description="Summarise one or more results directories.", epilog=REPORT_EXAMPLES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("dirs", nargs="+", metavar="DIR", help="results directories (results/<UTC>-<scenario>)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON on stdout instead of tables")
    p.add_argument("--csv", metavar="FILE", help="also write each case's statistics as CSV (one row per figure)")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML: one testcase per run, failures as failures")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report with charts")
    p.add_argument("--openmetrics", metavar="FILE", help="also write the figures in the Prometheus text format "
                   "(for node_exporter's textfile collector: a FILE ending in .prom in its directory)")
    p.add_argument("--pushgateway", metavar="URL", help="also push the figures of each directory to a Prometheus "
                   "pushgateway (job gftpwb, grouped by scenario); exit 9 if a push fails")
    p.add_argument("--trend", metavar="N", type=int, default=20,
                   help="--html: each case's median in the N latest runs of the scenario beside DIR (default 20; "
                        "0: no trend)")
    handler(p, "gftpwb.cli.report:cmd_report")


RESULTS_EXAMPLES = """\
examples:
  gftpwb results list
  gftpwb results query "SELECT test_id, median(value) FROM figures WHERE headline AND counted GROUP BY ALL"
  gftpwb results query "SELECT directory, run_id, error FROM runs WHERE status <> 'passed'" --csv
  gftpwb results views --results-base /mnt/shared/results > views.sql   # for the duckdb command line

DuckDB reads the journals (<base>/*/results.jsonl) and meta.json files where they are: nothing is
imported, results.jsonl stays the source of truth. Views: records (every line), runs (the latest
record of each run id), figures (one row per run and figure: value, counted, excluded), directories
(one row per results directory). `gftpwb results query --help` lists their columns.
"""


def columns_help() -> str:
    from gftpwb.core.history import COLUMNS  # plain data: no DuckDB, no registry

    lines = ["views and columns:"]
    for view, columns in COLUMNS.items():
        lines.append(f"  {view}")
        lines.extend(f"    {name}: {text}" for name, text in columns.items())
    return "\n".join(lines)


def add_results(sub: Sub) -> None:
    p = sub.add_parser("results", help="the results history: list results directories, query them with SQL (DuckDB)",
                       description="The results history (DuckDB over the journals in place).",
                       epilog=RESULTS_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    results_sub = p.add_subparsers(dest="results_command", required=True, metavar="ACTION")
    base_help = (f"the results base: a directory of results directories (default {DEFAULT_RESULTS_BASE}/), on "
                 "shared storage too, or a URL DuckDB reads (s3://bucket/results with httpfs)")
    q = results_sub.add_parser("list", help="every results directory under the base, newest first: scenario, "
                               "when, runs by status", epilog="example:\n  gftpwb results list --results-base "
                               "results --json", formatter_class=argparse.RawDescriptionHelpFormatter)
    q.add_argument("--results-base", metavar="DIR", default=DEFAULT_RESULTS_BASE, help=base_help)
    q.add_argument("--json", action="store_true", help="one JSON object per directory (a JSON array)")
    handler(q, "gftpwb.cli.results:cmd_list")
    q = results_sub.add_parser("query", help="run SQL against the views records, runs, figures, directories",
                               epilog=RESULTS_EXAMPLES + "\n" + columns_help(),
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    q.add_argument("sql", metavar="SQL", help="a DuckDB SQL statement")
    q.add_argument("--results-base", metavar="DIR", default=DEFAULT_RESULTS_BASE, help=base_help)
    form = q.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="rows as a JSON array of objects")
    form.add_argument("--csv", action="store_true", help="rows as CSV with a header")
    handler(q, "gftpwb.cli.results:cmd_query")
    q = results_sub.add_parser("views", help="print the SQL that creates the views (for the duckdb command line)",
                               epilog="example:\n  gftpwb results views --results-base s3://bucket/results | duckdb",
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    q.add_argument("--results-base", metavar="DIR", default=DEFAULT_RESULTS_BASE, help=base_help)
    handler(q, "gftpwb.cli.results:cmd_views")


COMPARE_EXAMPLES = """\
examples:
  gftpwb compare results/20261121T090000Z-nightly results/20261122T090000Z-nightly
  gftpwb compare OLD NEW --threshold 10 --fail-on-regression      # CI: exit 1 if a case got slower
  gftpwb compare OLD NEW --json | jq '.cases[] | select(.verdict != "no significant change")'
  gftpwb compare THREADS4 THREADS16 --ignore threads               # did 16 threads help?

Cases are matched by test id, kind and parameters (a test added or a matrix value dropped does not
shift the others); --ignore leaves parameters out of that (a parameter you varied between A and B),
--match keeps only those named. Figures A and B measured differently (another tool's totals, a delay
inside its timed loop) are marked and warned about. Per case and figure: the medians of A and B, the
change of the median (B - A, in %) with its 95 % confidence interval, and a two-sided Mann-Whitney U
test of the counted runs (passed, not warm-ups). A change is significant when p < 0.05 and it is at
least --threshold percent; then the verdict is faster or slower (by the figure: higher rates and
files/s are faster), else "no significant change". Mann-Whitney needs at least 4 runs on each side to
reach p < 0.05 (3 and 3 can never): with fewer the verdict is "too few runs", with the runs it needs,
and there is no interval. Environments that differ (kernel, CPU, versions, TCP settings, MTU) are
warned about.
"""


def add_compare(sub: Sub) -> None:
    p = sub.add_parser("compare", help="compare two results directories case by case: change of the median, CI, "
                       "significance, verdict", description="Compare results directory B against A.",
                       epilog=COMPARE_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A", help="the baseline results directory")
    p.add_argument("b", metavar="B", help="the results directory to compare with it")
    p.add_argument("--json", action="store_true", help="the comparison as JSON on stdout (schemas/compare.schema.json)")
    p.add_argument("--threshold", metavar="PCT", type=float, default=5.0,
                   help="smallest change of the median, in percent, that counts as significant (default 5)")
    p.add_argument("--fail-on-regression", action="store_true",
                   help="exit 1 when a case is significantly slower (a regression)")
    p.add_argument("--all-figures", action="store_true",
                   help="compare every figure of each kind (guc avg, MiB/s, IOPS), not only the headline one")
    p.add_argument("--ignore", metavar="PARAM[,PARAM]", action="append",
                   help="match cases without these parameters (e.g. threads: A ran 4 threads, B 16); repeatable")
    p.add_argument("--match", metavar="PARAM[,PARAM]", action="append",
                   help="match cases by test id, kind and only these parameters; repeatable")
    handler(p, "gftpwb.cli.compare:cmd_compare")


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
    handler(p, "gftpwb.cli.commands:cmd_never")  # main() hands "tgftp ..." to the drop-in first


def add_hosts(sub: Sub) -> None:
    p = sub.add_parser("hosts", help="the hosts of a scenario's inventory and the nodes of its Slurm allocation")
    hosts_sub = p.add_subparsers(dest="hosts_command", required=True, metavar="ACTION")
    q = hosts_sub.add_parser("check", help="connect to every host and Slurm node: reachability, login, guc, "
                             "gcc/libgfapi, clock offset, TCP buffer caps (exit 1 if a host fails)")
    q.add_argument("scenario", metavar="SCENARIO")
    q.add_argument("--only", metavar="HOST", action="append", default=[],
                   help="check only these hosts or Slurm node slots (repeat or comma-separate; 'local' is this "
                   "machine)")
    q.add_argument("--json", action="store_true", help="machine-readable output")
    q.add_argument("--accept-new-host-keys", action="store_true",
                   help="trust hosts missing from their known_hosts file on first use and add their keys to it")
    add_set(q)
    handler(q, "gftpwb.cli.hosts:cmd_hosts")


def add_lab_up_options(q: argparse.ArgumentParser) -> None:
    q.add_argument("--port", type=int, help=f"GridFTP port (default: the running lab's, else {LAB_PORT})")
    q.add_argument("--address", help=f"address (default: the running lab's, else {LAB_ADDRESS})")
    q.add_argument("--hosts", type=int, default=0, metavar="N",
                   help="also create N test hosts: network namespaces with their own sshd")
    q.add_argument("--rate", metavar="RATE", help="shape each host's link with tc tbf (e.g. 400mbit); with WAN links "
                   "(--rtt, --loss, --jitter, --link) the WAN links' rate instead, the controller's links left fast")
    add_wan_options(q, "with --hosts N: a WAN link between every two hosts through a user-space delay line")
    q.add_argument("--link", metavar="PAIR:KEY=VALUE,...", action="append", default=[],
                   help="a WAN link between two hosts, or other settings for one (repeatable): h1-h2:rtt=60ms,"
                        "loss=0.01%%,rate=1gbit,jitter=1ms,mtu=9000; the other settings as the options above give them")
    q.add_argument("--gridftp-on-hosts", action="store_true",
                   help="also run a GridFTP server in each namespace host")
    q.add_argument("--striped", action="store_true",
                   help="with --hosts N: striped GridFTP, a data node per side on each host and a front end per "
                        "side on the bridge (guc -stripe from ftp://CONTROLLER:2812 to ftp://CONTROLLER:2813)")
    q.add_argument("--xrootd", action="store_true",
                   help="also start xrootd serving root:// and http:// (with third-party copies) on loopback, and in "
                        "each namespace host with --hosts N (ports: lab status)")
    q.add_argument("--gluster", action="store_true",
                   help="also start glusterd and a single-brick volume for gfapi tests")
    q.add_argument("--gluster-address", metavar="ADDR",
                   help="the volume's server address, reachable by every client (default: 198.18.0.1 for the default "
                        "state directory, else another 198.18.x.y address; the lab adds it to lo)")
    q.add_argument("--gluster-volume", metavar="NAME",
                   help="the volume's name (default gftpwb-demo for the default state directory, else "
                        "gftpwb-<hash of the state directory>)")
    q.add_argument("--slurm", type=int, default=0, metavar="N",
                   help="also start a Slurm cluster on this machine: munged, slurmctld and N slurmd (nodes n1..nN, "
                        "partition lab); lab status --vars points scenarios at it")


def add_wan_options(q: argparse.ArgumentParser, what: str) -> None:
    """The WAN link's settings, for lab up and lab link (docs/lab.md, 'WAN links')."""
    q.add_argument("--rtt", metavar="TIME", help=f"round-trip time, e.g. 60ms ({what})")
    q.add_argument("--loss", metavar="SHARE", help="packets dropped at random in each direction, e.g. 0.01%%")
    q.add_argument("--jitter", metavar="TIME", help="each packet's one-way delay varies by up to this, e.g. 1ms "
                   "(never reordering)")
    q.add_argument("--mtu", metavar="BYTES", help="the WAN link's MTU (default 9000)")


def add_lab(sub: Sub) -> None:
    p = sub.add_parser("lab", help="the local lab: a GridFTP server on loopback, namespace test hosts, GlusterFS, "
                       "Slurm")
    lab_sub = p.add_subparsers(dest="lab_command", required=True, metavar="ACTION")
    for name, text in (("up", "start the lab"), ("down", "stop the lab"), ("status", "show the lab"),
                       ("link", "change the lab's running WAN links (rate, rtt, loss, jitter, MTU)")):
        q = lab_sub.add_parser(name, help=text)
        q.add_argument("--state-dir", metavar="DIR", help="lab state directory (default $GFTPWB_LAB_DIR or "
                       "~/.local/state/gftpwb/lab)")
        if name == "up":
            add_lab_up_options(q)
        if name == "link":
            q.add_argument("--rate", metavar="RATE", help="the new rate, e.g. 500mbit (none: unshaped)")
            add_wan_options(q, "the new one")
            q.add_argument("--pair", metavar="PAIR", action="append", default=[],
                           help="change only this link, e.g. h1-h2 (repeatable; default: every WAN link)")
            q.add_argument("--json", action="store_true", help="print the changed links' status as JSON")
        if name == "status":
            q.add_argument("--json", action="store_true", help="machine-readable output")
            q.add_argument("--vars", action="store_true", help="print --lab-var options that point a scenario's "
                           "variables at the lab (lab, ctrl, src, dst with namespace hosts; slurm_conf, slurm_nodes, "
                           "slurm_partition with Slurm; volume, gluster with GlusterFS), as the shipped scenarios take "
                           "them; a scenario uses those it declares and ignores the others")
        handler(q, "gftpwb.cli.lab:cmd_lab")


def add_migration(sub: Sub) -> None:
    """import, export and log: tgftp batchfiles and tag logs (gftpwb.cli.migrate runs them)."""
    p = sub.add_parser("import", help="tgftp batchfile or parallel-libgfapi settings -> scenario; tag logs or "
                       "parallel-libgfapi results -> records",
                       description="gftpwb import BATCHFILE [-o SCENARIO.yaml]: a tgftp batchfile as a scenario "
                       "(to stdout without -o). gftpwb import taglogs LOG...: old tgftp (or gftpwb) tag logs as "
                       "result records in a results directory of their own. gftpwb import parallel-libgfapi "
                       "[SETTINGS] [--clients LIST] [-o SCENARIO.yaml]: parallel-libgfapi's variables (an env file, "
                       "the launcher script, or exported ones) and client list as a gfapi scenario. gftpwb import "
                       "libgfapi-results PATH...: parallel-libgfapi's log directories (result.csv and the "
                       "per-process logs) as result records in a results directory of their own.")
    p.add_argument("items", nargs="+", metavar="BATCHFILE | taglogs LOG | parallel-libgfapi [SETTINGS] | "
                   "libgfapi-results PATH")
    p.add_argument("-o", "--output", metavar="FILE", help="write the scenario here (batchfile, parallel-libgfapi)")
    p.add_argument("--force", action="store_true", help="overwrite an existing output file")
    p.add_argument("--results", metavar="DIR", help="results directory for imported tag logs or results "
                   "(default results/<UTC timestamp>-imported-<scenario>)")
    p.add_argument("--results-base", metavar="DIR", default=DEFAULT_RESULTS_BASE,
                   help="where the results directory of imported records goes without --results (default results/)")
    p.add_argument("--scenario", metavar="NAME",
                   help="scenario name: of tag logs whose file name does not carry one (default imported), of "
                   "the imported parallel-libgfapi scenario (default: the settings file's name) or results "
                   "(default parallel-libgfapi)")
    p.add_argument("--clients", metavar="LIST", help="parallel-libgfapi's client list, one host per line "
                   "(default: the list the settings name, PGFAPI_CLIENTS or clients.list, when it is here)")
    p.add_argument("--launcher", choices=("auto", "current", "first-release", "worker"), default="auto",
                   help="how parallel-libgfapi read the variables: its launcher (PGFAPI_*), its first release "
                   "(PSMF_* and the script's edited lines), or the worker run by itself (GFAPI_* only); "
                   "default: told from the variables")
    p.add_argument("--hosts-file", metavar="INVENTORY", help="a hosts: inventory (such as the lab's hosts.yaml) the "
                   "scenario includes; clients named there are taken from it")
    p.add_argument("--settings", metavar="SETTINGS", help="libgfapi-results: the settings the runs were made with "
                   "(needed for a result.csv without its logs; checked against the logs)")
    handler(p, "gftpwb.cli.migrate:cmd_import")

    p = sub.add_parser("export", help="results -> tag logs, or scenario -> tgftp batchfile")
    p.add_argument("what", choices=("taglogs", "batchfile"), help="taglogs RESULTS_DIR | batchfile SCENARIO")
    p.add_argument("source", metavar="RESULTS_DIR|SCENARIO")
    p.add_argument("-o", "--output", metavar="PATH", help="taglogs: directory (default RESULTS_DIR itself); "
                   "batchfile: file (default stdout)")
    p.add_argument("--force", action="store_true", help="overwrite an existing batchfile")
    handler(p, "gftpwb.cli.migrate:cmd_export")

    p = sub.add_parser("log", help="read tag logs like tgftp_log")
    log_sub = p.add_subparsers(dest="log_command", required=True, metavar="ACTION")
    q = log_sub.add_parser("get", help="print an attribute's value (tgftp_log -a ATTRIBUTE -f FILE)")
    q.add_argument("attribute", metavar="ATTRIBUTE")
    q.add_argument("files", nargs="+", metavar="FILE")
    q.add_argument("--json", action="store_true", help="one JSON object: attribute and, per file, found and value")
    handler(q, "gftpwb.cli.log:cmd_log")
    q = log_sub.add_parser("list-attributes", help="the ten attributes tgftp_log knows")
    q.add_argument("--json", action="store_true", help="as a JSON list")
    handler(q, "gftpwb.cli.log:cmd_log")


def add_completion(sub: Sub) -> None:
    p = sub.add_parser("completion", help="print the shell completion script for bash, zsh or fish",
                       epilog="examples:\n  source <(gftpwb completion bash)             # in ~/.bashrc\n"
                       "  gftpwb completion zsh > ~/.zfunc/_gftpwb      # a directory on $fpath\n"
                       "  gftpwb completion fish > ~/.config/fish/completions/gftpwb.fish\n\n"
                       "pip install puts these scripts and the man page under its prefix's share/ as well.",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("shell", choices=("bash", "zsh", "fish"), help="the shell")
    handler(p, "gftpwb.cli.completion:cmd_completion")


class _Unused:
    """What the definition of a command that is not being run writes into: nothing. Every call is
    taken and dropped (``add_argument``, groups, nested sub-commands, ``set_defaults``)."""

    def __getattr__(self, name: str) -> Any:
        return self._take

    def _take(self, *args: Any, **kwargs: Any) -> _Unused:
        return self


class _OnlyCommand:
    """The top level's sub-commands as :func:`build_parser` builds them for one command: that one
    in full, the others by name and help only (they are listed, and a mistyped name is refused as
    before). Building all of them was a tenth of a quick command's time."""

    def __init__(self, sub: Sub, command: str):
        self.sub, self.command = sub, command

    def add_parser(self, name: str, **kwargs: Any) -> Any:
        if name == self.command:
            return self.sub.add_parser(name, **kwargs)
        self.sub.add_parser(name, help=kwargs.get("help"), add_help=False)
        return _Unused()


COMMANDS = (add_validate, add_schema, add_run, add_report, add_compare, add_results, add_trace, add_tui,
            add_migration, add_tgftp, add_hosts, add_lab, add_completion)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line, or (``command``: the sub-command about to run) that command's part in
    full and the others by name (what ``gftpwb COMMAND ...`` needs to parse and to say ``--help``)."""
    parser = argparse.ArgumentParser(prog="gftpwb", description="GridFTP / GlusterFS performance workbench.")
    parser.add_argument("--version", action="version", version=f"gftpwb {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    target: Any = sub if command is None else _OnlyCommand(sub, command)
    for add in COMMANDS:
        add(target)
    return parser
