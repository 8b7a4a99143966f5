"""The ``gftpwb`` command line: parse, hand the arguments to the command's handler, and turn every
error a user can cause into one clear message on stderr and a distinct exit code (see
:mod:`gftpwb.core.errors`), never a traceback.

This module imports nothing but :mod:`sys` at its top: the console script imports it before
:func:`main` runs, and a Ctrl-C during any import after that is caught by :func:`main` (exit 130,
no traceback), or remembered where Python would drop it (:mod:`gftpwb.shell.interrupts`). Only
Python's own start-up, before this module, is outside our reach.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse

EXIT_OK = 0  # gftpwb.core.errors.EXIT_OK
EXIT_INTERRUPTED = 130  # gftpwb.core.errors.EXIT_INTERRUPTED, without importing it before main() runs
STOPPED = (EXIT_INTERRUPTED, 129, 143)  # and the ends by SIGHUP and SIGTERM (gftpwb.core.errors.EXIT_STOPPED_BY)


def _err(text: str) -> None:
    print(text, file=sys.stderr)


def _interrupted() -> int:
    _err("gftpwb: interrupted")
    return EXIT_INTERRUPTED


def handler_of(reference: str) -> Callable[[argparse.Namespace], int]:
    """A command's handler from its ``"module:function"`` name, imported now."""
    import importlib

    module, _, function = reference.partition(":")
    return getattr(importlib.import_module(module), function)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command in ``argv`` (None: the program's own arguments, as the console script and
    ``python -m gftpwb`` call it; then a command may end the process at once, :mod:`.teardown`)."""
    from gftpwb.shell import interrupts  # first: a Ctrl-C from here on is remembered, never lost

    restore = interrupts.install()
    try:
        interrupts.raise_from_now()
        code = _main(list(sys.argv[1:] if argv is None else argv))
    except KeyboardInterrupt:  # Ctrl-C while starting up or loading (a run handles its own)
        code = _interrupted()
    except Exception:
        if interrupts.received() is None:
            raise
        code = _interrupted()  # a Ctrl-C that Python turned into another error (while making a class)
    else:
        if interrupts.received() is not None and code not in STOPPED:  # after the run's last checkpoint
            code = _interrupted()
    if argv is None:  # the program: its Ctrl-C stays remembered to the end of the process
        interrupts.defer()
        from gftpwb.cli.teardown import end_now_if_asked

        end_now_if_asked(code)
    else:  # called in-process: the caller's handler again
        restore()
    return code


def command_parser(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.ArgumentParser:
    """The parser of the (sub)command ``argv`` names: ``gftpwb hosts check ...`` -> ``hosts check``'s."""
    import argparse

    for word in argv:
        actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not actions:
            break
        chosen = actions[0].choices.get(word)
        if chosen is not None:
            parser = chosen
    return parser


def parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parser.parse_args(argv)``, but an argument no option takes is refused by the command it was given
    to, with that command's usage (argparse's own refusal shows ``gftpwb``'s, which lists no option of
    any command: ``gftpwb report DIR --only x`` answered ``usage: gftpwb [-h] [--version] COMMAND ...``)."""
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        command_parser(parser, argv).error(f"unrecognized arguments: {' '.join(unknown)}")
    return args


def _main(argv: list[str]) -> int:
    if argv[:1] == ["tgftp"]:  # tgftp's own parser: its options and "--" cannot go through argparse
        from gftpwb.tgftp.run.dropin import tgftp_main

        return tgftp_main(argv[1:], program="tgftp", as_process=True)
    from gftpwb.cli.parser import build_parser

    command = argv[0] if argv and not argv[0].startswith("-") else None  # only its part of the parser is built
    args = parse(build_parser(command), argv)
    try:
        command = vars(args).get("func") or handler_of(args.handler)
        return command(args)
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:
        # A GftpwbError can only come from a command that loaded gftpwb.core.errors; one that did not
        # (--help, log get) never pays for importing it and its dataclasses.
        errors = sys.modules.get("gftpwb.core.errors")
        if errors is None or not isinstance(exc, errors.GftpwbError):
            raise
        if isinstance(exc, errors.ScenarioError):
            for diagnostic in exc.diagnostics:
                _err(str(diagnostic))
        else:
            _err(f"gftpwb: {exc}")
        return exc.exit_code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
