"""The fast path of YAML loading: libyaml's C parser (through PyYAML) reads the events, and we build
plain data and positions from them with ruamel's YAML 1.2 rules for scalars.

ruamel's round-trip loader is pure Python and was most of the time of validating a large scenario
(20,000 tests: about 9 s of 10). libyaml parses the same file several times faster. Only the plain
subset of YAML scenarios are made of takes this path: mappings with scalar keys, sequences, plain
and quoted scalars, anchors. Anything else (aliases, explicit tags, merge keys ``<<``, duplicate
keys, complex keys, several documents, ``%YAML``/``%TAG`` directives, any syntax error) returns None
and the caller loads the file with ruamel as before, which gives every error its message and position.
A differential test (tests/test_bounded_inputs.py) checks that both paths give the same data and positions.

Scalars mean what they mean with ruamel (YAML 1.2, not PyYAML's 1.1: ``on`` and ``yes`` are text).
The forms nearly every scenario is made of are read here without ruamel (:func:`quick_scalar`:
text that ruamel's resolver never looks further at, ``true``/``false``/``null``, decimal integers,
sizes and durations such as ``2G`` and ``60s``), so a quick command need not import it at all;
any other plain scalar (``0.5``, ``0x1f``, ``1e3``, a date) goes to ruamel's own resolver and safe
constructor. tests/test_bounded_inputs.py holds the two to the same answer.
"""

from __future__ import annotations

import math
import re
from typing import Any

# PyYAML's pure-Python reader compiles this pattern when imported: a class of nearly all of Unicode,
# about 58 M instructions (a tenth of ``gftpwb validate``). The fast path reads through libyaml and never
# uses that reader, so the pattern is made on first use instead (:func:`_import_pyyaml`).
PYYAML_NON_PRINTABLE = "[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010ffff]"


class PatternOnFirstUse:
    """A compiled pattern, compiled when first used (any attribute: ``search``, ``match``, ...)."""

    def __init__(self, pattern: str, flags: int, make: Any):
        self._args = (pattern, flags)
        self._make = make
        self._compiled: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            self._compiled = self._make(*self._args)
        return getattr(self._compiled, name)


def _import_pyyaml() -> Any:
    """``import yaml``, with :data:`PYYAML_NON_PRINTABLE` left to compile on first use (re.compile is
    itself again when the import returns; every other pattern compiles as usual)."""
    import sys

    if "yaml" in sys.modules:
        return sys.modules["yaml"]
    real = re.compile

    def compile_lazily(pattern: Any, flags: int = 0) -> Any:
        if pattern == PYYAML_NON_PRINTABLE:
            return PatternOnFirstUse(pattern, flags, real)
        return real(pattern, flags)

    re.compile = compile_lazily
    try:
        import yaml
    finally:
        re.compile = real
    return yaml


try:  # PyYAML with libyaml; without it every file takes the ruamel path
    _pyyaml = _import_pyyaml()

    _LOADER: Any = _pyyaml.CSafeLoader
    _EVENTS: Any = (_pyyaml.ScalarEvent, _pyyaml.MappingStartEvent, _pyyaml.SequenceStartEvent,
                    (_pyyaml.MappingEndEvent, _pyyaml.SequenceEndEvent), _pyyaml.AliasEvent,
                    _pyyaml.DocumentStartEvent,
                    (_pyyaml.StreamStartEvent, _pyyaml.StreamEndEvent, _pyyaml.DocumentEndEvent))
except (ImportError, AttributeError):  # pragma: no cover - PyYAML is a dependency, libyaml in its wheels
    _LOADER = None

# Characters libyaml and ruamel treat differently (tabs, carriage returns, BOMs, line separators,
# controls): files with any of them take the ruamel path. Written as the characters themselves, not as
# the complement of those allowed (which reaches U+10FFFF: compiling it took a tenth of validate's time).
_UNUSUAL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]")
# The same set, as it was first written: tests compare the two over every code point.
USUAL = "\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff"
_STRING = "tag:yaml.org,2002:str"
PLAIN = (None, "")  # a plain scalar's style (libyaml's binding says "", PyYAML's Python parser None)

# The first characters of a plain scalar that ruamel's YAML 1.2 resolver looks further at (its implicit
# resolvers are keyed by first character); a scalar starting with any other character is text.
RESOLVED_FIRST = frozenset("tTfF-+0123456789.<~nN=!&*")
WORDS: dict[str, bool | None] = {"true": True, "True": True, "TRUE": True, "false": False, "False": False,
                                  "FALSE": False, "null": None, "Null": None, "NULL": None, "~": None}
_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
# digits then letters, none of e, b, o or x (1e3 is a float, 0b1, 0o7 and 0x1f are integers): 2G, 60s, 250ms
_WORD_AFTER_DIGITS = re.compile(r"[0-9]+[ac-df-np-wyzAC-DF-NP-WYZ]+")
UNKNOWN = object()  # quick_scalar leaves it to ruamel


def quick_scalar(text: str) -> Any:
    """What ruamel makes of the plain scalar ``text`` (not empty), for the forms scenarios are made of;
    :data:`UNKNOWN` for the others."""
    if text[0] not in RESOLVED_FIRST:
        return text
    if text in WORDS:
        return WORDS[text]
    if text[0] in "tTfFnN":  # only the words above resolve to something else
        return text
    if _DECIMAL.fullmatch(text):
        return int(text)
    if _WORD_AFTER_DIGITS.fullmatch(text):
        return text
    return UNKNOWN


class Unsupported(Exception):
    """The file needs ruamel: a feature this path does not take, or something to report."""


