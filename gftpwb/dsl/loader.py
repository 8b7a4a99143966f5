"""Load a scenario file: YAML with positions -> JSON-Schema check -> semantic checks -> typed model.

Every problem is reported as a :class:`~gftpwb.errors.Diagnostic` at the line and column of the
offending key or value; all problems of a file are reported together, not only the first.
"""

from __future__ import annotations

import difflib
import os
from typing import Any

from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError

from ..commands import from_dsl as command_from_dsl
from ..errors import Diagnostic, ScenarioError
from ..units import DURATION_PATTERN, SIZE_PATTERN, parse_duration
from .model import LOCAL, GucOptions, Host, Scenario, Test
from .schema import COMMAND_KEYS, NAME_PATTERN, packaged_schema
from .yamlpos import Path, Positions, load_yaml_with_positions


def load_scenario(path: str) -> Scenario:
    """Read and validate the scenario at ``path``; raise ScenarioError with every problem found."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise ScenarioError([Diagnostic(path, 0, 0, f"cannot read scenario: {exc.strerror or exc}")]) from None
    except UnicodeDecodeError as exc:
        raise ScenarioError([Diagnostic(path, 0, 0, f"not UTF-8 text: {exc.reason}")]) from None
    return load_scenario_text(text, path)


def load_scenario_text(text: str, filename: str = "<scenario>") -> Scenario:
    data, pos, _tree = load_yaml_with_positions(text, filename)
    if not isinstance(data, dict):
        raise ScenarioError([Diagnostic(filename, 1, 1, "a scenario must be a YAML mapping (version, name, tests)")])
    errors = schema_diagnostics(data, pos, filename)
    if errors:
        raise ScenarioError(errors)
    errors, warnings = semantic_diagnostics(data, pos, filename)
    if errors:
        raise ScenarioError(errors)
    return build_model(data, filename, text, warnings)


# --- schema errors, positioned and worded for people -------------------------------------------


def schema_diagnostics(data: Any, pos: Positions, filename: str) -> list[Diagnostic]:
    validator = Draft7Validator(packaged_schema())
    out: list[Diagnostic] = []
    for error in validator.iter_errors(data):
        out.extend(_describe(error, pos, filename))
    return sorted(set(out))


def _label(path: Path) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else part)
    return text or "scenario"


def _show(value: Any) -> str:
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


_TYPE_WORDS = {
    "integer": "a whole number", "number": "a number", "string": "text", "boolean": "true or false",
    "array": "a list", "object": "a mapping", "null": "null",
}


def _describe(error: ValidationError, pos: Positions, filename: str) -> list[Diagnostic]:
    path: Path = tuple(error.absolute_path)
    label = _label(path)
    line, col = pos.of_value(path)
    kind = error.validator
    value = error.validator_value
    if "propertyNames" in error.relative_schema_path and isinstance(error.instance, str):
        # A bad mapping key (a host name, an environment variable name): point at the key itself.
        kline, kcol = pos.of_key((*path, error.instance))
        rule = ("letters, digits, '.', '_' and '-', starting with a letter or digit" if path == ("hosts",)
                else "letters, digits and '_', not starting with a digit")
        return [Diagnostic(filename, kline, kcol, f"{label}: bad name {error.instance!r} ({rule})")]
    if kind == "oneOf" and path and path[-1] == "on":
        return [Diagnostic(filename, line, col, f"{label}: expected a host name or a list of different host "
                                                f"names, got {_show(error.instance)}")]

    if kind == "additionalProperties" and isinstance(error.instance, dict):
        allowed = sorted(error.schema.get("properties", {}))
        out = []
        for key in error.instance:
            if key in allowed:
                continue
            kline, kcol = pos.of_key((*path, key))
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f"; allowed: {', '.join(allowed)}"
            out.append(Diagnostic(filename, kline, kcol, f"unknown key '{key}' in {label}{hint}"))
        return out
    if kind == "required":
        missing = str(error.message).split("'")[1] if "'" in str(error.message) else str(error.message)
        return [Diagnostic(filename, line, col, f"{label}: missing required key '{missing}'")]
    if kind == "type":
        expected = value if isinstance(value, list) else [value]
        words = " or ".join(_TYPE_WORDS.get(t, t) for t in expected)
        if "integer" in expected and "string" in expected:
            words = "a size such as 4M or a whole number of bytes"
        elif "number" in expected and "string" in expected:
            words = "a duration such as 30s or a number of seconds"
        return [Diagnostic(filename, line, col, f"{label}: expected {words}, got {_show(error.instance)}")]
    if kind == "pattern":
        if value == SIZE_PATTERN:
            msg = f"bad size {error.instance!r} (use a whole number with an optional K, M, G or B suffix, e.g. 4M)"
        elif value == DURATION_PATTERN:
            msg = f"bad duration {error.instance!r} (use seconds or e.g. 30s, 5m, 1m30s, 250ms)"
        elif value == NAME_PATTERN:
            msg = f"bad name {error.instance!r} (letters, digits, '.', '_' and '-', starting with a letter or digit)"
        else:
            msg = error.message
        return [Diagnostic(filename, line, col, f"{label}: {msg}")]
    if kind == "const" and path == ("version",):
        return [Diagnostic(filename, line, col, f"unsupported scenario version {error.instance!r}; "
                                                "this gftpwb reads version 1")]
    if kind == "enum":
        choices = ", ".join(str(v) for v in value)
        return [Diagnostic(filename, line, col, f"{label}: {error.instance!r} is not one of: {choices}")]
    if kind in ("minimum", "maximum"):
        word = "at least" if kind == "minimum" else "at most"
        return [Diagnostic(filename, line, col, f"{label}: must be {word} {value}, got {error.instance}")]
    if kind in ("minItems", "minProperties", "minLength"):
        return [Diagnostic(filename, line, col, f"{label}: must not be empty")]
    return [Diagnostic(filename, line, col, f"{label}: {error.message}")]


# --- checks the schema cannot express -------------------------------------------------------------


def merged_test(defaults: dict[str, Any], test: dict[str, Any]) -> dict[str, Any]:
    """A test's keys over the defaults; ``options`` merge key by key, everything else is replaced."""
    merged = {**defaults, **test}
    merged["options"] = {**defaults.get("options", {}), **test.get("options", {})}
    return merged


