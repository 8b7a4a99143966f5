"""Load YAML with ruamel.yaml's round-trip loader and remember where every node stands.

JSON Schema validators report errors by path (``tests/2/options/length``); users want
``file:line:col``. We convert the round-trip tree into plain Python data (so the validator and the
model never see ruamel types) plus a map from each path to the 1-based position of its key and of
its value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

from gftpwb.core.errors import Diagnostic, ScenarioError

Path = tuple[str | int, ...]


@dataclass
class Positions:
    """1-based (line, column) of values and mapping keys, by path from the document root.

    ``files`` names another file for the subtrees that came from one (hosts read with ``include:``);
    :meth:`file_of` says which file a path's position is in.
    """

    values: dict[Path, tuple[int, int]] = field(default_factory=dict)
    keys: dict[Path, tuple[int, int]] = field(default_factory=dict)
    files: dict[Path, str] = field(default_factory=dict)

    def file_of(self, path: Path, default: str) -> str:
        """The file the position of ``path`` is in: that of its nearest grafted ancestor, else ``default``."""
        if self.files:
            for cut in range(len(path), -1, -1):
                name = self.files.get(tuple(path[:cut]))
                if name is not None:
                    return name
        return default

    def graft(self, prefix: Path, other: Positions, source: Path, filename: str) -> None:
        """Take the positions of ``other`` below ``source`` as those below ``prefix``, in ``filename``."""
        cut = len(source)
        for mine, theirs in ((self.values, other.values), (self.keys, other.keys)):
            for path, where in theirs.items():
                if path[:cut] == source and len(path) > cut:
                    mine[(*prefix, *path[cut:])] = where
        for path in list(other.values):
            if path[:cut] == source and len(path) == cut + 1:
                self.files[(*prefix, *path[cut:])] = filename

    def of_value(self, path: Path) -> tuple[int, int]:
        """Position of the value at ``path``, or of the nearest ancestor that has one."""
        for cut in range(len(path), -1, -1):
            pos = self.values.get(tuple(path[:cut]))
            if pos:
                return pos
        return (1, 1)

    def of_key(self, path: Path) -> tuple[int, int]:
        """Position of the key naming ``path`` (falls back to the value position)."""
        return self.keys.get(tuple(path)) or self.of_value(path)


def _plain(node: Any, path: Path, pos: Positions) -> Any:
    if isinstance(node, CommentedMap):
        out: dict[str, Any] = {}
        for key in node:
            child = (*path, str(key))
            try:
                kline, kcol = node.lc.key(key)
                vline, vcol = node.lc.value(key)
                pos.keys[child] = (kline + 1, kcol + 1)
                pos.values[child] = (vline + 1, vcol + 1)
            except (KeyError, TypeError, AttributeError):
                pass
            out[str(key)] = _plain(node[key], child, pos)
        return out
    if isinstance(node, CommentedSeq):
        items = []
        for index, item in enumerate(node):
            child = (*path, index)
            try:
                line, col = node.lc.item(index)
                pos.values[child] = (line + 1, col + 1)
            except (KeyError, TypeError, AttributeError):
                pass
            items.append(_plain(item, child, pos))
        return items
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    # dates, binary and other YAML tags: keep their text so the schema reports a wrong type.
    return str(node)


def load_yaml_with_positions(text: str, filename: str) -> tuple[Any, Positions, Any]:
    """Parse ``text`` and return (plain data, positions, round-trip tree).

    Syntax errors and duplicate keys raise ScenarioError with the file position ruamel reports.
    The round-trip tree is returned so converters can keep comments when they rewrite a file.
    """
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        tree = yaml.load(text)
    except DuplicateKeyError as exc:
        raise ScenarioError([_duplicate(exc, text, filename)]) from None
    except MarkedYAMLError as exc:
        raise ScenarioError([_marked(exc, filename)]) from None
    except YAMLError as exc:  # pragma: no cover - ruamel raises marked errors for text input
        raise ScenarioError([Diagnostic(filename, 0, 0, f"YAML error: {exc}")]) from None
    pos = Positions()
    pos.values[()] = (1, 1)
    return _plain(tree, (), pos), pos, tree


def _duplicate(exc: DuplicateKeyError, text: str, filename: str) -> Diagnostic:
    """Report a duplicate key at its second occurrence and say where the first one is."""
    mark = exc.problem_mark
    match = re.match(r'found duplicate key "(.*?)" with value', exc.problem or "")
    key = match.group(1) if match else "?"
    first_line = _first_key_line(text, exc.context_mark, key)
    where = f" (first defined at line {first_line})" if first_line else ""
    return Diagnostic(filename, mark.line + 1, mark.column + 1, f'duplicate key "{key}"{where}')


def _first_key_line(text: str, mapping_mark: Any, key: str) -> int | None:
    """Find the first occurrence of ``key`` in the mapping that starts at ``mapping_mark``."""
    if mapping_mark is None:
        return None
    try:
        root = YAML(typ="rt").compose(text)
    except YAMLError:
        return None
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, MappingNode):
            if (node.start_mark.line, node.start_mark.column) == (mapping_mark.line, mapping_mark.column):
                for key_node, _ in node.value:
                    if isinstance(key_node, ScalarNode) and key_node.value == key:
                        return key_node.start_mark.line + 1
            stack.extend(v for pair in node.value for v in pair)
        elif isinstance(node, SequenceNode):
            stack.extend(node.value)
    return None


def _marked(exc: MarkedYAMLError, filename: str) -> Diagnostic:
    mark = exc.problem_mark or exc.context_mark
    line, col = (mark.line + 1, mark.column + 1) if mark else (0, 0)
    problem = exc.problem or str(exc)
    if exc.context:
        problem = f"{problem} ({exc.context})"
    return Diagnostic(filename, line, col, f"YAML syntax error: {problem}")