class _Frame:
    """A mapping or sequence being filled, with its path and, for a mapping, the key awaiting its value."""

    __slots__ = ("container", "key", "path", "raw_keys")

    def __init__(self, container: Any, path: tuple[Any, ...]):
        self.container = container
        self.path = path
        self.key: str | None = None
        self.raw_keys: set[Any] = set()  # as ruamel compares keys: 1, 1.0 and true are one key


class _Builder:
    """Plain data and positions from libyaml's event stream, built with an explicit stack: a file
    nested 50,000 levels deep must not overflow anything (libyaml's own composer recurses in C)."""

    def __init__(self, budget: int, max_nesting: int):
        self.left = budget
        self.max_nesting = max_nesting
        self.ruamel: Any = None  # its resolver and constructor, made when a scalar needs them
        self.plain: dict[str, Any] = {}  # plain scalar text -> value (values repeat: kinds, URLs, sizes)
        self.values: dict[tuple[Any, ...], tuple[int, int]] = {}
        self.keys: dict[tuple[Any, ...], tuple[int, int]] = {}

    def scalar(self, event: Any) -> Any:
        if event.style not in PLAIN:
            return event.value  # quoted or block scalars are text
        if not event.value:
            raise Unsupported("empty value")  # ruamel places it elsewhere (at the next token)
        if event.value not in self.plain:
            value = quick_scalar(event.value)
            self.plain[event.value] = self._resolve(event.value) if value is UNKNOWN else value
        return self.plain[event.value]

    def _resolve(self, text: str) -> Any:
        from ruamel.yaml import YAML, nodes
        from ruamel.yaml.error import YAMLError

        if self.ruamel is None:
            self.ruamel = YAML(typ="safe", pure=True)  # its resolver and constructor, wired to each other (1.2)
        tag = self.ruamel.resolver.resolve(nodes.ScalarNode, text, (True, False))
        if tag == _STRING:
            return text
        try:
            value = self.ruamel.constructor.construct_object(nodes.ScalarNode(tag, text), deep=True)
        except YAMLError as exc:  # a plain `<<` as a value resolves to the merge tag and has no constructor
            raise Unsupported(str(exc)) from exc
        if isinstance(value, float) and not math.isfinite(value):
            raise Unsupported("not a finite number")  # ruamel's path reports it at its position
        if not isinstance(value, bool | int | float) and value is not None:
            raise Unsupported(f"scalar of type {type(value).__name__}")  # dates and the like: as ruamel does
        return value

    def build(self, events: Any) -> Any:
        scalar_event, mapping_start, sequence_start, collection_end, alias, document_start, quiet = _EVENTS
        stack: list[_Frame] = []
        root: Any = None
        documents = 0
        for event in events:
            if isinstance(event, quiet):
                continue
            if isinstance(event, document_start):
                documents += 1
                if documents > 1:
                    raise Unsupported("several documents")
                if event.version or event.tags:
                    raise Unsupported("directive")  # %YAML 1.1 changes ruamel's scalar rules (yes, 010)
                continue
            if isinstance(event, collection_end):
                stack.pop()
                continue
            if isinstance(event, alias):
                raise Unsupported("alias")  # ruamel places an alias's values at the anchor's text
            if getattr(event, "tag", None) is not None:
                raise Unsupported("explicit tag")
            parent = stack[-1] if stack else None
            if parent is not None and isinstance(parent.container, dict) and parent.key is None:
                parent.key = self._key(parent, event)  # a key: its value comes next
                continue
            self.left -= 1
            if self.left < 0 or len(stack) >= self.max_nesting + 1:
                raise Unsupported("over a limit")  # ruamel's path reports it with its position
            if isinstance(event, scalar_event):
                value: Any = self.scalar(event)
            elif isinstance(event, mapping_start):
                value = {}
            elif isinstance(event, sequence_start):
                value = []
            else:  # pragma: no cover - libyaml has no other events
                raise Unsupported(type(event).__name__)
            mark = (event.start_mark.line + 1, event.start_mark.column + 1)
            if parent is None:
                path: tuple[Any, ...] = ()
                root = value
            elif isinstance(parent.container, dict):
                path = (*parent.path, parent.key)
                parent.container[parent.key] = value
                self.values[path] = mark
                parent.key = None
            else:
                path = (*parent.path, len(parent.container))
                parent.container.append(value)
                self.values[path] = mark
            if isinstance(value, dict | list) and not isinstance(event, scalar_event):
                stack.append(_Frame(value, path))
        return root

    def _key(self, frame: _Frame, event: Any) -> str:
        if not isinstance(event, _EVENTS[0]):
            raise Unsupported("complex key")
        if event.value == "<<" and event.style in PLAIN:
            raise Unsupported("merge key")
        raw = self.scalar(event)
        key = str(raw)
        if key in frame.container or raw in frame.raw_keys:
            raise Unsupported("duplicate key")
        frame.raw_keys.add(raw)
        self.keys[(*frame.path, key)] = (event.start_mark.line + 1, event.start_mark.column + 1)
        return key


def fast_load(text: str, budget: int, max_nesting: int) -> tuple[Any, dict, dict] | None:
    """(plain data, value positions, key positions), or None: load this file with ruamel instead."""
    if _LOADER is None or _UNUSUAL.search(text):
        return None
    builder = _Builder(budget, max_nesting)
    try:
        data = builder.build(_pyyaml.parse(text, Loader=_LOADER))
    except (Unsupported, _pyyaml.YAMLError, ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None
    return data, builder.values, builder.keys
