"""Input formats besides gftpwb's own scenarios, as plug-ins: a file of another tool (a tgftp batchfile)
that ``gftpwb run``, ``validate``, ``hosts check`` and the TUI take in place of a scenario, converted
on the fly.

A format is a value (:class:`InputFormat`) named by an entry point in the group ``gftpwb.formats``,
as kinds are in ``gftpwb.kinds``; the front-end service asks :func:`find_format` which format claims a
file and never knows any format itself. ``claims`` runs for every scenario loaded, so the module that
defines a format imports next to nothing; its converter is named by ``"module:attribute"`` and
imported only when a file of the format is read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol

from gftpwb.core.errors import Diagnostic, EnvironmentProblem

ENTRY_POINT_GROUP = "gftpwb.formats"


class Converted(Protocol):
    """What a converter returns: the scenario as YAML text, warnings about the source (at its lines),
    and the source line each test came from (test id -> line), so that diagnostics about the
    converted YAML point at the line a user wrote."""

    text: str
    warnings: list[Diagnostic]
    lines: dict[str, int]


@dataclass(frozen=True)
class InputFormat:
    """A file format gftpwb converts into a scenario when it is given one in place of a scenario."""

    name: str
    #: What it is, in words ("a tgftp 0.7.0 batchfile"): messages name it.
    description: str
    #: ``claims(path, text)``: whether the file at ``path`` (``text``: its bytes decoded leniently)
    #: is of this format. Cheap: it runs for every file loaded.
    claims: Callable[[str, str], bool] = field(compare=False)
    #: ``"module:attribute"`` of ``convert(path, data: bytes, environ) -> Converted``; ``environ``
    #: is the environment the source's own tool expanded its values in.
    converter: str = ""

    def convert(self, path: str, data: bytes, environ: Mapping[str, str]) -> Converted:
        from gftpwb.core.registry import resolve

        return resolve(self.converter)(path, data, environ)


@cache
def input_formats() -> tuple[InputFormat, ...]:
    """The registered formats, by name (entry points are read on the first call)."""
    from gftpwb.core.entrypoints import entry_points

    found: list[InputFormat] = []
    for entry in sorted(entry_points(ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            value: Any = entry.load()
        except Exception as exc:
            raise EnvironmentProblem(f"cannot load the input format {entry.name!r} ({entry.value}): "
                                     f"{type(exc).__name__}: {exc}") from exc
        if not isinstance(value, InputFormat):
            raise EnvironmentProblem(f"entry point {entry.name!r} ({entry.value}) of {ENTRY_POINT_GROUP} is not "
                                     "an InputFormat")
        found.append(value)
    return tuple(found)


def find_format(path: str, text: str) -> InputFormat | None:
    """The format that claims the file at ``path`` (None: a scenario)."""
    return next((f for f in input_formats() if f.claims(path, text)), None)
