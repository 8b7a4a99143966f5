"""Schema errors as people read them: each jsonschema error becomes a Diagnostic at the line and
column of the offending key or value, worded in the DSL's terms (sizes, durations, host names)
rather than JSON Schema's. One small function per kind of schema rule, chosen from a table."""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from jsonschema import Draft7Validator, validators
from jsonschema.exceptions import ValidationError, best_match

from gftpwb.core.errors import Diagnostic
from gftpwb.core.expect import EXAMPLES as EXPECT_EXAMPLES
from gftpwb.core.expect import PATTERNS as EXPECT_PATTERNS
from gftpwb.core.scenario.keys import NAME_PATTERN
from gftpwb.core.scenario.yamlpos import Path, Positions, label
from gftpwb.core.units import DURATION_PATTERN, FRACTION_PATTERN, RATE_PATTERN, SIZE_PATTERN

from .quickcheck import ecma
from .schema import expected_forms, scenario_schema


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    if validator.is_type(instance, "string") and ecma(pattern).search(instance) is None:
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


ScenarioValidator = validators.extend(Draft7Validator, {"pattern": _pattern})


def schema_diagnostics(data: Any, pos: Positions, filename: str) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for error in schema_errors(data):
        out.extend(describe(error, pos, filename))
    return sorted(set(out))


def schema_errors(data: Any) -> list[ValidationError]:
    """The scenario's schema errors. Each test with a known kind is checked against its kind's
    definition directly: the same errors as through the ``allOf`` of ``if kind == ...`` the schema
    dispatches with, without evaluating (and failing) every other kind's ``if`` for every test, which
    was most of the time of validating a large scenario."""
    tests = data.get("tests") if isinstance(data, dict) else None
    if not isinstance(tests, list) or not tests:
        return list(_validator("").iter_errors(data))
    errors = list(_validator("scenario").iter_errors(data))
    for index, test in enumerate(tests):
        for error in _validator(_kind_of(test)).iter_errors(test):
            error.path.extendleft((index, "tests"))  # extendleft reverses: the path is tests/<index>/...
            errors.append(error)
    return errors


def _kind_of(test: Any) -> str:
    """The kind whose definition a test can be checked against alone, or "test" (the generic one)."""
    if (isinstance(test, dict) and "id" in test and isinstance(test.get("kind"), str)
            and f"{test['kind']}_test" in scenario_schema().get("definitions", {})):
        return f"{test['kind']}_test"
    return "test"


_VALIDATORS: dict[str, tuple[dict[str, Any], Any]] = {}  # part -> (the schema it was made from, validator)


def _validator(part: str) -> Any:
    """"": the whole schema; "scenario": the schema without its tests' items (checked one by one);
    a definition's name: that definition (with the schema's definitions to resolve references)."""
    schema = scenario_schema()
    cached = _VALIDATORS.get(part)
    if cached is None or cached[0] is not schema:  # a new registry (tests load plug-ins) has a new schema
        if part == "":
            sub = schema
        elif part == "scenario":
            sub = {**schema, "properties": {**schema["properties"],
                                            "tests": {k: v for k, v in schema["properties"]["tests"].items()
                                                      if k != "items"}}}
        else:
            sub = {"$ref": f"#/definitions/{part}", "definitions": schema.get("definitions", {})}
        cached = _VALIDATORS[part] = (schema, ScenarioValidator(sub))
    return cached[1]


def show(value: Any) -> str:
    """A value as an error message names it: ``text 'x'``, ``number 3``, ``a list``."""
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"number {value}"
    if isinstance(value, str):
        return f"text {value!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "null" if value is None else repr(value)


TYPE_WORDS = {
    "integer": "a whole number", "number": "a number", "string": "text", "boolean": "true or false",
    "array": "a list", "object": "a mapping", "null": "null",
}
PATTERN_WORDS = {
    SIZE_PATTERN: "bad size {!r} (use a whole number with an optional K, M, G or B suffix, e.g. 4M; at most "
                  "18 digits, 15 with K, 12 with M, 9 with G)",
    DURATION_PATTERN: "bad duration {!r} (use seconds or e.g. 30s, 5m, 1m30s, 250ms; at most 10 digits before "
                      "a point)",
    RATE_PATTERN: "bad rate {!r} (use MiB/s, or e.g. 20MB/s, 1GB/s, 10Gbit/s; at most 10 digits before a point)",
    FRACTION_PATTERN: "bad fraction {!r} (use e.g. 0.03 or 3%)",
    NAME_PATTERN: "bad name {!r} (letters, digits, '.', '_' and '-', starting with a letter or digit)",
}
PATTERN_WORDS.update({pattern: "bad threshold {!r}: write <op> <value>, op one of <, <=, >, >=, ==, e.g. "
                      + example for unit, pattern in EXPECT_PATTERNS.items()
                      for example in [EXPECT_EXAMPLES[unit]]})
JSON_TYPES: dict[str, tuple[type, ...]] = {"object": (dict,), "array": (list,), "string": (str,)}


class Where:
    """The error being described and the position it points at."""

    def __init__(self, error: ValidationError, pos: Positions, filename: str):
        self.error = error
        self.pos = pos
        self.path: Path = tuple(error.absolute_path)
        self.filename = pos.file_of(self.path, filename)  # an included hosts file, for its hosts
        self.label = label(self.path)
        self.line, self.col = pos.of_value(self.path)

    def at(self, message: str, line: int | None = None, col: int | None = None) -> list[Diagnostic]:
        return [Diagnostic(self.filename, self.line if line is None else line, self.col if col is None else col,
                           message)]

    def said(self, message: str) -> list[Diagnostic]:
        """``<label>: <message>`` at the value."""
        return self.at(f"{self.label}: {message}")


