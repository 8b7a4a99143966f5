"""The drop-in ``tgftp`` and ``tgftp_log`` commands (also ``gftpwb tgftp ...``).

Scripts that call tgftp 0.7.0 keep working: same options, same screen output (guc's output, then
``N MB/s`` and ``Please see "LOG" for details.``), same tag log in the current directory, same exit
codes (0, 1, 64 usage, 79 timeout, 130 interrupted). Underneath it is gftpwb's executor: guc runs as
an argv list in its own process group, is timed with a monotonic clock, and a timeout kills the whole
group. Deliberate differences are listed in docs/tgftp-compat.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import signal
import sys
from collections.abc import Callable
from datetime import datetime

from gftpwb.core.bus import EventBus
from gftpwb.core.commands import Command, from_shell_text
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.events import Event, Notice, OutputLine, Progress, RunFinished, RunStarted
from gftpwb.core.plan import plan
from gftpwb.core.records import INTERRUPTED, PASSED, TIMEOUT, ResultRecord
from gftpwb.core.specs import RunSpec
from gftpwb.kinds.connection_test.driver import CONNECTION_TEST_LENGTH, build_connection_argv
from gftpwb.kinds.connection_test.kind import CONNECTION_TEST_TIMEOUT_S
from gftpwb.kinds.guc.driver import GUC
from gftpwb.kinds.guc.model import GucOptions
from gftpwb.shell.executor import Executor

from .converters.batchfile import import_batchfile
from .converters.gucargs import length_from_args, split_guc_args
from .converters.taglog import STANDARD_TAGS, format_taglog
from .migrate_cli import log_get
from .tgftp_args import (
    EX_FAILED,
    EX_INTERRUPTED,
    EX_OK,
    EX_TIMEOUT,
    EX_USAGE,
    TgftpArgs,
    TgftpLogUsage,
    TgftpUsage,
    help_batchfile_text,
    help_text,
    parse_tgftp_args,
    parse_tgftp_log_args,
    tgftp_log_help_text,
    tgftp_log_usage_text,
    usage_text,
    version_text,
)


def _out(text: str = "", end: str = "\n") -> None:
    sys.stdout.write(text + end)
    sys.stdout.flush()


def _err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --- auto-tune ------------------------------------------------------------------------------------


def run_tgftp_autotune(source: str, target: str, guc_params: list[str]) -> int:
    """tgftp -a: find the best guc parameters for source -> target and print them on one line.

    tgftp's own procedure (gftpwb.tgftp_autotune): the 37 configurations x 10 transfers of 4 GiB,
    memory to memory on the same servers, 30 s per transfer, tie margin 20 MB/s, exhaustive. Like
    tgftp it prints only the winning parameters on stdout (``-vb -p 16 -tcp-bs 8M``; an empty line
    when no configuration reached the margin) and exits 0; the transfers are journaled in a results
    directory instead of 370 hidden logs in the current directory (named on stderr).
    """
    from gftpwb.core.errors import GftpwbError

    from .shell import results_dir as rd
    from .tgftp_autotune import SCENARIO_NAME
    from .tgftp_autotune import run_tgftp_autotune as autotune

    if guc_params:
        _err(f"tgftp: guc parameters are not used with --auto-tune (as in tgftp): {' '.join(guc_params)}")
    directory = rd.new_results_dir(rd.DEFAULT_BASE, SCENARIO_NAME)
    _err(f"tgftp: auto-tuning {source} -> {target} (37 configurations x 10 transfers of 4 GiB); "
         f"results in {directory}")
    try:
        result = autotune(source, target, results_dir=directory, command=["tgftp", "-s", source, "-t", target, "-a"])
    except GftpwbError as exc:
        _err(f"tgftp: {exc}")
        return EX_USAGE
    if result.interrupted:
        return EX_INTERRUPTED
    _out(result.line)
    return EX_OK


# --- running specs --------------------------------------------------------------------------------


def _run_specs(specs: list[RunSpec], subscribers: list[Callable[[Event], None]]) -> tuple[list[ResultRecord], bool]:
    """Run specs with the executor; Ctrl-C / SIGTERM stop after recording the run in flight."""

    async def go() -> tuple[list[ResultRecord], bool]:
        bus = EventBus()
        records: list[ResultRecord] = []
        bus.subscribe(lambda e: records.append(e.record) if isinstance(e, RunFinished) else None)
        for subscriber in subscribers:
            bus.subscribe(subscriber)
        executor = Executor(bus)
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, executor.stop)
        try:
            summary = await executor.run(specs, results_dir=os.getcwd(), scenario=specs[0].scenario)
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.remove_signal_handler(sig)
        return records, summary.interrupted

    return asyncio.run(go())


class LogWriter:
    """Writes each finished run's tag log where tgftp would: the log name, relative to the cwd."""

    def __init__(self, tgftp_command: Callable[[ResultRecord], str]):
        self.tgftp_command = tgftp_command
        self.problems: list[str] = []

    def __call__(self, event: Event) -> None:
        if not isinstance(event, RunFinished):
            return
        path = event.record.taglog
        tmp = f"{path}.tmp-{os.getpid()}"
        try:
            with open(tmp, "w", encoding="utf-8") as handle:
                handle.write(format_taglog(event.record, self.tgftp_command(event.record)))
            os.replace(tmp, path)
        except OSError as exc:
            self.problems.append(f'tgftp: cannot write the logfile "{path}": {exc.strerror or exc}')


