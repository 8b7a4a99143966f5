"""The ``gftpwb`` command line: parse, hand the arguments to the command's handler, and turn every
error a user can cause into one clear message on stderr and a distinct exit code (see
:mod:`gftpwb.core.errors`), never a traceback."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from gftpwb.core.errors import EXIT_INTERRUPTED, EXIT_OK, GftpwbError, ScenarioError

from .parser import build_parser


def _err(text: str) -> None:
    print(text, file=sys.stderr)


def handler_of(reference: str) -> Callable[[argparse.Namespace], int]:
    """A command's handler from its ``"module:function"`` name, imported now."""
    module, _, function = reference.partition(":")
    return getattr(importlib.import_module(module), function)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["tgftp"]:  # tgftp's own parser: its options and "--" cannot go through argparse
        from gftpwb.tgftp.run.dropin import tgftp_main

        return tgftp_main(argv[1:], program="tgftp")
    args = build_parser().parse_args(argv)
    try:
        command = vars(args).get("func") or handler_of(args.handler)
        return command(args)
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
