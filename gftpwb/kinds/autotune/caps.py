"""Kernel buffer caps: which socket buffer sizes the ends' kernels would cap to the same size.

Linux caps a socket buffer a program asks for (``SO_SNDBUF`` / ``SO_RCVBUF``, which guc's
``-tcp-bs`` sets, and gfal-copy's ``--tcp-buffersize``) at ``net.core.wmem_max`` /
``net.core.rmem_max``. A transfer's window is bounded by the sender's send buffer and the receiver's
receive buffer, so the cap of a path is ``min(source wmem_max, target rmem_max)``; where one end
cannot be read, the other alone. Two candidates that differ only in a buffer (a parameter the tuned
kind declares ``socket_buffer``) at or above that cap behave the same: they are marked as
duplicates (the adaptive strategy does not run them; the exhaustive one runs them, as tgftp, and
marks them). The shell reads the values (``gftpwb.kinds.autotune.run.caps``); this module only reasons.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gftpwb.core.units import format_size_arg

from .candidates import Candidate

SYSCTL_FILES = ("/proc/sys/net/core/rmem_max", "/proc/sys/net/core/wmem_max")


@dataclass(frozen=True)
class EndCaps:
    """What was read on one end of the transfer."""

    end: str  # "source" or "target"
    host: str  # the URL's host, or the client's name for file:// URLs
    rmem_max: int | None = None
    wmem_max: int | None = None
    error: str = ""  # why the values could not be read

    @property
    def known(self) -> bool:
        return self.rmem_max is not None and self.wmem_max is not None


def parse_caps(text: str) -> tuple[int, int]:
    """The output of ``cat rmem_max wmem_max``: two integers, one per line."""
    values = [int(word) for word in text.split()]
    if len(values) != 2 or min(values) <= 0:
        raise ValueError(f"expected two positive integers, got {text.strip()[:80]!r}")
    return values[0], values[1]


def path_cap(source: EndCaps, target: EndCaps) -> int | None:
    """The largest buffer that takes effect on the path: sender's wmem_max and receiver's rmem_max."""
    values = [v for v in (source.wmem_max, target.rmem_max) if v is not None]
    return min(values) if values else None


def capped(params: dict[str, Any], buffers: Sequence[str], cap: int | None) -> dict[str, Any]:
    """The values with every buffer above ``cap`` at ``cap`` (what the kernel gives)."""
    if cap is None:
        return params
    return {k: cap if k in buffers and isinstance(v, int) and v > cap else v for k, v in params.items()}


def over_cap(candidate: Candidate, buffers: Sequence[str], cap: int | None) -> list[int]:
    """The candidate's buffer sizes the kernel caps."""
    return [v for k, v in candidate.params if k in buffers and cap is not None and isinstance(v, int) and v > cap]


def duplicates(candidates: Sequence[Candidate], cap: int | None, buffers: Sequence[str] = ("tcp_buffer",)
               ) -> dict[int, int]:
    """{later candidate number: earlier candidate number} for candidates that behave the same once
    the kernel caps their buffers (the parameters named in ``buffers``); only candidates whose buffer
    is actually capped count (exact repeats are a scenario error, reported when it is loaded)."""
    if cap is None or not buffers:
        return {}
    first: dict[tuple[Any, ...], int] = {}
    out: dict[int, int] = {}
    for candidate in candidates:
        key = (tuple(sorted(capped(candidate.values, buffers, cap).items())), candidate.extra_args)
        if key in first and over_cap(candidate, buffers, cap):
            out[candidate.number] = first[key]
        else:
            first.setdefault(key, candidate.number)
    return out


def notices(source: EndCaps, target: EndCaps, candidates: Sequence[Candidate],
            dupes: dict[int, int], buffers: Sequence[str] = ("tcp_buffer",), flag: str = "-tcp-bs"
            ) -> list[tuple[str, str]]:
    """(level, text) lines for the user: what was read, what could not be, what it means (``buffers``:
    the tuned kind's socket buffer parameters, ``flag``: how its messages name them)."""
    out: list[tuple[str, str]] = []
    ends = [source] if (source.host == target.host and source.known and target.known) else [source, target]
    for end in ends:
        where = "both ends" if len(ends) == 1 else f"the {end.end}"
        if end.known:
            out.append(("info", f"buffer caps on {end.host} ({where}): net.core.rmem_max={end.rmem_max}, "
                                f"net.core.wmem_max={end.wmem_max}"))
        else:
            out.append(("warning", f"cannot read the buffer caps of {end.host} ({where}): {end.error}; "
                                   f"{flag} values it caps cannot be recognised"))
    cap = path_cap(source, target)
    over = sorted({size for c in candidates for size in over_cap(c, buffers, cap)})
    if over:
        sizes = ", ".join(format_size_arg(b) for b in over)
        out.append(("warning", f"{flag} {sizes} exceed the kernel cap of {format_size_arg(cap or 0)} on this "
                               f"path and act as {format_size_arg(cap or 0)}; {len(dupes)} candidate(s) "
                               "duplicate an earlier one and are marked in the ranking"))
    return out
