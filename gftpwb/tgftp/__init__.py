"""gftpwb.tgftp: tgftp 0.7.0 in pure Python: its shells' rules (``bash``), its command line (``args``),
its batch and single-test model (``model``), batchfiles <-> scenarios (``batchfile``) and records <->
tag logs (``taglog``). No I/O beyond the text the caller passes in, except ``log`` (the ``tgftp_log``
drop-in) and ``run/`` (the shell part: the ``tgftp`` drop-in, import/export, auto-tune).

This package's own module imports nothing, so that telling a batchfile from a scenario
(:func:`is_batchfile`, at every ``gftpwb validate`` and ``run``) costs nothing.
"""

from __future__ import annotations


def is_batchfile(path: str, text: str) -> bool:
    """A tgftp batchfile starts with ``#%tgftp%v...``; a file not named .yaml/.yml may have it lower down,
    or not at all when its first line that is not a comment is a batch line (at least the 9 fields
    tgftp needs: tgftp 0.7.0 ran a file without the header as one of its own version)."""
    first = next((line for line in text.splitlines() if line.strip()), "")
    if first.startswith("#%tgftp"):
        return True
    if path.endswith((".yaml", ".yml", ".json")):
        return False
    lines = text.splitlines()
    if any(line.startswith("#%tgftp%v") for line in lines):
        return True
    return looks_like_batch_line(next((line for line in lines if line.strip() and not line.startswith("#")), ""))


def looks_like_batch_line(line: str) -> bool:
    """A line with at least tgftp's 9 ``;``-separated fields and a source in the first (a URL or a path,
    not a YAML key)."""
    source = line.split(";", 1)[0].strip()
    return line.count(";") >= 8 and bool(source) and ("://" in source or source.startswith(("/", "~", "$", "'", '"')))
