"""gftpwb.tgftp: pure conversions between gftpwb's data and legacy formats.

Installed from the repository's ``converters/`` folder. No I/O beyond the text the caller passes in.
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
