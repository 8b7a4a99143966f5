"""The drop-in ``tgftp`` command (also ``gftpwb tgftp ...``); ``tgftp_log`` is gftpwb.tgftp.log.

Scripts that call tgftp 0.7.0 keep working, checked against the real script by tests/compat: the same
guc argv (gftpwb.tgftp.model reproduces the three passes through bash that tgftp's values took),
screen output (guc's output as it comes, the text comment, ``N MB/s``, ``tgftp: please see "LOG" for
details.``), tag log in the current directory, and exit codes (0; 1 when guc failed or timed out;
64 usage; 130 interrupted; and gftpwb's own 69 for shell code in a URL or guc parameter that only a
shell could evaluate). A signal ends the drop-in as it ended tgftp (:func:`end_like_tgftp`: killed by
it, except a single test at Ctrl-C), after the run in flight is recorded and guc is stopped.
A batchfile runs each execution the way tgftp's child did, in this process.
Passwords in URLs (``ftp://user:pw@host/``) are masked in the tag logs and in guc's output on the
screen (``ftp://user:***@host/``) unless ``GFTPWB_TGFTP_FAITHFUL_LOGS=1`` asks for tgftp's verbatim
logs and screen; guc always gets the real URL.
Underneath it is gftpwb's executor: guc runs as an argv list in its own process group, timed with a
monotonic clock, and a timeout kills the whole group. Deliberate differences (tgftp's bugs B1, B2
and B5, CRLF batchfiles, ...) are listed in docs/migration/tgftp.md and in tests/compat/allowlist.py.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

from gftpwb.core.errors import EXIT_STOPPED_BY
from gftpwb.tgftp.args import (
    EX_OK,
    EX_USAGE,
    TgftpUsage,
    help_batchfile_text,
    help_text,
    parse_tgftp_args,
    usage_text,
    version_text,
)
from gftpwb.tgftp.run.screen import Screen

__all__ = ["FAITHFUL_LOGS_VAR", "Screen", "end_like_tgftp", "faithful_logs", "main", "tgftp_main"]

# Set to 1 for tag logs exactly as tgftp wrote them, passwords in URLs included; by default they are
# masked. A variable, not an option: tgftp's command line stays tgftp's, and batch executions see it too.
FAITHFUL_LOGS_VAR = "GFTPWB_TGFTP_FAITHFUL_LOGS"
_YES, _NO = ("1", "yes", "true", "on"), ("", "0", "no", "false", "off")


def faithful_logs(environ: dict[str, str] | os._Environ[str], screen: Screen) -> bool:
    """Whether ``GFTPWB_TGFTP_FAITHFUL_LOGS`` asks for tag logs and screen as tgftp's (passwords in URLs
    verbatim). Any value but yes/no words is warned about and leaves the logs masked."""
    value = environ.get(FAITHFUL_LOGS_VAR, "").strip().lower()
    if value in _YES:
        return True
    if value not in _NO:
        screen.err(f"gftpwb: warning: {FAITHFUL_LOGS_VAR}={environ[FAITHFUL_LOGS_VAR]!r} is neither 1 nor 0: "
                   "passwords in URLs stay masked in the tag logs and on screen")
    return False


# A stop's exit status (gftpwb.shell.frontend.exit_code) -> the signal behind it.
_SIGNAL_OF = {code: signal.Signals[name] for name, code in EXIT_STOPPED_BY.items()}


def end_like_tgftp(code: int, mode: str) -> int:
    """End the process as tgftp 0.7.0 ended after a signal (measured against the real script, see
    tests/test_dropin_signals.py): a single test stopped by Ctrl-C exits 130 after writing its log;
    everything else tgftp did not survive, so the drop-in, once the run in flight is recorded and guc
    stopped, kills itself with the same signal (a shell shows 128+n, a parent sees the signal).
    Returns ``code`` when no signal stopped the run."""
    sig = _SIGNAL_OF.get(code)
    if sig is None or (sig == signal.SIGINT and mode not in ("batch", "auto-tune")):
        return code
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
    return code  # not reached: the default action of these signals ends the process


def tgftp_main(argv: list[str], program: str = "tgftp", screen: Screen | None = None,
               env: dict[str, str] | None = None, *, as_process: bool = False) -> int:
    """tgftp 0.7.0's command line; returns its exit status. ``program`` is tgftp's ``$0``. With
    ``as_process`` (the ``tgftp`` and ``gftpwb tgftp`` commands, not a batch's executions) a signal
    ends the process as it ended tgftp (:func:`end_like_tgftp`), at whatever instant it comes: a Ctrl-C
    before anything runs ends it as one before tgftp's trap was set (killed by SIGINT), and one the run
    did not see (it came after the last run) as one during the run."""
    if not as_process:
        return _tgftp_main(argv, program, screen, env)
    from gftpwb.shell import interrupts

    interrupts.install()
    try:
        interrupts.raise_from_now()
        return _tgftp_main(argv, program, screen, env, as_process=True)
    except KeyboardInterrupt:
        return end_like_tgftp(EXIT_STOPPED_BY["SIGINT"], "batch")
    except Exception:
        if interrupts.received() is None:
            raise
        return end_like_tgftp(EXIT_STOPPED_BY["SIGINT"], "batch")  # a Ctrl-C Python turned into another error


def _tgftp_main(argv: list[str], program: str = "tgftp", screen: Screen | None = None,
                env: dict[str, str] | None = None, *, as_process: bool = False) -> int:
    screen = screen or Screen()
    name = os.path.basename(program)
    try:
        args = parse_tgftp_args(argv)
    except TgftpUsage as exc:
        if exc.message:
            screen.err(exc.message.replace("tgftp:", f"{name}:", 1))
        else:
            screen.out(usage_text("tgftp"))
        return EX_USAGE
    if args.action == "help":
        screen.out(help_text(name))
        return EX_OK
    if args.action == "help-batchfile":
        screen.out(help_batchfile_text())
        return EX_OK
    if args.action == "version":
        screen.out(version_text(name))
        return EX_OK
    # the executor, the kinds and the importer: loaded only when something runs (--help starts fast)
    from gftpwb.shell.frontend import shell_env
    from gftpwb.tgftp.run.execute import run_batch, run_single, run_tgftp_autotune

    env = env if env is not None else shell_env()
    masked = not faithful_logs(os.environ, screen)  # a batch's executions read it again, quietly
    if as_process:
        from gftpwb.shell import interrupts

        interrupts.defer()  # from here a signal stops the run in flight, which is recorded first
    if args.mode == "batch":
        code = run_batch(args.batchfile or "", program, screen, env, child=tgftp_main)
    elif args.mode == "auto-tune":
        code = run_tgftp_autotune(args.source, args.target, args.guc_params)
    else:
        code = run_single(args, program, argv, screen, env, masked=masked)
    if not as_process:
        return code
    from gftpwb.shell import interrupts

    if interrupts.take() and code not in _SIGNAL_OF:  # a Ctrl-C after the last run's handlers were off
        code = EXIT_STOPPED_BY["SIGINT"]
    return end_like_tgftp(code, args.mode)


def main() -> None:
    """The ``tgftp`` console script."""
    with contextlib.suppress(BrokenPipeError):
        sys.exit(tgftp_main(sys.argv[1:], program=sys.argv[0] or "tgftp", as_process=True))