def semantic_diagnostics(data: dict[str, Any], pos: Positions,
                         filename: str) -> tuple[list[Diagnostic], list[Diagnostic]]:
    errors: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    defaults = data.get("defaults", {})
    errors.extend(host_diagnostics(data, pos, filename))
    known_hosts = list(dict.fromkeys([LOCAL, *data.get("hosts", {})]))
    if "on" in defaults:
        errors.extend(_on_diagnostics(defaults["on"], ("defaults", "on"), known_hosts, pos, filename))
    first_seen: dict[str, int] = {}
    for index, test in enumerate(data["tests"]):
        tid = test["id"]
        line, col = pos.of_value(("tests", index, "id"))
        if tid in first_seen:
            errors.append(Diagnostic(filename, line, col,
                                     f"duplicate test id '{tid}' (first used at line {first_seen[tid]})"))
        else:
            first_seen[tid] = line
        merged = merged_test(defaults, test)
        tline, tcol = pos.of_value(("tests", index))
        if "on" in test:
            errors.extend(_on_diagnostics(test["on"], ("tests", index, "on"), known_hosts, pos, filename))
        for key in ("source", "target"):
            if not merged.get(key):
                errors.append(Diagnostic(filename, tline, tcol,
                                         f"test '{tid}' has no {key} (set it on the test or in defaults)"))
        errors.extend(command_diagnostics(test, ("tests", index), pos, filename))
        timeout = parse_duration(merged["timeout"]) if "timeout" in merged else 0
        has_length = "length" in merged["options"] or "length" in test.get("matrix", {})
        if test["kind"] == "guc" and "/dev/zero" in str(merged.get("source", "")) and not has_length and not timeout:
            warnings.append(Diagnostic(filename, tline, tcol,
                                       f"test '{tid}' reads /dev/zero with no length and no timeout: guc never "
                                       "stops; set options.length or timeout", severity="warning"))
    errors.extend(command_diagnostics(defaults, ("defaults",), pos, filename))
    errors.extend(log_filename_diagnostics(data, pos, filename))
    return errors, warnings


def command_diagnostics(block: dict[str, Any], where: Path, pos: Positions, filename: str) -> list[Diagnostic]:
    """``run`` as one string is shell code and needs ``shell``; a ``shell`` needs ``run`` as one string."""
    out = []
    for key in (k.name for k in COMMAND_KEYS):
        value = block.get(key)
        if not isinstance(value, dict):
            continue
        line, col = pos.of_value((*where, key, "run"))
        label = _label((*where, key))
        if value.get("shell", False) and not isinstance(value["run"], str):
            out.append(Diagnostic(filename, line, col, f"{label}: with shell, run must be one string of shell code, "
                                                       "not a list"))
        elif not value.get("shell", False) and isinstance(value["run"], str):
            out.append(Diagnostic(filename, line, col, f"{label}: run is one string, which only a shell can read; "
                                                       "write it as a list of arguments, or add shell: true to "
                                                       "run it as shell code"))
    return out


def log_filename_diagnostics(data: dict[str, Any], pos: Positions, filename: str) -> list[Diagnostic]:
    """Two tests may not write their tag logs under the same name."""
    out = []
    seen: dict[str, int] = {}
    for index, test in enumerate(data["tests"]):
        name = test.get("log_filename")
        if not name:
            continue
        line, col = pos.of_value(("tests", index, "log_filename"))
        stem = name[:-4] if name.endswith(".log") else name
        if stem in seen:
            out.append(Diagnostic(filename, line, col, f"log_filename {name!r} is also used by the test at line "
                                                       f"{seen[stem]}; each test needs its own"))
        else:
            seen[stem] = line
    return out


