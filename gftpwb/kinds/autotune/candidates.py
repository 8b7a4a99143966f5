"""Auto-tune candidates: tgftp's 37 configurations, user grids, and how a candidate is shown.

A candidate is a set of values of the tuned kind's declared parameters (its tuning facet,
:class:`gftpwb.core.registry.Tuning`: guc's -p, -tcp-bs, ...; xrdcp's streams, chunk size, ...),
sizes in bytes, shown by the kind's own label (guc's: the line tgftp prints).

tgftp (``createAutoTuningBatchJob``, v0.4.1 to 0.7.1-dev) tries ``-vb``; ``-vb -p P`` for P = 1, 2,
4, 8, 16, 32; then ``-vb -p P -tcp-bs B`` for the same P (outer) and B = 1M, 2M, 4M, 8M, 16M
(inner): 1 + 6 + 30 = 37, in that order (research notes tgftp.md §4). The order matters: the tie
rule prefers the earlier of two near-equal configurations.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from gftpwb.core.registry import Tuning
from gftpwb.core.units import parse_size
from gftpwb.kinds.guc.tuning import TGFTP_PARALLEL, TGFTP_TCP_BUFFERS, params_line

TGFTP_37 = "tgftp-37"
GUC = "guc"  # the kind whose transfers tgftp tunes, and the auto-tune's by default

Params = dict[str, Any]


@dataclass(frozen=True)
class Candidate:
    """One configuration to try; ``number`` is 1-based, as tgftp users count them. ``params``: the
    tuned kind's option values that are set (sizes in bytes); ``label``: how it is shown."""

    number: int
    params: tuple[tuple[str, Any], ...]
    extra_args: tuple[str, ...] = ()
    label: str = ""

    @property
    def index(self) -> int:
        return self.number - 1

    @property
    def values(self) -> Params:
        return dict(self.params)


def tgftp_37() -> tuple[Params, ...]:
    """tgftp's auto-tune configurations (guc options), exactly and in its order."""
    out: list[Params] = [{}]
    out += [{"parallel": p} for p in TGFTP_PARALLEL]
    out += [{"parallel": p, "tcp_buffer": b} for p in TGFTP_PARALLEL for b in TGFTP_TCP_BUFFERS]
    return tuple(out)


def typed(tuning: Tuning, values: Mapping[str, Any]) -> Params:
    """DSL values as a candidate keeps them: sizes in bytes; unset ones (null, or false for a switch)
    left out, in the order of the kind's parameters."""
    out: Params = {}
    for parameter in tuning.parameters:
        value = values.get(parameter.name)
        if value is None or (value is False and parameter.switch):
            continue
        out[parameter.name] = parse_size(value) if parameter.size else value
    return out


def grid(tuning: Tuning, axes: Mapping[str, Sequence[Any]]) -> tuple[Params, ...]:
    """The cross product of option lists, first key outermost (like ``matrix:``); ``None`` in a list
    (or ``false`` for a flag) means "not passed"."""
    keys = list(axes)
    combos = itertools.product(*(axes[k] for k in keys))
    return tuple(typed(tuning, dict(zip(keys, combo, strict=True))) for combo in combos)


def explicit(tuning: Tuning, items: Iterable[Mapping[str, Any]]) -> tuple[Params, ...]:
    return tuple(typed(tuning, dict(item)) for item in items)


def default_grid(tuning: Tuning) -> tuple[Params, ...]:
    """A kind's own search when a tune names no candidates: its parameters' declared values combined."""
    return grid(tuning, {t.name: t.values for t in tuning.parameters if t.values})


def make_candidates(param_sets: Sequence[Mapping[str, Any]], extra_args: Sequence[str] = (),
                    label: Callable[[Params, tuple[str, ...]], str] | None = None) -> tuple[Candidate, ...]:
    """Numbered candidates; ``label`` shows one (a tune passes the label of what its transfers run,
    :meth:`gftpwb.core.registry.Tuning.candidate_label`; default: guc's line where ``-vb`` leaves the
    mode alone, as tgftp prints it)."""
    show = label or (lambda params, extra: params_line(params, extra))
    extra = tuple(extra_args)
    return tuple(Candidate(i + 1, tuple(dict(p).items()), extra, show(dict(p), extra))
                 for i, p in enumerate(param_sets))


def repeated(param_sets: Sequence[Mapping[str, Any]]) -> list[tuple[int, int]]:
    """(later, earlier) 1-based numbers of candidates that repeat an earlier one exactly."""
    seen: dict[tuple[tuple[str, Any], ...], int] = {}
    out = []
    for number, params in enumerate(param_sets, start=1):
        key = tuple(sorted(dict(params).items()))
        if key in seen:
            out.append((number, seen[key]))
        else:
            seen[key] = number
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


def resolve_candidates(value: Any, tuning: Tuning) -> tuple[tuple[Params, ...], str]:
    """The candidates a DSL value names, and which form it had: tgftp-37, grid, list or (no value)
    the kind's own default grid."""
    if value is None:
        return default_grid(tuning), "default"
    if value == TGFTP_37:
        return tgftp_37(), TGFTP_37
    if isinstance(value, dict):
        return grid(tuning, value), "grid"
    return explicit(tuning, value), "list"
