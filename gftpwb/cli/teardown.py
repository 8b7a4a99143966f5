"""Ending ``gftpwb report`` and ``compare`` without tearing down what they read.

A report of 100,000 records holds millions of objects (records, cases, runs) until the end. Python
frees each of them when the interpreter shuts down, which took over a second of CPU after the report
was written, for nothing: the process is ending. A command that asks for it (:func:`skip_teardown`)
ends with ``os._exit`` once its output is flushed, as mypy does after a large check. Only the
program itself does so (:func:`gftpwb.cli.main.main` called with no arguments, as the console
script and ``python -m gftpwb`` call it); a caller of ``main(argv)`` gets its exit code back as ever.
Such a command writes its files (``--csv``, ``--junit``, ``--html``) before it returns, and registers
nothing that must run at exit.
"""

from __future__ import annotations

import contextlib
import os
import sys

_asked = False


def skip_teardown() -> None:
    """Ask to end the process without freeing everything first (when it ends as the program)."""
    global _asked
    _asked = True


def end_now_if_asked(code: int) -> None:
    """If a command asked (:func:`skip_teardown`), flush stdout and stderr and end with ``code`` now."""
    if not _asked:
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (`gftpwb report DIR | head`)
            stream.flush()
    os._exit(code)
