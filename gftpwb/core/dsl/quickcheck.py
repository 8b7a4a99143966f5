"""Is a scenario valid against its schema? Answered without jsonschema, for the common case.

Importing jsonschema (with referencing and attrs) took about a third of ``gftpwb validate``'s time,
yet a valid scenario needs only the verdict, not the errors. :func:`verdict` answers it for the
Draft 7 keywords the scenario schema uses, with jsonschema's semantics (``$ref`` hides its siblings,
``true`` is not ``1``, ``pattern``'s ``$`` ends the text as in :mod:`gftpwb.core.dsl.diagnostics`).
When it says "invalid", or meets a keyword it does not know (None: "cannot tell"), the loader asks
jsonschema for the errors as before, so the messages stay jsonschema's. tests/test_schema_quickcheck.py
holds both to the same verdict on every scenario in the repository and on thousands of mutations.
"""

from __future__ import annotations

import functools
import re
from typing import Any

# Keywords that only annotate: nothing to check.
_ANNOTATIONS = frozenset({"description", "title", "$schema", "$id", "$comment", "default", "examples",
                          "definitions"})


@functools.lru_cache(maxsize=256)
def ecma(pattern: str) -> re.Pattern[str]:
    """``pattern`` with ``$`` meaning the end of the text, as in JSON Schema's ECMA-262 regexes; in
    Python ``$`` also matches before a trailing newline, which let ``name: "x\\n"`` through."""
    return re.compile(re.sub(r"(?<!\\)\$", r"\\Z", pattern))


class _CannotTell(Exception):
    """A keyword, type or reference this checker does not know: jsonschema must decide."""


def verdict(instance: Any, schema: dict[str, Any]) -> bool | None:
    """True when ``instance`` is valid against ``schema`` (with its ``definitions`` for ``$ref``),
    False when it is not, None when this checker cannot tell."""
    try:
        return _Checker(schema).valid(instance, schema)
    except (_CannotTell, RecursionError):
        return None


def _is_type(instance: Any, name: str) -> bool:
    """Draft 7's types as jsonschema's checker has them (a bool is no number; 1.0 is an integer)."""
    if name == "string":
        return isinstance(instance, str)
    if name == "object":
        return isinstance(instance, dict)
    if name == "array":
        return isinstance(instance, list)
    if name == "boolean":
        return isinstance(instance, bool)
    if name == "null":
        return instance is None
    if name == "integer":
        if isinstance(instance, bool):
            return False
        return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())
    if name == "number":
        return isinstance(instance, int | float) and not isinstance(instance, bool)
    raise _CannotTell(name)


_TRUE, _FALSE = object(), object()


def _unbool(value: Any) -> Any:
    return _TRUE if value is True else _FALSE if value is False else value