def _property_name(w: Where) -> list[Diagnostic] | None:
    # A bad mapping key (a host name, an environment variable name): point at the key itself.
    if "propertyNames" not in w.error.relative_schema_path or not isinstance(w.error.instance, str):
        return None
    kline, kcol = w.pos.of_key((*w.path, w.error.instance))
    rule = ("letters, digits, '.', '_' and '-', starting with a letter or digit" if w.path == ("hosts",)
            else "letters, digits and '_', not starting with a digit")
    return w.at(f"{w.label}: bad name {w.error.instance!r} ({rule})", kline, kcol)


def _additional_properties(w: Where) -> list[Diagnostic]:
    if not isinstance(w.error.instance, dict):
        return w.said(w.error.message)
    allowed = sorted(w.error.schema.get("properties", {}))
    out = []
    for key in w.error.instance:
        if key in allowed:
            continue
        kline, kcol = w.pos.of_key((*w.path, key))
        close = difflib.get_close_matches(key, allowed, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f"; allowed: {', '.join(allowed)}"
        out.extend(w.at(f"unknown key '{key}' in {w.label}{hint}", kline, kcol))
    return out


def _required(w: Where) -> list[Diagnostic]:
    message = str(w.error.message)
    missing = message.split("'")[1] if "'" in message else message
    return w.said(f"missing required key '{missing}'")


def _type(w: Where) -> list[Diagnostic]:
    value = w.error.validator_value
    expected = value if isinstance(value, list) else [value]
    words = " or ".join(TYPE_WORDS.get(t, t) for t in expected)
    if "integer" in expected and "string" in expected:
        words = "a size such as 4M or a whole number of bytes"
    elif "number" in expected and "string" in expected:
        words = "a duration such as 30s or a number of seconds"
    return w.said(f"expected {words}, got {show(w.error.instance)}")


def _pattern(w: Where) -> list[Diagnostic]:
    words = PATTERN_WORDS.get(w.error.validator_value)
    return w.said(words.format(w.error.instance) if words else w.error.message)


def _const(w: Where) -> list[Diagnostic]:
    if w.path == ("version",):
        return w.at(f"unsupported scenario version {w.error.instance!r}; this gftpwb reads version 1")
    return w.said(f"expected {w.error.validator_value!r}, got {show(w.error.instance)}")


def _branch_of_same_type(w: Where) -> list[ValidationError] | None:
    """For an anyOf whose branches differ by JSON type: the errors of the branch the value's type
    selects, or [] when no branch has that type; None when the branches are not told apart by type."""
    branches = w.error.validator_value
    typed = [JSON_TYPES.get(b.get("type", "")) if isinstance(b, dict) else None for b in branches]
    if not any(typed):
        return None
    for index, types in enumerate(typed):
        if types and isinstance(w.error.instance, types):
            return [e for e in w.error.context or () if e.relative_schema_path and e.relative_schema_path[0] == index]
    return []


def _any_of(w: Where) -> list[Diagnostic]:
    forms = expected_forms().get(str(w.path[-1])) if w.path else None
    if forms:  # a key with several forms (a name, a mapping, a list): explain the one the value has
        inner = _branch_of_same_type(w)
        if inner:
            return [d for e in inner for d in describe(e, w.pos, w.filename)]
        return w.said(f"expected {forms}, got {show(w.error.instance)}")
    return _one_of(w)


def _one_of(w: Where) -> list[Diagnostic]:
    if w.path and w.path[-1] == "on" and w.error.validator == "oneOf":
        return w.said(f"expected a host name or a list of different host names, got {show(w.error.instance)}")
    if w.error.context:
        return describe(best_match(w.error.context), w.pos, w.filename)
    return w.said(w.error.message)


def _enum(w: Where) -> list[Diagnostic]:
    """The choices, and the one a typo most likely meant (``kind: gcu``), as for an unknown key."""
    choices = [str(v) for v in w.error.validator_value]
    close = difflib.get_close_matches(w.error.instance, choices, n=1) if isinstance(w.error.instance, str) else []
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return w.said(f"{w.error.instance!r} is not one of: {', '.join(choices)}{hint}")


def _bound(w: Where) -> list[Diagnostic]:
    word = "at least" if w.error.validator == "minimum" else "at most"
    return w.said(f"must be {word} {w.error.validator_value}, got {_number(w.error.instance)}")


def _number(value: Any) -> str:
    """A number as a message quotes it; one of a few hundred digits by its length, not in full."""
    text = str(value)
    return f"a number of {len(text.lstrip('-'))} digits" if isinstance(value, int) and len(text) > 40 else text


def _not_empty(w: Where) -> list[Diagnostic]:
    return w.said("must not be empty")


def _max_properties(w: Where) -> list[Diagnostic]:
    return w.said(f"give only one of: {', '.join(sorted(w.error.schema.get('properties', {})))}")


RULES: dict[str, Callable[[Where], list[Diagnostic]]] = {
    "additionalProperties": _additional_properties, "required": _required, "type": _type,
    "pattern": _pattern, "const": _const, "anyOf": _any_of, "oneOf": _one_of, "enum": _enum,
    "minimum": _bound, "maximum": _bound, "minItems": _not_empty, "minProperties": _not_empty,
    "minLength": _not_empty, "maxProperties": _max_properties,
}


def describe(error: ValidationError, pos: Positions, filename: str) -> list[Diagnostic]:
    """The diagnostics one schema error becomes."""
    w = Where(error, pos, filename)
    named = _property_name(w)
    if named is not None:
        return named
    rule = RULES.get(str(error.validator))
    return rule(w) if rule is not None else w.said(error.message)