class GucEcho:
    """Shows guc's output as tgftp did (stdout and stderr on the screen), progress lines in place."""

    def __init__(self) -> None:
        self._in_progress = False

    def __call__(self, event: Event) -> None:
        if isinstance(event, OutputLine):
            self._end_progress()
            _out(event.text)
        elif isinstance(event, Progress):
            avg = event.rate_avg_mib_s or 0.0
            inst = event.rate_inst_mib_s or 0.0
            _out(f" {event.bytes:12d} bytes {avg:12.2f} MB/sec avg {inst:12.2f} MB/sec inst", end="\r")
            self._in_progress = True
        elif isinstance(event, RunFinished):
            self._end_progress()
        elif isinstance(event, Notice):
            _err(f"gftpwb: {event.text}")

    def _end_progress(self) -> None:
        if self._in_progress:
            _out()
            self._in_progress = False


# --- single test and connection test --------------------------------------------------------------


def _comment_parts(text: str) -> tuple[str, Command | None]:
    """tgftp's --log-comment: ``#text`` is text, anything else a command whose output is the comment."""
    if not text:
        return "", None
    if text.startswith("#"):
        return text, None
    return "", from_shell_text(text)


def _default_log_name() -> str:
    return f"{datetime.now().strftime('%Y%m%d_%H:%Mh')}_{os.getpid()}_testgftp.sh.log"


def single_spec(args: TgftpArgs, log_name: str) -> RunSpec:
    comment, comment_command = _comment_parts(args.value("--log-comment"))
    pre = from_shell_text(args.value("--pre-command")) if args.value("--pre-command") else None
    post = from_shell_text(args.value("--post-command")) if args.value("--post-command") else None
    if args.mode == "connection-test":
        # As tgftp: guc parameters and --timeout are ignored, the timeout is 30 s.
        argv = build_connection_argv(args.source, args.target)
        kind, timeout, length, params = "connection-test", CONNECTION_TEST_TIMEOUT_S, CONNECTION_TEST_LENGTH, {}
    else:
        params_list = args.guc_params
        verbose = [] if ("-vb" in params_list or "-verbose-perf" in params_list) else ["-vb"]
        urls = [u for u in (args.source, args.target) if u]
        argv = (GUC, *verbose, *params_list, *urls)
        kind, timeout, length = "guc", args.timeout_s(), length_from_args(params_list)
        try:
            params = GucOptions.from_mapping(split_guc_args(params_list).options).set_options()
        except (TypeError, ValueError):
            params = {}
    return RunSpec(run_id="tgftp/0", scenario="tgftp", test_id="tgftp", case=0, repeat=0, kind=kind, host="local",
                   argv=tuple(argv), params=params, timeout_s=timeout, length_bytes=length, comment=comment,
                   source=args.source, target=args.target, pre=pre, post=post, comment_command=comment_command,
                   log_name=log_name)


