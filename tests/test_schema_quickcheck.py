"""The quick schema check (gftpwb/core/dsl/quickcheck.py) gives jsonschema's verdict.

``gftpwb validate`` skips jsonschema when the quick check says a scenario is valid, so a wrong
"valid" would let a bad scenario through. Every scenario of the repository, and a few thousand
mutations of them (values of other types, keys removed or added, bad sizes), must get the same
verdict from both; and the repository's scenarios must take the quick path (no "cannot tell").
"""

from __future__ import annotations

import copy
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gftpwb.core.dsl.diagnostics import schema_errors
from gftpwb.core.dsl.expand import expand_scenario
from gftpwb.core.dsl.quickcheck import equal, verdict
from gftpwb.core.dsl.schema import scenario_schema
from gftpwb.core.scenario.yamlpos import load_yaml_with_positions

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted([*ROOT.glob("scenarios/*.yaml"), *ROOT.glob("tests/golden/**/*.yaml")])
REPLACEMENTS: list[Any] = [None, True, False, 0, 1, -1, 1.5, 2.0, 10**9, "", "x", "4M", "1G", "30s", "bad size",
                           "x\n", "-", [], {}, ["a"], [1, 1], {"a": 1}, {"bogus": True}, "localhost", "guc"]


def _data(path: Path) -> Any:
    """The scenario as the loader checks it: variables and host includes expanded."""
    text = path.read_text()
    data, pos, _tree = load_yaml_with_positions(text, str(path))
    assert not expand_scenario(data, pos, text, str(path), environ={}).errors
    return data


def _jsonschema_valid(data: Any) -> bool:
    return not schema_errors(data)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(_paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out.extend(_paths(item, (*prefix, index)))
    return out


def _mutate(data: Any, rng: random.Random) -> Any:
    data = copy.deepcopy(data)
    path = rng.choice(_paths(data)[1:])
    parent = data
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    action = rng.random()
    if action < 0.15 and isinstance(parent, dict):
        del parent[last]
    elif action < 0.25 and isinstance(parent, dict):
        parent[rng.choice(["bogus", "kind", "id", "timeout", "repeat", "params", "on", "hosts"])] = \
            rng.choice(REPLACEMENTS)
    elif action < 0.3 and isinstance(parent, list):
        parent.append(copy.deepcopy(parent[last]))
    else:
        parent[last] = copy.deepcopy(rng.choice(REPLACEMENTS))
    return data


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_scenario_takes_the_quick_path_with_jsonschemas_verdict(path: Path) -> None:
    data = _data(path)
    assert verdict(data, scenario_schema()) is _jsonschema_valid(data) is True


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: str(p.relative_to(ROOT)))
def test_mutated_scenarios_get_jsonschemas_verdict(path: Path) -> None:
    rng = random.Random(f"quickcheck {path.name}")
    original = _data(path)
    verdicts = {True: 0, False: 0}
    for _ in range(150):
        data = _mutate(original, rng)
        quick = verdict(data, scenario_schema())
        if quick is None:
            continue  # the loader asks jsonschema; nothing to compare
        assert quick is _jsonschema_valid(data), (path.name, data)
        verdicts[quick] += 1
    assert verdicts[False] > 20  # the mutations do produce invalid scenarios...
    assert verdicts[True] + verdicts[False] > 100  # ...and the quick check answers most of them


def test_equality_is_jsonschemas() -> None:
    assert not equal(True, 1) and not equal(0, False) and equal(1, 1.0) and equal([1, {"a": True}], [1.0, {"a": True}])
    assert not equal([True], [1]) and not equal("1", 1) and not equal({"a": 1}, {"a": 1, "b": 2})


def test_unknown_keywords_and_references_leave_the_verdict_to_jsonschema() -> None:
    assert verdict(1, {"format": "email"}) is None
    assert verdict(1, {"$ref": "#/definitions/missing", "definitions": {}}) is None
    assert verdict(1, {"$ref": "#/definitions/n", "definitions": {"n": {"type": "string"}}}) is False
    assert verdict(True, {"type": "integer"}) is False and verdict(2.0, {"type": "integer"}) is True


def test_validating_a_valid_scenario_does_not_load_jsonschema_or_the_results_writers() -> None:
    code = ("import sys; from gftpwb.cli.main import main; "
            "code = main(['validate', 'scenarios/quickstart.yaml']); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jsonschema', 'referencing') or m in "
            "('gftpwb.shell.results_dir', 'gftpwb.shell.sinks.journal', 'gftpwb.shell.sinks.taglogs')), "
            "file=sys.stderr); sys.exit(code)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "[]"
    bad = subprocess.run([sys.executable, "-m", "gftpwb", "validate", "/dev/stdin"], cwd=ROOT, input=
                         "version: 1\nname: x\ntests:\n  - id: a\n    kind: guc\n    bogus: 1\n",
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "bogus" in bad.stderr, bad.stderr  # invalid: jsonschema's message
