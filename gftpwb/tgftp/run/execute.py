"""Running what the tgftp drop-in was asked for (:mod:`gftpwb.tgftp.run.dropin` parses and answers
--help and --version without importing this): one test through gftpwb's executor, a batchfile's
executions, tgftp's auto-tuning batchfile and ``-a``. What each does as tgftp did is described in
:mod:`gftpwb.tgftp.run.dropin`."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
import threading
from collections.abc import Callable
from datetime import datetime

from gftpwb.converters.taglog import log_identity, size_and_rate
from gftpwb.core.bus import EventBus
from gftpwb.core.commands import Command
from gftpwb.core.errors import EXIT_STOPPED_BY, EnvironmentProblem, GftpwbError
from gftpwb.core.events import Event, Notice, RunFinished
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, ResultRecord
from gftpwb.core.specs import RunSpec
from gftpwb.kinds.guc.driver import run_details
from gftpwb.kinds.guc.gucargs import length_from_args, split_guc_args
from gftpwb.kinds.guc.model import GucOptions
from gftpwb.shell import frontend, interrupts
from gftpwb.shell.context import RunContext
from gftpwb.shell.executor import Executor
from gftpwb.shell.sinks.taglogs import write_taglog
from gftpwb.tgftp.args import EX_FAILED, EX_INTERRUPTED, EX_OK, EX_USAGE, TgftpArgs, parse_tgftp_args
from gftpwb.tgftp.departures import CONNECTION_TEST, column_of, connection_test_length_note, sticky_flag_notes
from gftpwb.tgftp.model import (
    EX_SHELL,
    SUPPORTED_VERSION,
    SingleTest,
    comment_echo,
    eval_code,
    is_text_comment,
    read_batch,
    single_test,
    tgftp_command_text,
)
from gftpwb.tgftp.run.screen import MaskingTee, Screen

# The scenario of a single test's run (a batch log's run is named after its batchfile, by its log name).
DROPIN_SCENARIO = "tgftp"

# One execution of a batchfile: tgftp_main(argv, program=..., screen=..., env=...) of the drop-in,
# handed in by it (this module does not import the drop-in's entry point).
Child = Callable[..., int]


def _out(text: str = "", end: str = "\n") -> None:
    sys.stdout.write(text + end)
    sys.stdout.flush()


def _err(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --- auto-tune ------------------------------------------------------------------------------------


def run_tgftp_autotune(source: str, target: str, guc_params: list[str]) -> int:
    """tgftp -a: find the best guc parameters for source -> target and print them on one line.

    tgftp's own procedure (gftpwb.tgftp.run.autotune): the 37 configurations x 10 transfers of 4 GiB,
    memory to memory on the same servers, 30 s per transfer, tie margin 20 MB/s, exhaustive. Like
    tgftp it prints only the winning parameters on stdout (``-vb -p 16 -tcp-bs 8M``; an empty line
    when no configuration reached the margin) and exits 0; the transfers are journaled in a results
    directory instead of 370 hidden logs in the current directory (named on stderr).
    """
    from gftpwb.core.plan import plan
    from gftpwb.tgftp.run.autotune import autotune_scenario
    from gftpwb.tgftp.run.autotune import run_tgftp_autotune as autotune

    if guc_params:
        _err(f"tgftp: guc parameters are not used with --auto-tune (as in tgftp): {' '.join(guc_params)}")
    try:
        scenario = autotune_scenario(source, target)
        frontend.preflight(plan(scenario))  # 370 transfers of guc: refuse at once when it is missing
        directory = frontend.results_dir(scenario)
    except EnvironmentProblem as exc:
        _err(f"tgftp: {exc}")
        return exc.exit_code
    except GftpwbError as exc:
        _err(f"tgftp: {exc}")
        return EX_USAGE
    _err(f"tgftp: auto-tuning {source} -> {target} (37 configurations x 10 transfers of 4 GiB); "
         f"results in {directory}")
    try:
        result = autotune(source, target, results_dir=directory, command=["tgftp", "-s", source, "-t", target, "-a"])
    except GftpwbError as exc:
        _err(f"tgftp: {exc}")
        return EX_USAGE
    if result.interrupted:
        return frontend.exit_code(result.summary)  # 130, 143 or 129: end_like_tgftp dies by that signal
    _out(result.line)
    return EX_OK


# Ctrl-C, SIGTERM, and SIGHUP (the terminal or SSH session went away): tgftp trapped only SIGINT
# and died on the others with guc left running and no log; the drop-in stops like ``gftpwb run``
# (guc stopped, the run recorded; interrupts.STOP_SIGNALS), then ends as tgftp did (end_like_tgftp).
# What run_single returns when a signal stopped it: the batch stops there too.
STOPPED = frozenset({EX_INTERRUPTED, *EXIT_STOPPED_BY.values()})

# --- running one test ------------------------------------------------------------------------------


def _run_specs(specs: list[RunSpec], subscribers: list[Callable[[Event], None]], screen: Screen,
               runners: dict | None = None, masked: bool = True) -> tuple[list[ResultRecord], int | None]:
    """Run specs with the executor: the records and what the programs print (passwords in URLs masked
    unless ``masked=False``), and None or the exit status of a stop. Ctrl-C, SIGTERM and SIGHUP stop
    after recording the run in flight, as under ``gftpwb run``: the record says which signal it was, and
    the status is the front end's 130, 143 or 129 (:func:`gftpwb.shell.frontend.exit_code`), which
    :func:`end_like_tgftp` turns into tgftp's end."""

    async def go() -> tuple[list[ResultRecord], int | None]:
        bus = EventBus()
        records: list[ResultRecord] = []
        bus.subscribe(lambda e: records.append(e.record) if isinstance(e, RunFinished) else None)
        for subscriber in subscribers:
            bus.subscribe(subscriber)
        tee = MaskingTee(screen.raw) if masked else None
        executor = Executor(bus, tee=tee or screen.raw, runners=runners, mask_events=masked)
        with interrupts.stop_on_signals(asyncio.get_running_loop(), executor.stop):
            try:
                summary = await executor.run(specs, results_dir=os.getcwd(), scenario=specs[0].scenario)
            finally:
                if tee is not None:
                    tee.flush()
        return records, frontend.exit_code(summary) if summary.interrupted else None

    return asyncio.run(go())


