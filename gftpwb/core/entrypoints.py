"""The entry points of one group, read the way :func:`importlib.metadata.entry_points` reads them,
without importing :mod:`importlib.metadata` (which brings email, zipfile and csv: about a tenth of
``gftpwb validate``'s time, for every command that asks the registry a question).

The usual case is read here: the ``*.dist-info`` and ``*.egg-info`` folders of the directories on
``sys.path``, the first distribution of a name winning, as in :func:`importlib.metadata.distributions`.
Anything else (a zip file on ``sys.path``, a finder that provides distributions of its own) goes to
:mod:`importlib.metadata` itself. tests/test_entrypoints.py holds both to the same answer.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_INFO_SUFFIXES = (".dist-info", ".egg-info")
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


@dataclass(frozen=True)
class EntryPoint:
    """What the registry asks of an entry point: its name, its ``module:attribute`` and the object."""

    name: str
    value: str
    group: str

    def load(self) -> Any:
        """The object named by ``value`` (imported now), as :meth:`importlib.metadata.EntryPoint.load`."""
        match = _VALUE.match(self.value)
        if match is None:
            raise ValueError(f"bad entry point value {self.value!r}")
        module = importlib.import_module(match.group("module"))
        attrs = filter(None, (match.group("attr") or "").split("."))
        return functools.reduce(getattr, attrs, module)


class _Unusual(Exception):
    """Something importlib.metadata reads in a way of its own: let it answer."""


def entry_points(group: str) -> Iterable[Any]:
    """The entry points of ``group`` of every installed distribution (as importlib.metadata finds them)."""
    try:
        return _scan(group)
    except _Unusual:
        from importlib import metadata

        return metadata.entry_points(group=group)


def _scan(group: str) -> list[EntryPoint]:
    if not _plain_path():
        raise _Unusual("sys.path")
    seen: set[str] = set()
    out: list[EntryPoint] = []
    for entry in sys.path:
        by_name: dict[str, list[str]] = {}  # importlib.metadata groups a folder's infos by name
        for info in _infos(entry or "."):
            by_name.setdefault(_normalized(info), []).append(info)
        for name, infos in by_name.items():
            if name in seen:
                continue
            seen.add(name)
            out.extend(_read(os.path.join(entry or ".", infos[0], "entry_points.txt"), group))
    return out


def _plain_path() -> bool:
    """True when every distribution comes from a folder on ``sys.path``: only the standard path
    finder provides distributions, and no ``sys.path`` entry is a file (a zip)."""
    from importlib.machinery import PathFinder

    for finder in sys.meta_path:
        if hasattr(finder, "find_distributions") and finder is not PathFinder:
            return False
    return not any(entry and (os.path.isfile(entry) or entry.lower().endswith(".egg")) for entry in sys.path)


def _infos(directory: str) -> list[str]:
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    infos = [name for name in names if name.lower().endswith(_INFO_SUFFIXES)]
    for info in infos:
        if not info.endswith(_INFO_SUFFIXES) or not _normalized(info):
            raise _Unusual(info)  # importlib.metadata would read the name from the METADATA file
    return infos


def _normalized(info: str) -> str:
    """The distribution's name from its folder's name, normalized as importlib.metadata does."""
    name = info.lower().rpartition(".")[0].partition("-")[0]
    return re.sub(r"[-_.]+", "-", name).lower().replace("-", "_")


def _read(path: str, group: str) -> list[EntryPoint]:
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return []
    out: list[EntryPoint] = []
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section is None:
            continue
        if "=" not in line:
            raise _Unusual(path)  # importlib.metadata raises its own error for it
        if section == group:
            name, _, value = line.partition("=")
            out.append(EntryPoint(name.strip(), value.strip(), group))
    return out
