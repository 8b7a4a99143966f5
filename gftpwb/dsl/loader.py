"""Load a scenario file: YAML with positions -> JSON-Schema check -> semantic checks -> typed model.

Every problem is reported as a :class:`~gftpwb.errors.Diagnostic` at the line and column of the
offending key or value; all problems of a file are reported together, not only the first.
"""

from __future__ import annotations

import difflib
import os
from typing import Any

from jsonschema import Draft7Validator
from jsonschema.exceptions import ValidationError, best_match

from ..commands import from_dsl as command_from_dsl
from ..errors import Diagnostic, ScenarioError
from ..simlink import LinkModel
from ..units import (
    DURATION_PATTERN,
    FRACTION_PATTERN,
    RATE_PATTERN,
    SIZE_PATTERN,
    parse_duration,
    parse_fraction,
    parse_rate,
    parse_size,
)
from .gfapi_loader import build_gfapi_test, check_gfapi_test
from .model import LOCAL, AnyTest, AutotuneTest, GfapiTest, GucOptions, Host, Scenario, Test
from .schema import COMMAND_KEYS, DEFAULT_ONLY_KEYS, KINDS, NAME_PATTERN, packaged_schema
from .yamlpos import Path, Positions, load_yaml_with_positions

# The defaults a test of each kind takes: its own keys, and where it runs (on).
KIND_KEYS = {kind.name: frozenset(k.name for k in (*kind.keys, *DEFAULT_ONLY_KEYS)) for kind in KINDS}
MERGED_MAPPINGS = ("options", "link")  # keys whose mappings merge with the defaults' key by key


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
        elif value == RATE_PATTERN:
            msg = f"bad rate {error.instance!r} (use MiB/s, or e.g. 20MB/s, 1GB/s, 10Gbit/s)"
        elif value == FRACTION_PATTERN:
            msg = f"bad fraction {error.instance!r} (use e.g. 0.03 or 3%)"
        elif value == NAME_PATTERN:
            msg = f"bad name {error.instance!r} (letters, digits, '.', '_' and '-', starting with a letter or digit)"
        else:
            msg = error.message
        return [Diagnostic(filename, line, col, f"{label}: {msg}")]
    if kind == "const" and path == ("version",):
        return [Diagnostic(filename, line, col, f"unsupported scenario version {error.instance!r}; "
                                                "this gftpwb reads version 1")]
    if kind == "anyOf" and path and path[-1] == "candidates":
        # The branches are: the preset name, a grid (mapping), a list; explain the one of its shape.
        branch = 1 if isinstance(error.instance, dict) else 2 if isinstance(error.instance, list) else None
        inner = [e for e in error.context or () if e.relative_schema_path and e.relative_schema_path[0] == branch]
        if inner:
            return [d for e in inner for d in _describe(e, pos, filename)]
        return [Diagnostic(filename, line, col, f"{label}: expected tgftp-37, a mapping of option lists (a grid) "
                                                f"or a list of option sets, got {_show(error.instance)}")]
    if kind in ("anyOf", "oneOf") and error.context:
        best = best_match(error.context)
        return _describe(best, pos, filename)
    if kind == "const":
        return [Diagnostic(filename, line, col, f"{label}: expected {value!r}, got {_show(error.instance)}")]
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
    """A test's keys over the defaults its kind has; ``options`` and ``link`` merge key by key,
    everything else is replaced. (An auto-tune takes source and target from the defaults, but not
    their ``options`` or ``repeat``, which it has its own keys for.)"""
    allowed = KIND_KEYS.get(test.get("kind", ""), frozenset(defaults))
    merged = {**{k: v for k, v in defaults.items() if k in allowed}, **test}
    for key in MERGED_MAPPINGS:
        if key in allowed and (key in defaults or key in test):
            merged[key] = {**defaults.get(key, {}), **test.get(key, {})}
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
        if test["kind"] == "gfapi":  # its own keys and checks: dsl/gfapi_loader.py
            kind_errors, kind_warnings = check_gfapi_test(defaults, test, index, pos, filename)
            errors.extend(kind_errors)
            warnings.extend(kind_warnings)
            continue
        for key in ("source", "target"):
            if not merged.get(key):
                errors.append(Diagnostic(filename, tline, tcol,
                                         f"test '{tid}' has no {key} (set it on the test or in defaults)"))
        if "link" in merged and merged.get("engine", "real") != "simulated":
            kline, kcol = pos.of_key(("tests", index, "link")) if "link" in test else pos.of_key(("defaults", "link"))
            warnings.append(Diagnostic(filename, kline, kcol, f"test '{tid}' has a link but runs on the real "
                                       "engine; the link is used only with engine: simulated", severity="warning"))
        errors.extend(command_diagnostics(test, ("tests", index), pos, filename))
        check = SEMANTIC_CHECKS.get(test["kind"])
        if check is not None:
            check(test, merged, ("tests", index), pos, filename, errors, warnings)
    errors.extend(command_diagnostics(defaults, ("defaults",), pos, filename))
    errors.extend(log_filename_diagnostics(data, pos, filename))
    return errors, warnings


