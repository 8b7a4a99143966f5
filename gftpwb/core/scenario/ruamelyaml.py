"""The ruamel path of YAML loading: ruamel.yaml's round-trip loader, for every file the fast path
(:mod:`.fastyaml`) does not take, and for every error's message and position. Imported only then:
ruamel.yaml is a tenth of a quick command's start-up.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import DuplicateKeyError
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import MappingEndEvent, MappingStartEvent, SequenceEndEvent, SequenceStartEvent
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.reader import ReaderError

from gftpwb.core.errors import Diagnostic, ScenarioError

from .positions import MAX_NESTING, Path, Positions, line_column


class _Limit(Exception):
    def __init__(self, path: Path, message: str):
        self.path, self.message = path, message


class _Plain:
    """The round-trip tree as plain data, within :data:`MAX_NESTING` levels and a budget of values."""

    def __init__(self, pos: Positions, budget: int):
        self.pos = pos
        self.left = budget

    def __call__(self, node: Any, path: Path) -> Any:
        self.left -= 1
        if self.left < 0:
            raise _Limit(path, "the file expands to too many values (anchors and aliases that expand each "
                               "other: a YAML \"billion laughs\"?)")
        if len(path) > MAX_NESTING:
            raise _Limit(path, f"nested more than {MAX_NESTING} levels deep")
        if isinstance(node, CommentedMap):
            return self._mapping(node, path)
        if isinstance(node, CommentedSeq):
            return self._sequence(node, path)
        if isinstance(node, bool) or node is None:
            return node
        if isinstance(node, int):
            return int(node)
        if isinstance(node, float):
            if not math.isfinite(node):
                where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
                raise _Limit(path, f"{where}: {node!r} is not a finite number")
            return float(node)
        if isinstance(node, str):
            return str(node)
        # dates, binary and other YAML tags: keep their text so the schema reports a wrong type.
        return str(node)

    def _mapping(self, node: CommentedMap, path: Path) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in node:
            child = (*path, str(key))
            try:
                kline, kcol = node.lc.key(key)
                vline, vcol = node.lc.value(key)
                self.pos.keys[child] = (kline + 1, kcol + 1)
                self.pos.values[child] = (vline + 1, vcol + 1)
            except (KeyError, TypeError, AttributeError):
                pass
            out[str(key)] = self(node[key], child)
        return out

    def _sequence(self, node: CommentedSeq, path: Path) -> list[Any]:
        items = []
        for index, item in enumerate(node):
            child = (*path, index)
            try:
                line, col = node.lc.item(index)
                self.pos.values[child] = (line + 1, col + 1)
            except (KeyError, TypeError, AttributeError):
                pass
            items.append(self(item, child))
        return items


def ruamel_load(text: str, filename: str, budget: int) -> tuple[Any, Positions, Any]:
    """The ruamel path of :func:`load_yaml_with_positions`: every file the fast path does not take,
    and every error's message and position."""
    yaml = YAML(typ="rt")
    yaml.allow_duplicate_keys = False
    try:
        tree = yaml.load(text)
    except DuplicateKeyError as exc:
        raise ScenarioError([_duplicate(exc, text, filename)]) from None
    except MarkedYAMLError as exc:
        raise ScenarioError([_marked(exc, filename)]) from None
    except ReaderError as exc:  # a control character, which YAML does not allow in a file
        line, col = line_column(text, exc.position)
        code = exc.character if isinstance(exc.character, int) else ord(str(exc.character)[:1] or "\0")
        raise ScenarioError([Diagnostic(filename, line, col, f"control character U+{code:04X} is not allowed "
                                                             "in YAML (use an escape such as \\t inside double "
                                                             "quotes)")]) from None
    except RecursionError:  # ruamel's composer recurses per level: find where the nesting got too deep
        raise ScenarioError([_too_deep(text, filename)]) from None
    except YAMLError as exc:  # pragma: no cover - ruamel raises marked errors for text input
        raise ScenarioError([Diagnostic(filename, 0, 0, f"YAML error: {exc}")]) from None
    except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
        # ruamel's constructors raise these unmarked for explicitly tagged values (!!int x, !!bool x)
        raise ScenarioError([_unconstructible(text, filename, exc)]) from None
    pos = Positions()
    pos.values[()] = (1, 1)
    try:
        data = _Plain(pos, budget)(tree, ())
    except _Limit as exc:
        line, col = pos.of_value(exc.path)
        raise ScenarioError([Diagnostic(filename, line, col, exc.message)]) from None
    return data, pos, tree


def _unconstructible(text: str, filename: str, exc: Exception) -> Diagnostic:
    """Where a value ruamel could not construct stands: the first explicitly tagged scalar that fails
    on its own (found on the composed nodes, which ruamel builds without constructing them)."""
    yaml = YAML(typ="rt")
    message = f"YAML error: a value cannot be read as its tag says ({type(exc).__name__}: {exc})"
    try:
        stack = [yaml.compose(text)]
    except (YAMLError, RecursionError, ValueError, TypeError, KeyError, IndexError, AttributeError):
        return Diagnostic(filename, 1, 1, message)
    while stack:
        node = stack.pop()
        if isinstance(node, MappingNode):
            stack.extend(v for pair in reversed(node.value) for v in reversed(pair))
        elif isinstance(node, SequenceNode):
            stack.extend(reversed(node.value))
        elif isinstance(node, ScalarNode) and text[node.start_mark.index:node.start_mark.index + 1] == "!":
            try:
                yaml.constructor.construct_object(node, deep=True)
            except Exception as failed:  # ruamel raises anything here; we only locate it
                mark = node.start_mark
                return Diagnostic(filename, mark.line + 1, mark.column + 1,
                                  f"YAML error: {node.value!r} cannot be read as {node.tag} ({failed})")
    return Diagnostic(filename, 1, 1, message)


def _too_deep(text: str, filename: str) -> Diagnostic:
    """Where the nesting passes :data:`MAX_NESTING` (ruamel's event parser does not recurse)."""
    message = f"nested more than {MAX_NESTING} levels deep"
    depth = 0
    try:
        for event in YAML(typ="rt").parse(text):
            if isinstance(event, MappingStartEvent | SequenceStartEvent):
                depth += 1
                if depth > MAX_NESTING:
                    mark = event.start_mark
                    return Diagnostic(filename, mark.line + 1, mark.column + 1, message)
            elif isinstance(event, MappingEndEvent | SequenceEndEvent):
                depth -= 1
    except (YAMLError, RecursionError):
        pass
    return Diagnostic(filename, 1, 1, message)


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
