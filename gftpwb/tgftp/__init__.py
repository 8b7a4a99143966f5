"""gftpwb.tgftp: tgftp 0.7.0 in pure Python: its shells' rules (``bash``), its command line (``args``),
its batch and single-test model (``model``), batchfiles <-> scenarios (``batchfile``) and records <->
tag logs (``taglog``). No I/O beyond the text the caller passes in, except ``log`` (the ``tgftp_log``
drop-in) and ``run/`` (the shell part: the ``tgftp`` drop-in, import/export, auto-tune).

This package's own module imports nothing, so that telling a batchfile from a scenario
(:func:`is_batchfile`, at every ``gftpwb validate`` and ``run``) costs nothing.
"""

from __future__ import annotations


def is_batchfile(path: str, text: str) -> bool:
    """A tgftp batchfile starts with ``#%tgftp%v...``; a file not named .yaml/.yml may have it lower down."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    if first.startswith("#%tgftp"):
        return True
    if path.endswith((".yaml", ".yml")):
        return False
    return any(line.startswith("#%tgftp%v") for line in text.splitlines())