def command_diagnostics(block: dict[str, Any], where: Path, pos: Positions, filename: str) -> list[Diagnostic]:
    """``run`` as one string is shell code and needs ``shell``; a ``shell`` needs ``run`` as one string;
    ``on_failure`` belongs to ``pre`` (a post or comment command never fails the run)."""
    out = []
    for key in (k.name for k in COMMAND_KEYS):
        value = block.get(key)
        if not isinstance(value, dict):
            continue
        line, col = pos.of_value((*where, key, "run"))
        label = _label((*where, key))
        if "on_failure" in value and key != "pre":
            fline, fcol = pos.of_key((*where, key, "on_failure"))
            out.append(Diagnostic(filename, fline, fcol, f"{label}: on_failure is for pre only (a {key} command "
                                                         "never fails the run)"))
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


def _check_guc(test: dict[str, Any], merged: dict[str, Any], at: Path, pos: Positions, filename: str,
               errors: list[Diagnostic], warnings: list[Diagnostic]) -> None:
    tline, tcol = pos.of_value(at)
    if "args" in test:
        clash = [key for key in ("options", "extra_args", "matrix") if merged.get(key)]
        if clash:
            line, col = pos.of_key((*at, "args"))
            where = " (from defaults)" if not any(key in test for key in clash) else ""
            errors.append(Diagnostic(filename, line, col, f"test '{test['id']}': args gives guc's parameters "
                                                          f"exactly, so it cannot be combined with "
                                                          f"{' or '.join(clash)}{where}"))
    timeout = parse_duration(merged["timeout"]) if "timeout" in merged else 0
    has_length = "length" in merged.get("options", {}) or "length" in test.get("matrix", {}) or any(
        arg in ("-len", "-partial-length") for arg in test.get("args", ()))
    if "/dev/zero" in str(merged.get("source", "")) and not has_length and not timeout:
        warnings.append(Diagnostic(filename, tline, tcol,
                                   f"test '{test['id']}' reads /dev/zero with no length and no timeout: guc never "
                                   "stops; set options.length or timeout", severity="warning"))


def _check_autotune(test: dict[str, Any], merged: dict[str, Any], at: Path, pos: Positions, filename: str,
                    errors: list[Diagnostic], warnings: list[Diagnostic]) -> None:
    def error(key: str, message: str) -> None:
        line, col = pos.of_key((*at, key)) if key in test else pos.of_value(at)
        errors.append(Diagnostic(filename, line, col, message))

    on = merged.get("on", LOCAL)
    if isinstance(on, list) and len(on) > 1:
        error("on", "an auto-tune runs its transfers from one host; give on one host (or write one auto-tune "
                    "test per host)")
    strategy = test.get("strategy", "exhaustive")
    if strategy == "exhaustive" and "budget" in test:
        error("budget", "budget applies to strategy: adaptive; the exhaustive strategy runs every candidate "
                        "`repetitions` times")
    if strategy == "adaptive" and "repetitions" in test:
        error("repetitions", "repetitions applies to strategy: exhaustive; the adaptive strategy decides how "
                             "often to run each candidate, up to `budget` transfers")
    if "margin" in test and parse_rate(test["margin"]) <= 0:
        error("margin", "margin must be more than 0 (tgftp 0.7.0's code uses 10MB/s, its documentation 20MB/s)")
    if "length" in test and parse_size(test["length"]) == 0:
        error("length", "length must be more than 0 bytes")
    if "candidates" in test:
        from ..autotune.candidates import params_line, repeated

        options, _ = resolve_candidates(test["candidates"])
        for later, earlier in repeated(options):
            error("candidates", f"candidate {later} repeats candidate {earlier} ({params_line(options[later - 1])})")


SEMANTIC_CHECKS = {"guc": _check_guc, "autotune": _check_autotune}  # connection-test: nothing more


def resolve_candidates(value: Any) -> tuple[tuple[GucOptions, ...], str]:
    """The candidates a DSL value names, and which form it had: tgftp-37, grid or list."""
    from ..autotune import candidates as cand  # the autotune core imports the guc driver, which imports dsl

    if value == cand.TGFTP_37:
        return cand.tgftp_37(), cand.TGFTP_37
    if isinstance(value, dict):
        return cand.grid(value), "grid"
    return cand.explicit(value), "list"


