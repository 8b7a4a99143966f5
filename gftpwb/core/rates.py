"""Rate maths. "MB" means MiB (2**20 bytes) everywhere, as in guc's ``-vb`` output and tgftp."""

from __future__ import annotations

from .units import GIB, KIB, MIB


def mib_per_s(nbytes: int | None, seconds: float | None) -> float | None:
    """Bytes over seconds in MiB/s, or None when either is unknown or the time is not positive."""
    if nbytes is None or seconds is None or seconds <= 0:
        return None
    return nbytes / MIB / seconds


def tgftp_size_text(nbytes: int) -> str:
    """The value of tgftp's ``GSIFTP_TRANSFER_SIZE`` tag: ``4 GB``, ``512 MB``, ``3 KB`` or ``N B``.

    tgftp derives it from the ``-len`` argument; we derive it from the byte count, choosing the
    largest unit that divides it exactly, which gives the same text for every suffixed length.
    """
    for unit, factor in (("GB", GIB), ("MB", MIB), ("KB", KIB)):
        if nbytes and nbytes % factor == 0:
            return f"{nbytes // factor} {unit}"
    return f"{nbytes} B"


def tgftp_rate_text(rate_mib_s: float) -> str:
    """The value of tgftp's ``GSIFTP_TRANSFER_RATE`` tag: an integer, truncated, then `` MB/s``."""
    return f"{int(rate_mib_s)} MB/s"


def tgftp_rate(nbytes: int, start_epoch: float, end_epoch: float) -> int:
    """The rate tgftp 0.7.0 would have reported for a run, in its integer "MB/s".

    tgftp reads ``date +%s`` before and after guc (whole seconds), uses 1 when the difference is 0,
    and divides the size in MiB by it with bash integer division (research notes, tgftp.md §3.3).
    """
    elapsed = int(end_epoch) - int(start_epoch)
    if elapsed <= 0:
        elapsed = 1
    return (nbytes // MIB) // elapsed