CONNECTION_TEST_TIMEOUT_S = 30.0  # tgftp forces 30 s on a connection test; ours is only the default


def _command(value: Any):
    if value is None:
        return None
    timeout = parse_duration(value["timeout"]) if isinstance(value, dict) and "timeout" in value else 0.0
    return command_from_dsl(value, timeout or None)
def host_diagnostics(data: dict[str, Any], pos: Positions, filename: str) -> list[Diagnostic]:
    """The inventory: ``local`` is reserved, and a jump host must be another host, without loops."""
    hosts: dict[str, Any] = data.get("hosts", {})
    out: list[Diagnostic] = []
    for name, entry in hosts.items():
        if name == LOCAL:
            line, col = pos.of_key(("hosts", name))
            out.append(Diagnostic(filename, line, col, "host name 'local' is reserved for this machine (no SSH); "
                                                       "give the host another name"))
        jump = entry.get("jump")
        if jump is None:
            continue
        line, col = pos.of_value(("hosts", name, "jump"))
        if jump == name:
            out.append(Diagnostic(filename, line, col, f"host '{name}' cannot be its own jump host"))
        elif jump not in hosts or jump == LOCAL:
            out.append(Diagnostic(filename, line, col, f"jump host '{jump}' of '{name}' is not in hosts"
                                  + _did_you_mean(jump, [h for h in hosts if h != LOCAL])))
        else:
            seen = [name]
            while jump is not None and jump in hosts and jump not in seen:
                seen.append(jump)
                jump = hosts[jump].get("jump")
            if jump in seen and jump == name:
                out.append(Diagnostic(filename, line, col, f"jump hosts loop: {' -> '.join([*seen, name])}"))
    return out


def _did_you_mean(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    if close:
        return f"; did you mean '{close[0]}'?"
    return f"; known: {', '.join(choices)}" if choices else ""


def _on_diagnostics(value: Any, path: Path, known: list[str], pos: Positions, filename: str) -> list[Diagnostic]:
    names = [value] if isinstance(value, str) else list(value)
    out = []
    for index, name in enumerate(names):
        if name in known:
            continue
        line, col = pos.of_value(path if isinstance(value, str) else (*path, index))
        out.append(Diagnostic(filename, line, col, f"unknown host '{name}' (not in hosts, and not 'local')"
                              + _did_you_mean(name, known)))
    return out


def resolve_path(path: str, filename: str) -> str:
    """A path from the scenario, relative to the scenario's directory; ``~`` is kept for the transport."""
    if not path or os.path.isabs(path) or path.startswith("~") or filename.startswith("<"):
        return path
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(filename)), path))


def build_hosts(data: dict[str, Any], filename: str) -> tuple[Host, ...]:
    hosts = []
    for name, entry in data.get("hosts", {}).items():
        hosts.append(Host(
            name=name,
            address=entry["address"],
            port=entry.get("port", 22),
            user=entry.get("user", ""),
            identity=resolve_path(entry.get("identity", ""), filename),
            known_hosts=resolve_path(entry.get("known_hosts", ""), filename),
            jump=entry.get("jump", ""),
            workdir=entry.get("workdir", ""),
            env=tuple((str(k), str(v)) for k, v in entry.get("env", {}).items()),
            connect_timeout_s=parse_duration(entry["connect_timeout"]) if "connect_timeout" in entry else 10.0,
        ))
    return tuple(hosts)


def build_model(data: dict[str, Any], filename: str, text: str, warnings: list[Diagnostic]) -> Scenario:
    defaults = data.get("defaults", {})
    tests = []
    for index, raw in enumerate(data["tests"]):
        merged = merged_test(defaults, raw)
        default_timeout = CONNECTION_TEST_TIMEOUT_S if raw["kind"] == "connection-test" else 0.0
        timeout = parse_duration(merged["timeout"]) if "timeout" in merged else default_timeout
        tests.append(Test(
            id=raw["id"],
            kind=raw["kind"],
            description=raw.get("description", ""),
            source=merged["source"],
            target=merged["target"],
            options=GucOptions.from_mapping(merged["options"]),
            extra_args=tuple(merged.get("extra_args", ())),
            repeat=merged.get("repeat", 1),
            timeout_s=timeout or None,
            comment=merged.get("comment", ""),
            matrix=tuple((key, tuple(values)) for key, values in raw.get("matrix", {}).items()),
            pre=_command(merged.get("pre")),
            post=_command(merged.get("post")),
            comment_command=_command(merged.get("comment_command")),
            log_filename=raw.get("log_filename", ""),
            on=_on_tuple(raw.get("on", defaults.get("on", LOCAL))),
            index=index,
        ))
    return Scenario(
        version=data["version"],
        name=data["name"],
        description=data.get("description", ""),
        defaults=defaults,
        tests=tuple(tests),
        hosts=build_hosts(data, filename),
        path=filename,
        text=text,
        warnings=tuple(warnings),
    )


def _on_tuple(value: str | list[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)