def build_link(data: dict[str, Any] | None) -> LinkModel | None:
    """The link model a ``link:`` mapping describes (defaults for what it leaves out)."""
    if data is None:
        return None
    base = LinkModel()
    converters: dict[str, tuple[str, Any]] = {
        "bandwidth": ("bandwidth_mib_s", parse_rate), "rtt": ("rtt_s", parse_duration),
        "window": ("window", parse_size),
        "buffer_cap": ("buffer_cap", parse_size), "setup": ("setup_s", parse_duration),
        "per_stream": ("per_stream_s", parse_duration), "contention": ("contention", float),
        "noise": ("noise", parse_fraction), "outliers": ("outliers", parse_fraction),
        "failures": ("failures", parse_fraction), "seed": ("seed", int), "time_scale": ("time_scale", float),
    }
    values = {field: convert(data[key]) for key, (field, convert) in converters.items() if key in data}
    return LinkModel(**{**base.__dict__, **values})


def build_model(data: dict[str, Any], filename: str, text: str, warnings: list[Diagnostic]) -> Scenario:
    defaults = data.get("defaults", {})
    tests: list[AnyTest] = []
    for index, raw in enumerate(data["tests"]):
        tests.append(BUILDERS[raw["kind"]](raw, merged_test(defaults, raw), index))
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


def _timeout(merged: dict[str, Any], default: float) -> float | None:
    return (parse_duration(merged["timeout"]) if "timeout" in merged else default) or None


def _build_guc(raw: dict[str, Any], merged: dict[str, Any], index: int) -> Test:
    """guc and connection-test tests (a connection test is a guc run of one byte)."""
    default_timeout = CONNECTION_TEST_TIMEOUT_S if raw["kind"] == "connection-test" else 0.0
    return Test(
        id=raw["id"],
        kind=raw["kind"],
        description=raw.get("description", ""),
        source=merged["source"],
        target=merged["target"],
        options=GucOptions.from_mapping(merged.get("options", {})),
        extra_args=tuple(merged.get("extra_args", ())),
        args=tuple(raw["args"]) if "args" in raw else None,
        add_vb=raw.get("add_vb", "args" not in raw),
        tgftp_style=raw.get("tgftp_style", False),
        repeat=merged.get("repeat", 1),
        timeout_s=_timeout(merged, default_timeout),
        comment=merged.get("comment", ""),
        matrix=tuple((key, tuple(values)) for key, values in raw.get("matrix", {}).items()),
        pre=_command(merged.get("pre")),
        post=_command(merged.get("post")),
        comment_command=_command(merged.get("comment_command")),
        log_filename=raw.get("log_filename", ""),
        on=_on_tuple(merged.get("on", LOCAL)),
        engine=merged.get("engine", "real"),
        link=build_link(merged.get("link")),
        index=index,
    )


def _build_autotune(raw: dict[str, Any], merged: dict[str, Any], index: int) -> AutotuneTest:
    candidates, form = resolve_candidates(merged.get("candidates", "tgftp-37"))
    base = AutotuneTest(id="", kind="autotune")
    return AutotuneTest(
        id=raw["id"],
        kind=raw["kind"],
        description=raw.get("description", ""),
        source=merged["source"],
        target=merged["target"],
        extra_args=tuple(merged.get("extra_args", ())),
        comment=merged.get("comment", ""),
        engine=merged.get("engine", "real"),
        link=build_link(merged.get("link")),
        timeout_s=_timeout(merged, base.timeout_s or 0.0),
        memory_to_memory=merged.get("memory_to_memory", True),
        candidates=candidates,
        candidate_set=form,
        strategy=merged.get("strategy", base.strategy),
        repetitions=merged.get("repetitions", base.repetitions),
        budget=merged.get("budget", base.budget),
        length=parse_size(merged["length"]) if "length" in merged else base.length,
        margin_mib_s=parse_rate(merged["margin"]) if "margin" in merged else base.margin_mib_s,
        on=_on_tuple(merged.get("on", LOCAL)),
        index=index,
    )


def _build_gfapi(raw: dict[str, Any], merged: dict[str, Any], index: int) -> GfapiTest:
    """gfapi tests take only repeat, timeout, comment and on from defaults (dsl/gfapi_loader.py)."""
    return build_gfapi_test(merged, raw, index, on=_on_tuple(merged.get("on", LOCAL)))


BUILDERS = {"guc": _build_guc, "connection-test": _build_guc, "autotune": _build_autotune, "gfapi": _build_gfapi}


def _on_tuple(value: str | list[str]) -> tuple[str, ...]:
    return (value,) if isinstance(value, str) else tuple(value)
