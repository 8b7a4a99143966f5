"""Load a scenario file: YAML with positions -> JSON-Schema check -> semantic checks -> typed model.

Every problem is reported as a :class:`~gftpwb.core.errors.Diagnostic` at the line and column of the
offending key or value; all problems of a file are reported together, not only the first. What is
particular to a kind (its checks, its model) is asked of the kind (:mod:`gftpwb.core.registry`);
this module checks what every scenario has: test ids, hosts, ``on:``, commands and tag log names.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from gftpwb.core.commands import COMMAND_ROLES
from gftpwb.core.errors import Diagnostic, ScenarioError
from gftpwb.core.limits import RUNS_VARIABLE, limits, too_many_runs
from gftpwb.core.registry import TestInput, registry
from gftpwb.core.scenario.model import LOCAL, Host, Scenario, TestModel
from gftpwb.core.scenario.yamlpos import Path, Positions, label, load_yaml_with_positions
from gftpwb.core.trace.setting import NO_TRACE, TraceSetting
from gftpwb.core.units import parse_duration

from .expand import expand_scenario
from .harness import expect_diagnostics, harness_diagnostics, test_schedules
from .monitors import build_monitors, monitor_diagnostics
from .quickcheck import verdict
from .schema import kind_key_names, merged_key_names, scenario_schema
from .slurm import build_slurm, expand_slurm_on, slots_of, slurm_diagnostics
from .source import decode_source, read_source
from .valuechecks import value_diagnostics


def load_scenario(path: str, *, overrides: Mapping[str, str] | None = None,
                  environ: Mapping[str, str] | None = None) -> Scenario:
    """Read and validate the scenario at ``path``; raise ScenarioError with every problem found.

    ``overrides`` (``--set``) and ``environ`` (the ``GFTPWB_VAR_*`` entries of the environment) give
    its variables values (:mod:`gftpwb.core.dsl.variables`).
    """
    return load_scenario_text(decode_source(read_source(path), path), path, overrides=overrides, environ=environ)


def load_scenario_text(text: str, filename: str = "<scenario>", *, overrides: Mapping[str, str] | None = None,
                       environ: Mapping[str, str] | None = None) -> Scenario:
    data, pos, _tree = load_yaml_with_positions(text, filename)
    if not isinstance(data, dict):
        raise ScenarioError([Diagnostic(filename, 1, 1, "a scenario must be a YAML mapping (version, name, tests)")])
    expanded = expand_scenario(data, pos, text, filename, overrides=overrides, environ=environ)
    if expanded.errors:
        raise ScenarioError(expanded.errors)
    whole_numbers_as_ints(data)
    if not verdict(data, scenario_schema()):  # invalid, or the quick check cannot tell: jsonschema says why
        from .diagnostics import schema_diagnostics  # jsonschema is loaded only here

        errors = schema_diagnostics(data, pos, filename)
    else:
        errors = []
    if errors:  # the kinds' checks need a valid test; those of single values run anyway, in the same pass
        raise ScenarioError([*errors, *value_diagnostics(data, pos, filename)])
    errors = slurm_diagnostics(data, pos, filename)
    if errors:
        raise ScenarioError(errors)
    expand_slurm_on(data)
    inputs, errors, warnings = semantic_diagnostics(data, pos, filename)
    errors.extend(harness_diagnostics(data, pos, filename))
    errors.extend(expect_diagnostics(inputs, data, pos, filename))
    if errors:
        raise ScenarioError(errors)
    return build_model(data, inputs, filename, expanded.text, warnings, expanded.variables)


def whole_numbers_as_ints(data: Any) -> None:
    """Every whole-number float of the scenario (``repeat: 2.0``, ``parallel: [4.0]``) as the int it
    is, in place. JSON Schema's integers include 2.0, so the schema lets it through, and a model that
    kept it was a traceback (``range(2.0)``) or a wrong guc argument (``-p 4.0``); a key that takes any
    number reads 2 as it read 2.0."""
    stack = [data]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            if isinstance(value, float) and value.is_integer():
                node[key] = int(value)
            elif isinstance(value, dict | list):
                stack.append(value)


# --- checks the schema cannot express -------------------------------------------------------------


def merged_test(defaults: dict[str, Any], test: dict[str, Any]) -> dict[str, Any]:
    """A test's keys over the defaults its kind has; mapping keys marked ``merge`` (guc ``options``,
    the simulated ``link``) merge key by key, everything else is replaced. (An auto-tune takes source
    and target from the defaults, but not their ``options`` or ``repeat``, which it has its own keys for.)"""
    kind = test.get("kind", "")
    allowed = kind_key_names().get(kind, frozenset(defaults))
    merged = {**{k: v for k, v in defaults.items() if k in allowed}, **test}
    for key in merged_key_names().get(kind, frozenset()):
        if key in defaults or key in test:
            merged[key] = {**defaults.get(key, {}), **test.get(key, {})}
    return merged


def semantic_diagnostics(data: dict[str, Any], pos: Positions,
                         filename: str) -> tuple[list[TestInput], list[Diagnostic], list[Diagnostic]]:
    """Check every test (what all tests have here, the rest by its kind and the engines); returns the
    tests ready to build, and the errors and warnings found."""
    errors: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    defaults = data.get("defaults", {})
    errors.extend(host_diagnostics(data, pos, filename))
    slots = slots_of(data)  # a Slurm allocation's nodes: hosts that are not reached over SSH
    known_hosts = list(dict.fromkeys([LOCAL, *data.get("hosts", {}), *slots]))
    inventory = {**data.get("hosts", {}), **{slot: {"slurm_node": True} for slot in slots}}
    if "on" in defaults:
        errors.extend(_on_diagnostics(defaults["on"], ("defaults", "on"), known_hosts, pos, filename))
    first_seen: dict[str, int] = {}
    inputs = []
    cap = limits()
    total_runs = 0
    loops = data.get("loops", 1) if isinstance(data.get("loops", 1), int) else 1
    # one inventory and one tuple of the tests, shared by every test's input: a tuple per test made
    # validation's memory and time grow with the square of the tests (20,000 tests: 3.2 GB)
    every_test = tuple(data["tests"])
    for index, raw in enumerate(data["tests"]):
        tid = raw["id"]
        line, col = pos.of_value(("tests", index, "id"))
        if tid in first_seen:
            errors.append(Diagnostic(filename, line, col,
                                     f"duplicate test id '{tid}' (first used at line {first_seen[tid]})"))
        else:
            first_seen[tid] = line
        if "on" in raw:
            errors.extend(_on_diagnostics(raw["on"], ("tests", index, "on"), known_hosts, pos, filename))
        test = TestInput(raw=raw, merged=merged_test(defaults, raw), index=index, pos=pos, filename=filename,
                         inventory=inventory, tests=every_test)
        runs = planned_runs(test.merged) * loops
        total_runs += runs
        if runs > cap.runs:  # before the kind's checks, which may walk the matrix themselves
            test.error(too_many_runs(f"test '{tid}'", runs, cap.runs),
                       "repeat" if "repeat" in raw else ("matrix" if "matrix" in raw else None))
        else:
            for engine in registry().engines():
                engine.dsl.check(test)
            registry().kind(raw["kind"]).dsl.check(test)
        errors.extend(test.errors)
        warnings.extend(test.warnings)
        errors.extend(command_diagnostics(raw, ("tests", index), pos, filename))
        inputs.append(test)
    errors.extend(command_diagnostics(defaults, ("defaults",), pos, filename))
    errors.extend(log_filename_diagnostics(data, pos, filename))
    for index, monitor in enumerate(data.get("monitors", [])):
        if "on" in monitor:
            errors.extend(_on_diagnostics(monitor["on"], ("monitors", index, "on"), known_hosts, pos, filename))
    errors.extend(monitor_diagnostics(data, pos, filename))
    if total_runs > cap.runs and not errors:
        line, col = pos.of_key(("tests",))
        errors.append(Diagnostic(filename, line, col, f"the scenario plans {total_runs:,} runs, more than the limit "
                                                      f"of {cap.runs:,}; run fewer, or raise the limit: "
                                                      f"{RUNS_VARIABLE}={total_runs}"))
    # a default's problem is found by every test that takes it; said once, at the default
    return inputs, list(dict.fromkeys(errors)), list(dict.fromkeys(warnings))


def planned_runs(test: dict[str, Any]) -> int:
    """An upper bound of the runs a test plans in one pass of the suite, from the keys every kind
    spells the same way: its ``repeat``, its ``concurrency`` (copies), the product of its ``matrix``
    lists and its hosts (``on``)."""
    runs = 1
    for key in ("repeat", "concurrency"):
        value = test.get(key, 1)
        runs *= value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1
    matrix = test.get("matrix")
    for values in (matrix.values() if isinstance(matrix, dict) else ()):
        if isinstance(values, list):
            runs *= max(1, len(values))
    on = test.get("on", LOCAL)
    return runs * (len(on) if isinstance(on, list) and on else 1)


def command_diagnostics(block: dict[str, Any], where: Path, pos: Positions, filename: str) -> list[Diagnostic]:
    """``run`` as one string is shell code and needs ``shell``; a ``shell`` needs ``run`` as one string;
    ``on_failure`` belongs to ``pre`` (a post or comment command never fails the run)."""
    out = []
    for key in COMMAND_ROLES:
        value = block.get(key)
        if not isinstance(value, dict):
            continue
        line, col = pos.of_value((*where, key, "run"))
        name = label((*where, key))
        if "on_failure" in value and key != "pre":
            fline, fcol = pos.of_key((*where, key, "on_failure"))
            out.append(Diagnostic(filename, fline, fcol, f"{name}: on_failure is for pre only (a {key} command "
                                                         "never fails the run)"))
        if value.get("shell", False) and not isinstance(value["run"], str):
            out.append(Diagnostic(filename, line, col, f"{name}: with shell, run must be one string of shell code, "
                                                       "not a list"))
        elif not value.get("shell", False) and isinstance(value["run"], str):
            out.append(Diagnostic(filename, line, col, f"{name}: run is one string, which only a shell can read; "
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


def host_diagnostics(data: dict[str, Any], pos: Positions, filename: str) -> list[Diagnostic]:
    """The inventory: ``local`` is reserved, and a jump host must be another host, without loops."""
    hosts: dict[str, Any] = data.get("hosts", {})
    out: list[Diagnostic] = []
    main = filename
    for name, entry in hosts.items():
        filename = pos.file_of(("hosts", name), main)  # an included hosts file, for its hosts
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
    import difflib  # only for a misspelt name

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


# --- the typed model ------------------------------------------------------------------------------


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


def build_model(data: dict[str, Any], inputs: list[TestInput], filename: str, text: str,
                warnings: list[Diagnostic], variables: dict[str, Any] | None = None) -> Scenario:
    tests: list[TestModel] = [registry().kind(test.raw["kind"]).dsl.build(test) for test in inputs]
    return Scenario(
        version=data["version"],
        name=data["name"],
        description=data.get("description", ""),
        defaults=data.get("defaults", {}),
        tests=tuple(tests),
        hosts=build_hosts(data, filename),
        vars=dict(variables or {}),
        seed=data.get("seed"),
        loops=data.get("loops", 1),
        concurrent_tests=data.get("concurrent_tests", 1),
        trace=TraceSetting.of(data["trace"]) if "trace" in data else NO_TRACE,
        monitors=build_monitors(data),
        slurm=build_slurm(data, resolve_path(data["slurm"].get("conf", ""), filename) if "slurm" in data else ""),
        schedules=test_schedules(inputs),
        path=filename,
        text=text,
        warnings=tuple(warnings),
    )
