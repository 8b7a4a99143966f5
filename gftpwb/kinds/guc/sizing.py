"""Where a guc run's size comes from, and how a plain file copy's size is learned. Pure.

A rate needs the bytes moved. ``-len`` says them, and so does a ``files:`` run's file set; a plain
file copy (no ``-len``) says nothing: guc prints its first ``-vb`` line after a second (a performance
marker every 5 s between two servers), so a copy under a second has no count at all, and a longer
one's last count is from before its end (a lower bound). So after a plain copy passed, gftpwb asks
the source's size over the control channel, as tgftp listed a transfer: ``globus-url-copy -do LIST
-sync -sync-level 0 SOURCE file:///dev/null/gftpwb-size`` enumerates what the transfer moves, each
file with its ``size=`` (the MLST facts of the source), and writes nothing (``-do``; the target is a
path no file system can hold, so every file is listed). The run's bytes are the listed sizes (less
``-off``), its rate those bytes over its own time, and ``details.size_from`` says where they came
from.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gftpwb.core.units import parse_size

from .driver import GUC, is_server_url

#: ``details.size_from``: the transfer's -len; the files a ``files:`` run made; the source's listing after the
#: copy; guc's last progress report (a lower bound: the listing did not answer).
FROM_LENGTH, FROM_FILES, FROM_LISTING, FROM_PROGRESS = "-len", "files", "listing", "progress"
SIZE_FROM_TEXT = {
    FROM_LENGTH: "the transfer's -len",
    FROM_FILES: "the files gftpwb made",
    FROM_LISTING: "the source's size, listed over the control channel after the copy (guc -do)",
    FROM_PROGRESS: "guc's last progress report, from before the copy ended: a lower bound",
}
# A destination no file system can hold (a path under a device), so -sync-level 0 lists every file.
NOWHERE = "file:///dev/null/gftpwb-size"
# guc's options that change what is moved or when, so the source's size is not what moved; and
# options of output or of the destination, which a listing leaves out.
NOT_SIZED_BY_THE_SOURCE = frozenset({"-sync", "-sync-level", "-t", "-df", "-dumpfile", "-do", "-dump-only",
                                     "-list", "-f", "-c", "-continue-on-error"})
OUTPUT_FLAGS = frozenset({"-vb", "-verbose-perf", "-dbg", "-debugftp", "-q", "-quiet", "-v", "-verbose", "-cd",
                          "-create-dest"})
WITH_VALUE = frozenset({"-off", "-partial-offset"})
_SIZE_FACT = re.compile(r"(?:^|[\s;])size=(\d+);")


def listing_argv(argv: Sequence[str], list_file: str) -> tuple[str, ...] | None:
    """The listing that gives the size of what ``argv`` (a passed guc transfer without ``-len``)
    moved, its list written to ``list_file`` on guc's host; None when no listing can say it (a
    ``/dev/zero`` source, ``-sync``, ``-t``, a URL list ``-f``, ``-c`` that may skip files)."""
    if len(argv) < 3 or argv[0].rsplit("/", 1)[-1] != GUC:
        return None
    args, (source, _target) = list(argv[1:-2]), argv[-2:]
    if any(arg in NOT_SIZED_BY_THE_SOURCE for arg in args) or "/dev/zero" in source:
        return None
    if not (is_server_url(source) or source.startswith(("file:", "/"))):
        return None
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in WITH_VALUE:
            skip = True
        elif arg not in OUTPUT_FLAGS:
            kept.append(arg)
    recursive = source.endswith("/") or "-r" in args or "-recurse" in args
    return (GUC, *kept, "-do", list_file, "-sync", "-sync-level", "0", source, NOWHERE + ("/" if recursive else ""))


def listed_bytes(list_text: str, argv: Sequence[str]) -> int | None:
    """The bytes the transfer moved by its listing: the ``size=`` of every file listed (``#`` lines are
    directories), less ``-off`` of a single file; None when the list gives no size."""
    sizes = [int(m[1]) for line in list_text.splitlines() if line and not line.startswith("#")
             for m in [_SIZE_FACT.search(line)] if m]
    if not sizes:
        return None
    offset = _offset(argv)
    if offset and len(sizes) > 1:
        return None  # guc's offset applies to each file: what moved is not the listing's sum
    return max(sizes[0] - offset, 0) if offset else sum(sizes)


def _offset(argv: Sequence[str]) -> int:
    for flag in WITH_VALUE:
        if flag in argv[:-2]:
            at = list(argv).index(flag)
            try:
                return parse_size(argv[at + 1])
            except (IndexError, ValueError):
                return 0
    return 0
