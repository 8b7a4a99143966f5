"""A scenario file before validation: its variables expanded and its included hosts read in.

What comes out is the scenario as it will run, which is also what a results directory stores
(``scenario.yaml``): every ``${name}`` replaced, the ``vars:`` block holding the values used, and the
hosts of ``hosts: {include: FILE}`` written out. A scenario that uses neither keeps its text byte for
byte. Problems are Diagnostics at the file, line and column of the offending value (in the included
file for its hosts); a ``--set`` of a variable the scenario does not declare is a UsageError.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.errors import Diagnostic, ScenarioError, UsageError
from gftpwb.core.scenario.yamlpos import Path, Positions, load_yaml_with_positions

from .source import TooLarge, decode_source, read_bounded
from .variables import VAR_NAME_PATTERN, Values, VariableProblem, did_you_mean, expand_data, resolve

VARS = "vars"
HOSTS = "hosts"
INCLUDE = "include"
PATH_KEYS = ("identity", "known_hosts")  # host keys naming files, relative to the file they are written in


@dataclass
class Expanded:
    """The scenario data after expansion, its text as stored, and what was found wrong."""

    data: dict[str, Any]
    text: str
    variables: dict[str, Any] = field(default_factory=dict)
    included: list[str] = field(default_factory=list)
    errors: list[Diagnostic] = field(default_factory=list)


def expand_scenario(data: dict[str, Any], pos: Positions, text: str, filename: str, *,
                    overrides: Mapping[str, str] | None = None,
                    environ: Mapping[str, str] | None = None) -> Expanded:
    """Expand ``data`` (parsed from ``text``, positions ``pos``) in place; ``text`` becomes the stored
    scenario when anything was expanded or included."""
    offered = getattr(overrides, "offered", frozenset())  # --lab-var: used where declared, else ignored
    overrides = dict(overrides or {})
    out = Expanded(data, text)
    values = _variables(data, pos, filename, overrides, offered, environ or {}, out)
    hosts = data.get(HOSTS)
    if values is None and not (isinstance(hosts, dict) and INCLUDE in hosts):
        return out  # nothing to expand: the text stays byte for byte
    from ruamel.yaml.comments import CommentedMap  # only now: ruamel is a tenth of validate's start-up

    tree = _storage_tree(text)
    _include_hosts(data, pos, tree, filename, values, out)
    if values is not None:
        _expand_tree(tree, data, (), pos, filename, values, out)
        vars_tree = tree.get(VARS) if isinstance(tree, CommentedMap) else None
        if isinstance(vars_tree, CommentedMap):
            for name in vars_tree:
                if name in values.values:
                    vars_tree[name] = _quoted(expand_data(values.values[name], values.lookup).stored)
    if not out.errors:
        out.text = stored_text(tree, data)
    return out


def _storage_tree(text: str) -> Any:
    """The file's round-trip tree, quotes kept as written (so what is dumped reads back the same)."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    return yaml.load(text)


def _quoted(value: Any) -> Any:
    """Values written into the stored scenario: text double-quoted, so no value (``?x``, ``- a``,
    ``#c``) can read as YAML syntax in any context."""
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString

    if isinstance(value, str):
        return DoubleQuotedScalarString(value)
    if isinstance(value, list):
        return [_quoted(v) for v in value]
    if isinstance(value, dict):
        return {k: _quoted(v) for k, v in value.items()}
    return value


