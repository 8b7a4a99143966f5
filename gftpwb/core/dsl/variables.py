"""``vars:`` and ``${name}``: a scenario's variables, their values, and their expansion.

A scenario that declares ``vars:`` gets ``${name}`` replaced in every string value of the file
(keys are left alone); ``$${`` stands for a literal ``${``. A value that is nothing but one
reference takes the variable's value with its type (``parallel: ${p}`` is the number 4 when p is 4,
and a list variable can fill a matrix); a reference inside longer text is replaced by the value's
text. A scenario without ``vars:`` means nothing by ``${`` (shell code and imported tgftp batchfiles
keep their ``${HOME}``).

Values, weakest first: the default in ``vars:``, the environment variable ``GFTPWB_VAR_<name>``, and
``--set name=value``; the last two are read as YAML scalars (``4`` is a number, ``[1, 4]`` a list). A
variable declared without a default (``name: null``) must be given one of those ways. Variables may
refer to other variables; a circle of them is an error. Pure: the caller passes the environment in.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.harness.needs import cycle_text, find_cycle

ENV_PREFIX = "GFTPWB_VAR_"
VAR_NAME_PATTERN = r"^[A-Za-z_][A-Za-z0-9_]*$"
_VAR_NAME = re.compile(VAR_NAME_PATTERN)
# An escaped "$${", or a reference "${...}" (anything up to the closing brace, checked afterwards).
_TOKEN = re.compile(r"\$\$\{|\$\{([^}]*)\}")
_UNCLOSED = re.compile(r"(?<!\$)\$\{[^}]*$")


class VariableProblem(Exception):
    """A reference that cannot be expanded; the message names the variable and what to do."""


@dataclass(frozen=True)
class Expansion:
    """A string after expansion: ``value`` for the model, ``stored`` for the expanded scenario text
    (the same, with a literal ``${`` written ``$${`` again so the stored file reads back the same)."""

    value: Any
    stored: Any


def references(text: str) -> list[str]:
    """The variable names ``text`` refers to, in order (escaped ``$${`` is not a reference)."""
    return [m.group(1) for m in _TOKEN.finditer(text) if m.group(1) is not None]


def expand(text: str, lookup: Callable[[str], Any]) -> Expansion:
    """Replace the references in ``text`` with ``lookup(name)``; raises VariableProblem.

    ``lookup`` raises VariableProblem for a name without a value.
    """
    if _UNCLOSED.search(text):
        raise VariableProblem(f"unclosed reference in {text!r}: write ${{name}} (or $${{ for a literal ${{)")
    tokens = list(_TOKEN.finditer(text))
    if not tokens:
        return Expansion(text, text)
    whole = tokens[0]
    if len(tokens) == 1 and whole.group(1) is not None and whole.span() == (0, len(text)):
        value = lookup(_checked_name(whole.group(1)))
        return Expansion(value, _store(value))
    value_parts: list[str] = []
    stored_parts: list[str] = []
    end = 0
    for match in tokens:
        literal = text[end:match.start()]
        value_parts.append(literal)
        stored_parts.append(literal)
        end = match.end()
        if match.group(1) is None:  # "$${": a literal "${"
            value_parts.append("${")
            stored_parts.append("$${")
            continue
        name = _checked_name(match.group(1))
        inserted = lookup(name)
        if isinstance(inserted, dict | list):
            raise VariableProblem(f"variable {name!r} is a {'list' if isinstance(inserted, list) else 'mapping'} "
                                  "and cannot be part of a text; use it as the whole value")
        piece = scalar_text(inserted)
        value_parts.append(piece)
        stored_parts.append(piece.replace("${", "$${"))
    value_parts.append(text[end:])
    stored_parts.append(text[end:])
    return Expansion("".join(value_parts), "".join(stored_parts))


def _checked_name(name: str) -> str:
    if not _VAR_NAME.match(name):
        raise VariableProblem(f"bad variable reference ${{{name}}} (names: letters, digits and '_', not starting "
                              "with a digit; write $${ for a literal ${)")
    return name


def _store(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("${", "$${")
    if isinstance(value, list):
        return [_store(v) for v in value]
    if isinstance(value, dict):
        return {k: _store(v) for k, v in value.items()}
    return value


def scalar_text(value: Any) -> str:
    """How a scalar reads inside text: YAML's spelling of booleans and null, numbers as written."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return str(value)


def parse_value(text: str) -> Any:
    """A value given on the command line or in the environment, read as a YAML value (``4`` is a
    number, ``[1, 4]`` a list, ``true`` a boolean); text YAML cannot read stays text."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        value = YAML(typ="safe", pure=True).load(text)
    except YAMLError:
        return text
    if value is None:  # "--set name=" is the empty text; "null" or "~" means no value
        return "" if not text.strip() else None
    if isinstance(value, str | int | float | bool | list | dict):
        return value
    return text  # dates and other tags: keep the text


def environment_values(environ: Mapping[str, str]) -> dict[str, str]:
    """``GFTPWB_VAR_<name>`` entries of ``environ``, by name."""
    return {key[len(ENV_PREFIX):]: value for key, value in environ.items()
            if key.startswith(ENV_PREFIX) and _VAR_NAME.match(key[len(ENV_PREFIX):])}


@dataclass
class Values:
    """The variables' values after defaults, environment and ``--set``, and where each came from."""

    values: dict[str, Any]
    origin: dict[str, str]  # name -> "default" | "environment" | "--set"
    broken: set[str] = field(default_factory=set)  # declared, but their value could not be worked out

    def lookup(self, name: str) -> Any:
        if name in self.broken:
            raise VariableProblem(f"variable {name!r} has no value (see the error at its declaration)")
        if name not in self.values:
            raise VariableProblem(f"undefined variable {name!r}" + did_you_mean(name, list(self.origin)))
        value = self.values[name]
        if value is None:
            raise VariableProblem(f"variable {name!r} has no value: give it one with --set {name}=VALUE or "
                                  f"{ENV_PREFIX}{name}")
        return value


def did_you_mean(word: str, choices: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(word, choices, n=1)
    if close:
        return f"; did you mean {close[0]!r}?"
    return f"; declared: {', '.join(choices)}" if choices else "; the scenario declares no vars"


def resolve(declared: Mapping[str, Any], environ: Mapping[str, str], overrides: Mapping[str, str],
            ) -> tuple[Values, dict[str, str]]:
    """The value of every declared variable, with references between them expanded.

    Returns the values and problems by variable name (a reference to an undefined variable, a
    circle of variables). Names in ``overrides`` must be declared (the caller checks that, since
    a misspelt ``--set`` is a command-line error); environment entries for undeclared names are
    ignored (the environment may hold values for other scenarios).
    """
    raw: dict[str, Any] = dict(declared)
    origin = {name: "default" for name in declared}
    for name, text in environment_values(environ).items():
        if name in raw:
            raw[name], origin[name] = parse_value(text), "environment"
    for name, text in overrides.items():
        raw[name], origin[name] = parse_value(text), "--set"
    problems: dict[str, str] = {}
    graph = {name: [r for r in _refs_of(value) if r in raw] for name, value in raw.items()}
    cycle = find_cycle(graph)
    if cycle is not None:
        for name in set(cycle):
            problems[name] = f"variables refer to each other in a circle: {cycle_text(cycle)}"
        return Values({k: v for k, v in raw.items() if k not in problems}, origin, set(problems)), problems
    import graphlib

    values = Values({}, origin)
    for name in graphlib.TopologicalSorter(graph).static_order():
        if name not in raw:
            continue
        try:
            values.values[name] = expand_data(raw[name], values.lookup).value
        except VariableProblem as exc:
            problems[name] = str(exc)
            values.broken.add(name)
    return values, problems


def _refs_of(value: Any) -> list[str]:
    if isinstance(value, str):
        return references(value)
    if isinstance(value, list):
        return [r for v in value for r in _refs_of(v)]
    if isinstance(value, dict):
        return [r for v in value.values() for r in _refs_of(v)]
    return []


def expand_data(value: Any, lookup: Callable[[str], Any]) -> Expansion:
    """Expand every string in a value (lists and mappings too; keys are left alone)."""
    if isinstance(value, str):
        return expand(value, lookup)
    if isinstance(value, list):
        parts = [expand_data(v, lookup) for v in value]
        return Expansion([p.value for p in parts], [p.stored for p in parts])
    if isinstance(value, dict):
        items = {k: expand_data(v, lookup) for k, v in value.items()}
        return Expansion({k: p.value for k, p in items.items()}, {k: p.stored for k, p in items.items()})
    return Expansion(value, value)


class Assignments(dict[str, str]):
    """Values given to a scenario's variables on the command line: ``--set NAME=VALUE`` (the scenario must
    declare NAME: a typo is an error) and ``--lab-var NAME=VALUE`` (``offered``: a value the lab offers
    every scenario, ``gftpwb lab status --vars``; a scenario that does not declare NAME ignores it, so
    one lab's variables fit every scenario). A later value of a name wins; ``--set`` over ``--lab-var``."""

    def __init__(self, values: dict[str, str] | None = None, offered: frozenset[str] = frozenset()):
        super().__init__(values or {})
        self.offered = frozenset(offered) & frozenset(self)

    def required(self) -> dict[str, str]:
        """The values a scenario must declare (``--set``)."""
        return {name: value for name, value in self.items() if name not in self.offered}