def run_single(args: TgftpArgs, command_text: str) -> int:
    log_name = args.value("--log-filename") or _default_log_name()
    if os.path.exists(log_name) and "--force-log-overwrite" not in args.flags:
        _err(f'tgftp: the logfile named "{log_name}" already exists! Refusing to overwrite!')
        return EX_USAGE
    spec = single_spec(args, log_name)
    writer = LogWriter(lambda record: command_text)
    records, interrupted = _run_specs([spec], [GucEcho(), writer])
    for problem in writer.problems:
        _err(problem)
    record = records[-1] if records else None
    if record is None or interrupted or record.status == INTERRUPTED:
        _err('\ntgftp: "globus-url-copy" was interrupted.')
        return EX_INTERRUPTED
    if record.status == TIMEOUT:
        _err(f'\ntgftp: "globus-url-copy" timed out. Please see "{log_name}" for details.')
        return EX_TIMEOUT
    if record.status != PASSED:
        _err(f"gftpwb: {record.error.splitlines()[0] if record.error else 'failed'}")
        _err(f'\ntgftp: "globus-url-copy" failed. Please see "{log_name}" for details.')
        return EX_FAILED
    if spec.kind == "connection-test":
        _out("\ntgftp: connection test => no performance calculation done!")
    elif record.rate_incl_setup_mib_s is not None:
        _out(f"\n{int(record.rate_incl_setup_mib_s)} MB/s")
    _out(f'\nPlease see "{log_name}" for details.')
    return EX_OK


# --- batch mode -----------------------------------------------------------------------------------


def child_command_line(prog: str, spec: RunSpec) -> str:
    """The tgftp command line tgftp's batch mode would have generated for this run."""
    words = [prog, "--source", spec.source, "--target", spec.target]
    if spec.kind == "connection-test":
        words.append("--connection-test")
    if spec.timeout_s and spec.kind != "connection-test":
        words += ["--timeout", f"{spec.timeout_s:g}"]
    words += ["--log-filename", spec.taglog_name]
    comment = spec.comment or (spec.comment_command.text() if spec.comment_command else "")
    for option, value in (("--log-comment", comment), ("--pre-command", spec.pre.text() if spec.pre else ""),
                          ("--post-command", spec.post.text() if spec.post else "")):
        if value:
            words += [option, value]
    params = [] if spec.kind == "connection-test" else list(spec.argv[1:-2])
    return f"{shlex.join(words)} -- {shlex.join(params)}".rstrip()


class BatchScreen:
    """tgftp's batch-mode screen: the generated command line, a dot every 0.5 s, then the verdicts."""

    def __init__(self, prog: str, specs: list[RunSpec]):
        self.prog = prog
        self.last_repeat = {}
        for spec in specs:
            self.last_repeat[spec.case] = max(self.last_repeat.get(spec.case, 0), spec.repeat)
        self.case_ok: dict[int, bool] = {}
        self._dots: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(0.5)
            _out(".", end="")

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            _out(child_command_line(self.prog, event.spec))
            self._dots = asyncio.get_running_loop().create_task(self._tick())
        elif isinstance(event, RunFinished):
            if self._dots is not None:
                self._dots.cancel()
                self._dots = None
            r = event.record
            ok = r.status == PASSED
            self.case_ok[r.case] = self.case_ok.get(r.case, True) and ok
            _out(f" Test #{r.case}_{r.repeat} {'was successful!' if ok else 'failed!'}")
            if not ok and r.error:
                _err(f"gftpwb: test #{r.case}_{r.repeat}: {r.error.splitlines()[0]}")
            if r.repeat == self.last_repeat.get(r.case):
                verdict = "was successful!" if self.case_ok[r.case] else "failed (for at least one run)!"
                _out(f"{self.prog}: test #{r.case} {verdict}")
        elif isinstance(event, Notice):
            _err(f"gftpwb: {event.text}")