def _default_log_name(record: ResultRecord) -> str:
    """tgftp's ``yyyymmdd_H:Mh_<PID>_testgftp.sh.log``, from the transfer's start (local time)."""
    started = datetime.fromisoformat(record.started_at).astimezone() if record.started_at else datetime.now()
    return f"{started.strftime('%Y%m%d_%H:%Mh')}_{os.getpid()}_testgftp.sh.log"


def _command(text: str, role: str) -> Command | None:
    """tgftp's ``eval $VALUE``: the value split into words and read as bash code (never for an empty one)."""
    code = eval_code(text)
    if not code:
        return None
    return Command(script=code, shell="bash", on_failure="continue" if role == "pre" else "fail")


def single_spec(test: SingleTest, program: str = "tgftp", argv: tuple[str, ...] = ()) -> RunSpec:
    """The run the child tgftp makes for ``test``, as gftpwb's executor runs it."""
    args = test.args
    comment_text = args.value("--log-comment")
    text_comment = is_text_comment(comment_text)
    params = test.argv[1:-2]
    kind = "connection-test" if test.connection_test else "guc"
    try:
        typed = {} if test.connection_test else GucOptions.from_mapping(split_guc_args(list(params)).options)
        options = typed.set_options() if typed else {}
    except (TypeError, ValueError):
        options = {}
    length = 1 if test.connection_test else length_from_args(list(params))
    return RunSpec(run_id="tgftp/0", scenario=DROPIN_SCENARIO, test_id="tgftp", case=0, repeat=0, kind=kind,
                   host="local",
                   argv=test.argv, params=options, timeout_s=test.timeout.seconds, length_bytes=length,
                   comment=comment_text if text_comment else "", source=args.source, target=args.target,
                   pre=_command(args.value("--pre-command"), "pre"),
                   post=_command(args.value("--post-command"), "post"),
                   comment_command=None if text_comment else _command(comment_text, "comment"),
                   log_name=args.value("--log-filename"), tgftp_style=True,
                   details={**run_details(test.argv), "vb_added": False,
                            "tgftp_command": tgftp_command_text(program, argv),
                            "tgftp": {"params": test.params, "command": test.command_text, "echo_e": True,
                                      **({"url_list": args.url_list_file()}
                                         if args.url_list_file() and not (args.source and args.target) else {})}})


async def _not_run(ctx: RunContext, spec: RunSpec) -> ResultRecord:
    """coreutils timeout refused tgftp's timeout value: guc never ran, the test failed."""
    from gftpwb.core.output import Outcome
    from gftpwb.shell.context import utc_now_iso
    from gftpwb.shell.runners import record_of

    now = utc_now_iso()
    reason = "coreutils timeout refused the timeout value, so tgftp never ran globus-url-copy"
    return record_of(spec, Outcome(FAILED, None, None, None, reason, ""), started_at=now, ended_at=now,
                     seconds=0.0, exit_code=125)


