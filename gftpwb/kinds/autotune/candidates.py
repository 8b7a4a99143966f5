"""Auto-tune candidates: tgftp's 37 configurations, user grids, and the line tgftp prints.

tgftp (``createAutoTuningBatchJob``, v0.4.1 to 0.7.1-dev) tries ``-vb``; ``-vb -p P`` for P = 1, 2,
4, 8, 16, 32; then ``-vb -p P -tcp-bs B`` for the same P (outer) and B = 1M, 2M, 4M, 8M, 16M
(inner): 1 + 6 + 30 = 37, in that order (research notes tgftp.md §4). The order matters: the tie
rule prefers the earlier of two near-equal configurations.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from gftpwb.core.units import MIB
from gftpwb.kinds.guc.driver import option_args
from gftpwb.kinds.guc.model import GucOptions

TGFTP_37 = "tgftp-37"
TGFTP_PARALLEL = (1, 2, 4, 8, 16, 32)
TGFTP_TCP_BUFFERS = tuple(n * MIB for n in (1, 2, 4, 8, 16))

# The options a candidate may vary (a user grid): the ones that change how one transfer moves data.
GRID_OPTIONS = ("parallel", "tcp_buffer", "block_size", "concurrency", "pipeline", "fast")


@dataclass(frozen=True)
class Candidate:
    """One configuration to try; ``number`` is 1-based, as tgftp users count them."""

    number: int
    options: GucOptions
    extra_args: tuple[str, ...] = ()

    @property
    def index(self) -> int:
        return self.number - 1

    @property
    def values(self) -> dict[str, Any]:
        """The candidate's parameters that are set, by name (what the history knows it by)."""
        return self.options.set_options()

    @property
    def label(self) -> str:
        """guc parameters as tgftp prints the winner: ``-vb -p 16 -tcp-bs 8M``."""
        return params_line(self.options, self.extra_args)


def params_line(options: GucOptions, extra_args: Sequence[str] = ()) -> str:
    """``-vb`` then the options in guc-table order, then any extra arguments; no ``-len``."""
    without_length = GucOptions(**{**options.set_options(), "length": None})
    extra = [a for a in extra_args if a not in ("-vb", "-verbose-perf")]
    return " ".join(["-vb", *option_args(without_length), *extra])


def tgftp_37() -> tuple[GucOptions, ...]:
    """tgftp's auto-tune configurations, exactly and in its order."""
    out = [GucOptions()]
    out += [GucOptions(parallel=p) for p in TGFTP_PARALLEL]
    out += [GucOptions(parallel=p, tcp_buffer=b) for p in TGFTP_PARALLEL for b in TGFTP_TCP_BUFFERS]
    return tuple(out)


def grid(axes: Mapping[str, Sequence[Any]]) -> tuple[GucOptions, ...]:
    """The cross product of option lists, first key outermost (like ``matrix:``); ``None`` in a list
    (or ``false`` for a flag) means "not passed to guc"."""
    keys = list(axes)
    combos = itertools.product(*(axes[k] for k in keys))
    return tuple(GucOptions.from_mapping({k: v for k, v in zip(keys, combo, strict=True) if v is not None})
                 for combo in combos)


def explicit(items: Iterable[Mapping[str, Any]]) -> tuple[GucOptions, ...]:
    return tuple(GucOptions.from_mapping(dict(item)) for item in items)


def make_candidates(options: Sequence[GucOptions], extra_args: Sequence[str] = ()) -> tuple[Candidate, ...]:
    return tuple(Candidate(i + 1, o, tuple(extra_args)) for i, o in enumerate(options))


def repeated(options: Sequence[GucOptions]) -> list[tuple[int, int]]:
    """(later, earlier) 1-based numbers of candidates that repeat an earlier one exactly."""
    seen: dict[GucOptions, int] = {}
    out = []
    for number, option in enumerate(options, start=1):
        if option in seen:
            out.append((number, seen[option]))
        else:
            seen[option] = number
    return out


# --- memory-to-memory end points, as tgftp builds them ---------------------------------------------

DEFAULT_PORTS = {"gsiftp": 2811, "ftp": 21, "http": 80, "https": 443}


def memory_url(url: str, path: str) -> str:
    """tgftp's ``getURLWithoutPath`` plus ``path``: keep scheme, host and port (adding the default
    port), replace the path; a bare ``/path`` (or ``file://``) becomes ``file://<path>``."""
    if url.startswith(("/", "file:")):
        return f"file://{path}"
    parts = urlsplit(url)
    netloc = parts.netloc
    default = DEFAULT_PORTS.get(parts.scheme.lower())
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None and default is not None and parts.hostname:
        netloc = f"{netloc}:{default}"
    return urlunsplit((parts.scheme, netloc, path, "", ""))


def memory_endpoints(source: str, target: str) -> tuple[str, str]:
    """Source ``/dev/zero`` and target ``/dev/null`` on the same servers (a memory-to-memory test)."""
    return memory_url(source, "/dev/zero"), memory_url(target, "/dev/null")


def resolve_candidates(value: Any) -> tuple[tuple[GucOptions, ...], str]:
    """The candidates a DSL value names, and which form it had: tgftp-37, grid or list."""
    if value == TGFTP_37:
        return tgftp_37(), TGFTP_37
    if isinstance(value, dict):
        return grid(value), "grid"
    return explicit(value), "list"