def stored_text(tree: Any, data: dict[str, Any]) -> str:
    """The expanded scenario as YAML, comments kept; checked to read back as ``data`` (the model's
    input), else written as JSON (valid YAML) so the stored file never means something else."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.width = 4096  # keep long values (URLs, commands) on one line, as they were written
    yaml.indent(mapping=2, sequence=4, offset=2)
    buffer = io.StringIO()
    yaml.dump(tree, buffer)
    text = buffer.getvalue()
    try:
        again, _pos, _tree = load_yaml_with_positions(text, "<stored>")
    except ScenarioError:
        again = None
    if again is not None and _without_vars(again) == _without_vars(_unescaped(data)):
        return text
    return "# gftpwb: the expanded scenario (as JSON, which is YAML)\n" + json.dumps(data, indent=2,
                                                                                     ensure_ascii=False) + "\n"


def _without_vars(data: Any) -> Any:
    return {k: v for k, v in data.items() if k != VARS} if isinstance(data, dict) else data


def _unescaped(data: Any) -> Any:
    """``data`` as the stored text spells it: a literal ``${`` written ``$${`` (the stored text keeps
    its ``vars:``, so it is expanded again when read)."""
    if isinstance(data, str):
        return data.replace("${", "$${")
    if isinstance(data, list):
        return [_unescaped(v) for v in data]
    if isinstance(data, dict):
        return {k: v if k == VARS else _unescaped(v) for k, v in data.items()}
    return data


# --- vars --------------------------------------------------------------------------------------------------


def _variables(data: dict[str, Any], pos: Positions, filename: str, overrides: dict[str, str],
               offered: frozenset[str], environ: Mapping[str, str], out: Expanded) -> Values | None:
    """The variables' values, or None when the scenario declares no ``vars:`` (nothing is expanded).
    ``offered``: names of ``overrides`` a scenario that does not declare them ignores (``--lab-var``)."""
    if VARS not in data:
        required = sorted(set(overrides) - offered)
        if required:
            raise UsageError(f"--set {', '.join(required)}: {filename} declares no vars: (there is "
                             "nothing to set)")
        return None
    declared = data[VARS]
    if declared is None:
        declared = {}
    if not isinstance(declared, dict):
        line, col = pos.of_value((VARS,))
        out.errors.append(Diagnostic(filename, line, col, "vars: must be a mapping of variable names to their "
                                                          "defaults (null: no default)"))
        return None
    for name in declared:
        if not re.match(VAR_NAME_PATTERN, name):
            line, col = pos.of_key((VARS, name))
            out.errors.append(Diagnostic(filename, line, col, f"bad variable name {name!r} (letters, digits and "
                                                              "'_', not starting with a digit)"))
    unknown = sorted(set(overrides) - set(declared) - offered)
    overrides = {name: value for name, value in overrides.items() if name in declared}
    if unknown:
        raise UsageError(f"--set {unknown[0]}: {filename} declares no variable {unknown[0]!r}"
                         + did_you_mean(unknown[0], list(declared)))
    values, problems = resolve(declared, environ, overrides)
    for name, problem in sorted(problems.items()):
        line, col = pos.of_value((VARS, name))
        out.errors.append(Diagnostic(filename, line, col, f"vars.{name}: {problem}"))
    out.variables = dict(values.values)
    return values


def _expand_tree(node: Any, data: Any, path: Path, pos: Positions, filename: str, values: Values,
                 out: Expanded) -> None:
    """Expand every string below ``node`` (the round-trip tree) and ``data`` (the same values, plain)."""
    if isinstance(data, dict):
        for key in list(data):
            if path == () and key == VARS:
                continue
            child = (*path, key)
            value = data[key]
            if isinstance(value, str):
                stored = _expand_scalar(value, child, pos, filename, values, out, data, key)
                if stored is not None and isinstance(node, dict) and key in node:
                    node[key] = _quoted(stored)
            else:
                _expand_tree(node.get(key) if isinstance(node, dict) else None, value, child, pos, filename,
                             values, out)
    elif isinstance(data, list):
        for index, value in enumerate(data):
            child = (*path, index)
            if isinstance(value, str):
                stored = _expand_scalar(value, child, pos, filename, values, out, data, index)
                if stored is not None and isinstance(node, list) and index < len(node):
                    node[index] = _quoted(stored)
            else:
                _expand_tree(node[index] if isinstance(node, list) and index < len(node) else None, value, child,
                             pos, filename, values, out)


def _expand_scalar(text: str, path: Path, pos: Positions, filename: str, values: Values, out: Expanded,
                   parent: Any, key: Any) -> Any:
    """Expand one string of the data in place; returns its stored form (None: unchanged or failed)."""
    if "${" not in text:
        return None
    try:
        expansion = expand_data(text, values.lookup)
    except VariableProblem as exc:
        line, col = pos.of_value(path)
        out.errors.append(Diagnostic(pos.file_of(path, filename), line, col, str(exc)))
        return None
    parent[key] = expansion.value
    return expansion.stored


# --- include -----------------------------------------------------------------------------------------------


def _include_hosts(data: dict[str, Any], pos: Positions, tree: Any, filename: str, values: Values | None,
                   out: Expanded) -> None:
    """Replace ``hosts: {include: FILE or [FILE, ...]}`` by the hosts of those files (before the
    scenario's own hosts, which may not repeat a name)."""
    hosts = data.get(HOSTS)
    if not isinstance(hosts, dict) or INCLUDE not in hosts:
        return
    from ruamel.yaml.comments import CommentedMap

    spec = hosts[INCLUDE]
    where = (HOSTS, INCLUDE)
    if values is not None:
        try:
            spec = expand_data(spec, values.lookup).value
        except VariableProblem as exc:
            line, col = pos.of_value(where)
            out.errors.append(Diagnostic(filename, line, col, str(exc)))
            return
    paths = [spec] if isinstance(spec, str) else spec
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p for p in paths):
        line, col = pos.of_value(where)
        out.errors.append(Diagnostic(filename, line, col, "hosts.include: give a file name, or a list of them, "
                                                          "of YAML files with a hosts: mapping"))
        return
    merged: dict[str, Any] = {}
    merged_tree = CommentedMap()
    origin: dict[str, str] = {}
    for index, name in enumerate(paths):
        at = where if isinstance(spec, str) else (*where, index)
        included = _read_include(name, filename, pos, at, out)
        if included is None:
            continue
        path, inc_data, inc_pos, inc_tree, root = included
        for host, entry in inc_data.items():
            if host in merged:
                line, col = inc_pos.of_key((*root, host))
                out.errors.append(Diagnostic(path, line, col, f"host {host!r} is also defined in {origin[host]}"))
                continue
            merged[host], origin[host] = _absolute_paths(entry, path), path
            merged_tree[host] = _absolute_tree_paths(inc_tree[host], path)
            pos.graft((HOSTS, host), inc_pos, (*root, host), path)
            pos.files[(HOSTS, host)] = path
        out.included.append(path)
    for host, entry in hosts.items():
        if host == INCLUDE:
            continue
        if host in merged:
            line, col = pos.of_key((HOSTS, host))
            out.errors.append(Diagnostic(filename, line, col, f"host {host!r} is also defined in {origin[host]}"))
            continue
        merged[host] = entry
        if isinstance(tree, dict) and isinstance(tree.get(HOSTS), dict):
            merged_tree[host] = tree[HOSTS][host]
    data[HOSTS] = merged
    if isinstance(tree, CommentedMap):
        tree[HOSTS] = merged_tree


def _read_include(name: str, filename: str, pos: Positions, at: Path, out: Expanded,
                  ) -> tuple[str, dict[str, Any], Positions, Any, Path] | None:
    """Read one included file: (its path, its hosts, their positions, its tree, the path of its hosts)."""
    from ruamel.yaml.comments import CommentedMap

    path = os.path.expanduser(name)
    if not os.path.isabs(path) and not filename.startswith("<"):
        path = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(filename)), path))
    line, col = pos.of_value(at)
    try:
        text = decode_source(read_bounded(path), path)  # bounded, as the scenario itself
    except (OSError, TooLarge) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        out.errors.append(Diagnostic(filename, line, col, f"hosts.include: cannot read {path}: {reason}"))
        return None
    except ScenarioError as exc:  # not UTF-8: at its line and column in the included file
        out.errors.extend(exc.diagnostics)
        return None
    try:
        data, inc_pos, tree = load_yaml_with_positions(text, path, tree=True)
    except ScenarioError as exc:
        out.errors.extend(exc.diagnostics)
        return None
    root: Path = (HOSTS,) if isinstance(data, dict) and set(data) == {HOSTS} else ()
    hosts = data.get(HOSTS) if root else data
    if hosts is None:
        hosts, tree = {}, {HOSTS: CommentedMap()} if root else CommentedMap()
    if not isinstance(hosts, dict):
        out.errors.append(Diagnostic(path, 1, 1, "an included hosts file must be a mapping: hosts: {name: {address: "
                                                 "...}} (as the lab's hosts.yaml), or the name: {...} entries alone"))
        return None
    if INCLUDE in hosts:
        iline, icol = inc_pos.of_key((*root, INCLUDE))
        out.errors.append(Diagnostic(path, iline, icol, "includes do not nest: an included hosts file cannot "
                                                        "include another"))
        return None
    host_tree = tree[HOSTS] if root else tree
    return path, hosts, inc_pos, host_tree, root


def _absolute_paths(entry: Any, path: str) -> Any:
    if not isinstance(entry, dict):
        return entry
    return {k: _absolute(v, path) if k in PATH_KEYS else v for k, v in entry.items()}


def _absolute_tree_paths(entry: Any, path: str) -> Any:
    from ruamel.yaml.comments import CommentedMap

    if isinstance(entry, CommentedMap):
        for key in PATH_KEYS:
            if key in entry:
                entry[key] = _absolute(entry[key], path)
    return entry


def _absolute(value: Any, path: str) -> Any:
    """A file name from an included file, relative to that file's directory (``~`` kept)."""
    if not isinstance(value, str) or not value or os.path.isabs(value) or value.startswith("~"):
        return value
    return os.path.normpath(os.path.join(os.path.dirname(path), value))

