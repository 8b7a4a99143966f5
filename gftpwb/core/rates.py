"""Rate maths. "MB" means MiB (2**20 bytes) everywhere, as in guc's ``-vb`` output and tgftp."""

from __future__ import annotations

from .units import MIB


def mib_per_s(nbytes: int | None, seconds: float | None) -> float | None:
    """Bytes over seconds in MiB/s, or None when either is unknown or the time is not positive."""
    if nbytes is None or seconds is None or seconds <= 0:
        return None
    return nbytes / MIB / seconds
