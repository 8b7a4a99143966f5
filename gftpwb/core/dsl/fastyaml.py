"""The fast path of YAML loading: libyaml's C parser (through PyYAML) composes the node tree, and we
turn it into plain data and positions with ruamel's YAML 1.2 rules for scalars.

ruamel's round-trip loader is pure Python and was most of the time of validating a large scenario
(20,000 tests: about 9 s of 10). libyaml composes the same file several times faster. Only the plain
subset of YAML scenarios are made of takes this path: mappings with scalar keys, sequences, plain
and quoted scalars, anchors and aliases. Anything else (explicit tags, merge keys ``<<``, duplicate
keys, complex keys, several documents, any syntax error) returns None and the caller loads the file
with ruamel as before, which gives every error its message and position. A differential test
(tests/test_bounded_inputs.py) checks that both paths give the same data and positions.

Scalars are resolved by ruamel's own YAML 1.2 resolver and built by its safe constructor, so
``on``, ``yes`` and ``0o17`` mean here what they mean with ruamel (not PyYAML's YAML 1.1).
"""

from __future__ import annotations

import math
import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml import nodes as rnodes

try:  # PyYAML with libyaml; without it every file takes the ruamel path
    import yaml as _pyyaml

    _LOADER: Any = _pyyaml.CSafeLoader
    _NODES: Any = (_pyyaml.MappingNode, _pyyaml.SequenceNode, _pyyaml.ScalarNode)
except (ImportError, AttributeError):  # pragma: no cover - PyYAML is a dependency, libyaml in its wheels
    _LOADER = None

PLAIN_STYLES = (None, "")
# Characters libyaml and ruamel treat differently (tabs, carriage returns, BOMs, line separators,
# controls): files with any of them take the ruamel path.
_UNUSUAL = re.compile("[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]")
_STRING = "tag:yaml.org,2002:str"


class Unsupported(Exception):
    """The file needs ruamel: a feature this path does not take, or something to report."""


class _Builder:
    def __init__(self, text: str, budget: int, max_nesting: int):
        self.lines = text.split("\n")
        self.left = budget
        self.max_nesting = max_nesting
        ruamel = YAML(typ="safe", pure=True)  # its resolver and constructor, wired to each other (YAML 1.2)
        self.resolver = ruamel.resolver
        self.constructor = ruamel.constructor
        self.plain: dict[str, Any] = {}  # plain scalar text -> value (values repeat: kinds, URLs, sizes)
        self.seen: set[int] = set()  # nodes built: a second visit is an alias (ruamel places those)
        self.values: dict[tuple[Any, ...], tuple[int, int]] = {}
        self.keys: dict[tuple[Any, ...], tuple[int, int]] = {}

    def _explicit_tag(self, node: Any) -> bool:
        mark = node.start_mark
        line = self.lines[mark.line] if mark.line < len(self.lines) else ""
        return line[mark.column:mark.column + 1] == "!"

    def scalar(self, node: Any) -> Any:
        if self._explicit_tag(node):
            raise Unsupported("explicit tag")
        if node.style not in PLAIN_STYLES:
            return node.value  # quoted or block scalars are text
        if not node.value:
            raise Unsupported("empty value")  # ruamel places it elsewhere (at the next token)
        if node.value in self.plain:
            return self.plain[node.value]
        value = self.plain[node.value] = self._resolve(node.value)
        return value

    def _resolve(self, text: str) -> Any:
        tag = self.resolver.resolve(rnodes.ScalarNode, text, (True, False))
        if tag == _STRING:
            return text
        value = self.constructor.construct_object(rnodes.ScalarNode(tag, text), deep=True)
        if isinstance(value, float) and not math.isfinite(value):
            raise Unsupported("not a finite number")  # ruamel's path reports it at its position
        if not isinstance(value, bool | int | float) and value is not None:
            raise Unsupported(f"scalar of type {type(value).__name__}")  # dates and the like: as ruamel does
        return value

    def build(self, node: Any, path: tuple[Any, ...]) -> Any:
        self.left -= 1
        if self.left < 0 or len(path) > self.max_nesting:
            raise Unsupported("over a limit")  # ruamel's path reports it with its position
        if id(node) in self.seen:
            raise Unsupported("alias")
        self.seen.add(id(node))
        mapping, sequence, scalar = _NODES
        if isinstance(node, scalar):
            return self.scalar(node)
        if self._explicit_tag(node):
            raise Unsupported("explicit tag")
        if isinstance(node, sequence):
            items = []
            for index, item in enumerate(node.value):
                child = (*path, index)
                self.values[child] = (item.start_mark.line + 1, item.start_mark.column + 1)
                items.append(self.build(item, child))
            return items
        if isinstance(node, mapping):
            out: dict[str, Any] = {}
            raw_keys: set[Any] = set()  # as ruamel compares them: 1, 1.0 and true are one key
            for key_node, value_node in node.value:
                if not isinstance(key_node, scalar):
                    raise Unsupported("complex key")
                if key_node.value == "<<" and key_node.style in PLAIN_STYLES:
                    raise Unsupported("merge key")
                raw = self.scalar(key_node)
                key = str(raw)
                if key in out or raw in raw_keys:
                    raise Unsupported("duplicate key")
                raw_keys.add(raw)
                child = (*path, key)
                self.keys[child] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                self.values[child] = (value_node.start_mark.line + 1, value_node.start_mark.column + 1)
                out[key] = self.build(value_node, child)
            return out
        raise Unsupported(type(node).__name__)  # pragma: no cover


def fast_load(text: str, budget: int, max_nesting: int) -> tuple[Any, dict, dict] | None:
    """(plain data, value positions, key positions), or None: load this file with ruamel instead."""
    if _LOADER is None or _UNUSUAL.search(text):
        return None
    try:
        root = _pyyaml.compose(text, Loader=_LOADER)
        builder = _Builder(text, budget, max_nesting)
        data = None if root is None else builder.build(root, ())
    except (Unsupported, _pyyaml.YAMLError, RecursionError, ValueError, TypeError, KeyError, IndexError,
            AttributeError):
        return None
    return data, builder.values, builder.keys