def run_single(args: TgftpArgs, program: str, argv: list[str], screen: Screen, env: dict[str, str],
               masked: bool = True) -> int:
    """One test, as tgftp 0.7.0's single-test mode (also each execution of a batchfile). Its tag log has
    passwords in URLs masked unless ``masked=False`` (:func:`faithful_logs`)."""
    name = os.path.basename(program)
    log_name = args.value("--log-filename")
    if log_name and os.path.exists(log_name) and "--force-log-overwrite" not in args.flags:
        screen.err(f'{name}: the logfile named "{log_name}" already exists! Refusing to overwrite!')
        return EX_USAGE
    test = single_test(args, env)
    if test.problems:
        for problem in test.problems:
            screen.err(f"gftpwb: {problem} -- tgftp's shell would have evaluated this in the guc command line; "
                       "gftpwb runs no shell code there (see docs/migration/tgftp.md)")
        return EX_SHELL
    for variable in dict.fromkeys(test.unset):
        screen.err(f"gftpwb: warning: ${variable} is not set: it expands to nothing, as in tgftp's shell")
    if test.timeout.note:
        screen.err(f"gftpwb: warning: timeout {test.timeout.note}")
    spec = single_spec(test, program, tuple(argv))
    notices: list[str] = []
    runners = None
    if test.timeout.refused:
        from gftpwb.shell.commands import with_commands

        runners = {spec.kind: with_commands(_not_run)}
    records, stopped = _run_specs([spec], [lambda e: notices.append(e.text) if isinstance(e, Notice) else None],
                                  screen, runners, masked)
    for text in notices:
        screen.err(f"gftpwb: {text}")
    record = records[-1] if records else None
    if record is None:
        screen.err(f'\n{name}: "globus-url-copy" was interrupted.')
        return stopped or EX_INTERRUPTED
    path = log_name or _default_log_name(record)
    if not log_name and os.path.exists(path) and "--force-log-overwrite" not in args.flags:
        screen.err(f'{name}: the logfile named "{path}" already exists! Refusing to overwrite!')
        return EX_USAGE
    if is_text_comment(args.value("--log-comment")):
        for line in comment_echo(args.value("--log-comment")):
            screen.out(line)
    # each log is a run of its own, named after it as importing the log would name it
    record = dataclasses.replace(record, **log_identity(path, DROPIN_SCENARIO, 0).fields(),
                                 taglog=os.path.basename(path))
    try:
        write_taglog("", record, path=path, masked=masked)
    except OSError as exc:
        screen.err(f"gftpwb: cannot write the logfile \"{path}\": {exc.strerror or exc}")
    if stopped or record.status == INTERRUPTED:
        screen.err(f'\n{name}: "globus-url-copy" was interrupted.')
        if (stopped or EX_INTERRUPTED) == EX_INTERRUPTED:  # tgftp survived a Ctrl-C and went on to its last line
            screen.out(f'\n{name}: please see "{path}" for details.')
        return stopped or EX_INTERRUPTED
    if record.status != PASSED:
        if record.error:
            screen.err(f"gftpwb: {record.error.splitlines()[0]}")
        screen.err(f'\n{name}: "globus-url-copy" failed. Please see "{path}" for details.')
        return EX_FAILED
    sized = size_and_rate(record)
    if sized is not None:
        screen.out(f"\n{sized[1]} MB/s")
    elif test.connection_test:
        screen.out(f"\n{name}: connection test => no performance calculation done!")
    screen.release()
    screen.out(f'\n{name}: please see "{path}" for details.')
    return EX_OK


# --- batch mode -----------------------------------------------------------------------------------