def run_batch(path: str, prog: str) -> int:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
            text = handle.read()
    except OSError:
        _err(f'{prog}: batchfile "{path}" not existing!')
        return EX_USAGE
    try:
        result = import_batchfile(text, path)
        scenario = load_scenario_text(result.text, f"{path} (as imported)")
    except ScenarioError as exc:
        for diagnostic in exc.diagnostics:
            _err(str(diagnostic))
        return EX_USAGE
    for warning in result.warnings:
        _err(str(warning))
    specs = plan(scenario)
    for spec in specs:
        if os.path.exists(spec.taglog_name):
            _err(f'{prog}: the logfile named "{spec.taglog_name}" already exists! Refusing to overwrite!')
            return EX_USAGE
    writer = LogWriter(lambda record: child_command_line(prog, next(s for s in specs if s.run_id == record.run_id)))
    _, interrupted = _run_specs(specs, [BatchScreen(prog, specs), writer])
    for problem in writer.problems:
        _err(problem)
    return EX_INTERRUPTED if interrupted else EX_OK


# --- entry points ---------------------------------------------------------------------------------


def tgftp_main(argv: list[str], prog: str = "tgftp", command_text: str | None = None) -> int:
    """tgftp 0.7.0's command line; returns its exit status."""
    try:
        args = parse_tgftp_args(argv)
    except TgftpUsage as exc:
        if exc.message:
            _err(exc.message)
        else:
            _out(usage_text(prog))
        return EX_USAGE
    if args.action == "help":
        _out(help_text(prog))
        return EX_OK
    if args.action == "help-batchfile":
        _out(help_batchfile_text())
        return EX_OK
    if args.action == "version":
        _out(version_text(prog))
        return EX_OK
    if args.mode == "batch":
        return run_batch(args.batchfile or "", prog)
    if args.mode == "auto-tune":
        return run_tgftp_autotune(args.source, args.target, args.guc_params)
    return run_single(args, command_text or " ".join([prog, *argv]))


def main() -> None:
    """The ``tgftp`` console script."""
    prog = os.path.basename(sys.argv[0]) or "tgftp"
    with contextlib.suppress(BrokenPipeError):
        sys.exit(tgftp_main(sys.argv[1:], prog=prog, command_text=" ".join(sys.argv)))


def tgftp_log_main(argv: list[str]) -> int:
    """tgftp_log 0.2.0's command line: ``-a ATTRIBUTE -f FILE``; exit 1 on a bad call."""
    try:
        args = parse_tgftp_log_args(argv)
    except TgftpLogUsage as exc:
        if exc.message:
            _err(exc.message)
        else:
            _out(tgftp_log_usage_text())
        return 1
    if args.action == "help":
        _out(tgftp_log_help_text(STANDARD_TAGS))
        return 0
    if args.action == "version":
        _out("tgftp_log - v0.2.0")
        return 0
    if not os.path.isfile(args.file):
        if args.attribute not in STANDARD_TAGS:
            _err(f'tgftp_log: the attribute "{args.attribute}" is not supported!')
            return 1
        _err(f'tgftp_log: the file "{args.file}" does not exist!')
        return 1
    return log_get(args.attribute, [args.file], prog="tgftp_log")


def log_main() -> None:
    """The ``tgftp_log`` console script."""
    with contextlib.suppress(BrokenPipeError):
        sys.exit(tgftp_log_main(sys.argv[1:]))