def equal(one: Any, two: Any) -> bool:
    """jsonschema's equality for ``enum``, ``const`` and ``uniqueItems``: ``true`` is not ``1``."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, list | tuple) and isinstance(two, list | tuple):
        return len(one) == len(two) and all(equal(a, b) for a, b in zip(one, two, strict=True))
    if isinstance(one, dict) and isinstance(two, dict):
        return one.keys() == two.keys() and all(equal(one[key], two[key]) for key in one)
    return bool(_unbool(one) == _unbool(two))


class _Checker:
    def __init__(self, root: dict[str, Any]):
        self.definitions = root.get("definitions", {})

    def valid(self, instance: Any, schema: Any) -> bool:
        if schema is True:
            return True
        if schema is False:
            return False
        if not isinstance(schema, dict):
            raise _CannotTell("schema")
        if "$ref" in schema:  # Draft 7: a $ref's siblings are ignored
            return self.valid(instance, self._resolve(schema["$ref"]))
        for keyword, value in schema.items():
            if keyword in _ANNOTATIONS or keyword in ("then", "else"):  # read by "if"
                continue
            check = _KEYWORDS.get(keyword)
            if check is None:
                raise _CannotTell(keyword)
            if not check(self, value, instance, schema):
                return False
        return True

    def _resolve(self, ref: Any) -> Any:
        prefix = "#/definitions/"
        if not isinstance(ref, str) or not ref.startswith(prefix) or "/" in ref[len(prefix):] \
                or "~" in ref or "%" in ref or ref[len(prefix):] not in self.definitions:
            raise _CannotTell(ref)
        return self.definitions[ref[len(prefix):]]


def _type(c: _Checker, value: Any, instance: Any, schema: Any) -> bool:
    return any(_is_type(instance, name) for name in ([value] if isinstance(value, str) else value))


def _properties(c: _Checker, value: Any, instance: Any, schema: Any) -> bool:
    if not isinstance(instance, dict):
        return True
    return all(c.valid(instance[name], sub) for name, sub in value.items() if name in instance)


def _additional(c: _Checker, value: Any, instance: Any, schema: Any) -> bool:
    if not isinstance(instance, dict):
        return True
    if "patternProperties" in schema:
        raise _CannotTell("patternProperties")
    known = schema.get("properties", {})
    extras = [name for name in instance if name not in known]
    if isinstance(value, dict):
        return all(c.valid(instance[name], value) for name in extras)
    return bool(value) or not extras


def _required(c: _Checker, value: Any, instance: Any, schema: Any) -> bool:
    return not isinstance(instance, dict) or all(name in instance for name in value)


def _items(c: _Checker, value: Any, instance: Any, schema: Any) -> bool:
    if not isinstance(instance, list):
        return True
    if isinstance(value, list):
        raise _CannotTell("items as a list")
    return all(c.valid(item, value) for item in instance)


def _number(instance: Any) -> bool:
    return isinstance(instance, int | float) and not isinstance(instance, bool)


def _unique(c: _Checker, value: Any, instance: Any, schema: Any) -> bool:
    if not value or not isinstance(instance, list):
        return True
    return not any(equal(a, b) for i, a in enumerate(instance) for b in instance[i + 1:])


def _if(c: _Checker, value: Any, instance: Any, schema: Any) -> bool:
    if c.valid(instance, value):
        return "then" not in schema or c.valid(instance, schema["then"])
    return "else" not in schema or c.valid(instance, schema["else"])


_KEYWORDS = {
    "type": _type,
    "properties": _properties,
    "additionalProperties": _additional,
    "required": _required,
    "items": _items,
    "enum": lambda c, value, instance, schema: any(equal(each, instance) for each in value),
    "const": lambda c, value, instance, schema: equal(instance, value),
    "minimum": lambda c, value, instance, schema: not _number(instance) or not instance < value,
    "maximum": lambda c, value, instance, schema: not _number(instance) or not instance > value,
    "minLength": lambda c, value, instance, schema: not isinstance(instance, str) or not len(instance) < value,
    "minItems": lambda c, value, instance, schema: not isinstance(instance, list) or not len(instance) < value,
    "maxItems": lambda c, value, instance, schema: not isinstance(instance, list) or not len(instance) > value,
    "minProperties": lambda c, value, instance, schema: not isinstance(instance, dict) or not len(instance) < value,
    "maxProperties": lambda c, value, instance, schema: not isinstance(instance, dict) or not len(instance) > value,
    "uniqueItems": _unique,
    "pattern": lambda c, value, instance, schema: not isinstance(instance, str) or ecma(value).search(instance)
    is not None,
    "propertyNames": lambda c, value, instance, schema: not isinstance(instance, dict)
    or all(c.valid(name, value) for name in instance),
    "anyOf": lambda c, value, instance, schema: any(c.valid(instance, sub) for sub in value),
    "allOf": lambda c, value, instance, schema: all(c.valid(instance, sub) for sub in value),
    "oneOf": lambda c, value, instance, schema: sum(c.valid(instance, sub) for sub in value) == 1,
    "if": _if,
}