class Dots:
    """tgftp's progress while a batch execution runs: a dot at once, then one every half second."""

    def __init__(self, screen: Screen):
        self.screen = screen
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            self.screen.out(".", end="")
            if self._stop.wait(0.5):
                return

    def __enter__(self) -> Dots:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def run_batch(path: str, program: str, screen: Screen, env: dict[str, str], child: Child) -> int:
    """tgftp -f BATCHFILE: every execution of every line, as tgftp's generated child command ran it
    (``child``, the drop-in's tgftp_main, in this process)."""
    name = os.path.basename(program)
    if not os.path.exists(path):
        screen.err(f'{name}: batchfile "{path}" not existing!')
        return EX_USAGE
    try:
        with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
            text = handle.read()
    except OSError as exc:
        screen.err(f'gftpwb: cannot read the batchfile "{path}": {exc.strerror or exc}')
        return EX_USAGE
    batch = read_batch(text, path, program, env)
    if batch.crlf:
        screen.err(f"{path}:1:1: warning: CRLF line endings: tgftp kept the \\r, failed its version check and "
                   "ran nothing; gftpwb reads the lines")
    if not batch.version_ok:
        screen.err(f'{name}: tgftp batch file version "v{batch.version_shown}" not supported!')
        return EX_USAGE
    if batch.autotune:
        return run_autotune_batch(batch, path, program, screen, env, child)
    departures = sticky_flag_notes(batch)  # where tgftp's bugs would have run the line otherwise, as import says
    for entry in batch.lines:
        for line in entry.stdout:
            screen.out(line)
        for line in entry.stderr:
            screen.err(line)
        notes = [*entry.notes, *departures.get(entry.line, ())]
        if entry.connection_test:
            notes.append((column_of(entry, CONNECTION_TEST), connection_test_length_note(SUPPORTED_VERSION)))
        for column, note in sorted(notes):
            screen.err(f"{path}:{entry.line}:{column}: warning: {note}")
        if entry.test is None:
            continue
        all_ok = True
        for execution in entry.executions:
            if not execution.eval_failed:  # tgftp's eval printed nothing when it failed
                screen.out(execution.line)
            with Dots(screen):
                code = _run_execution(execution, program, env, screen, path, entry.line, child)
            all_ok = all_ok and code == EX_OK
            verdict = "was successful!" if code == EX_OK else "failed!"
            screen.out(f" Test #{entry.test}_{execution.number} {verdict}")
            if code in STOPPED:
                return code
        verdict = "was successful!" if all_ok else "failed (for at least one run)!"
        screen.out(f"{name}: test #{entry.test} {verdict}")
    return EX_OK


def _run_execution(execution, program: str, env: dict[str, str], screen: Screen, path: str, line: int,
                   child: Child) -> int:
    """One child tgftp of a batchfile, run in this process with its output discarded, as tgftp did."""
    if execution.eval_failed:
        screen.err(f"{path}:{line}:1: warning: {'; '.join(execution.problems)}: tgftp's eval failed, so it ran "
                   "nothing for this execution and counted it as successful; so does gftpwb")
        return EX_OK
    if execution.argv is None:
        for problem in execution.problems:
            screen.err(f"{path}:{line}:1: warning: {problem} -- gftpwb runs no shell code there; this execution "
                       "counts as failed")
        return EX_SHELL
    return child(execution.argv, program=program, screen=Screen(quiet=True), env=env)


def run_autotune_batch(batch, path: str, program: str, screen: Screen, env: dict[str, str], child: Child) -> int:
    """tgftp's auto-tuning batchfile (``#%tgftp_autotuning_batchfile``): the executions run silently,
    each configuration (line) scores the mean of its successful runs' integer rates, and the first
    one that beats the best so far by at least 10 MB/s (tgftp 0.7.0's code) becomes the best. Prints
    its guc parameters without `` -len 4G``."""
    best_mean, best_params = 0.0, ""
    for entry in batch.lines:
        for line in entry.stdout:
            screen.out(line)
        for line in entry.stderr:
            screen.err(line)
        if entry.test is None:
            continue
        rates: list[int] = []
        for execution in entry.executions:
            code = _run_execution(execution, program, env, screen, path, entry.line, child)
            if code in STOPPED:
                return code
            if code == EX_OK and execution.argv is not None:
                rate = _logged_rate(execution.argv)
                if rate is not None:
                    rates.append(rate)
        mean = int(sum(rates) * 100 / len(rates)) / 100 if rates else 0.0
        if mean >= best_mean + 10:
            best_mean, best_params = mean, entry.fields[2]
    screen.out(best_params.replace(" -len 4G", "", 1))
    return EX_OK


def _logged_rate(child_argv: list[str]) -> int | None:
    """``tgftp_log -a GSIFTP_TRANSFER_RATE -f LOG | cut -d ' ' -f 1`` for a child's log."""
    from gftpwb.converters.taglog import RATE, get_attribute

    args = parse_tgftp_args(child_argv)
    try:
        with open(args.value("--log-filename"), encoding="utf-8", errors="replace") as handle:
            lines = get_attribute(handle.read(), RATE)
    except OSError:
        return None
    first = lines[0].split(" ")[0] if lines else ""
    return int(first) if first.isdigit() else None
