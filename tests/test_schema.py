"""The committed schema, the key tables and the typed model must agree; scenarios must validate."""

import json
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from gftpwb.core.dsl.loader import load_scenario
from gftpwb.core.dsl.schema import build_schema, render_schema
from gftpwb.core.scenario.keys import HARNESS_TEST_KEYS
from gftpwb.core.scenario.model import Scenario, TestSchedule
from gftpwb.kinds.autotune.model import AutotuneTest
from gftpwb.kinds.gfapi.model import GfapiTest
from gftpwb.kinds.gfapi.settings import GFAPI_SETTINGS, SWEEPABLE
from gftpwb.kinds.guc.model import GucOptions, Test
from gftpwb.kinds.guc.options import GUC_OPTIONS
from gftpwb.kinds.simulated.keys import LINK_KEYS
from gftpwb.kinds.simulated.link import build_link

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_FILE = ROOT / "schemas" / "scenario.schema.json"


def test_committed_schema_is_generated_from_the_tables():
    assert SCHEMA_FILE.read_text() == render_schema(), "schema drifted: run `make schema` and commit"


def test_schema_is_valid_draft07():
    schema = json.loads(SCHEMA_FILE.read_text())
    assert schema["$schema"] == "http://json-schema.org/draft-07/schema#"
    Draft7Validator.check_schema(schema)


def _walk_properties(node, path=""):
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            yield f"{path}/{name}", sub
        for key, value in node.items():
            yield from _walk_properties(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, item in enumerate(node):
            yield from _walk_properties(item, f"{path}/{i}")


def test_every_property_has_a_description_and_objects_are_closed():
    schema = build_schema()
    missing = [p for p, sub in _walk_properties(schema) if not sub.get("description")]
    assert missing == []
    for name, definition in schema["definitions"].items():
        if definition.get("type") == "object" and "properties" in definition and name != "test":
            assert definition.get("additionalProperties") is False, name


def _model_keys(cls) -> set[str]:
    """The DSL keys a kind's test model takes, plus those every test has that TestSchedule models
    (needs, concurrency, delay: the harness's, not the kind's)."""
    own = {f.metadata.get("key", f.name) for f in fields(cls) if not f.metadata.get("derived")}
    return own | ({f.name for f in fields(TestSchedule)} if cls is not Scenario else set())


def test_test_schedule_models_exactly_the_harness_keys():
    assert {f.name for f in fields(TestSchedule)} == set(HARNESS_TEST_KEYS)


def test_model_and_schema_name_the_same_keys():
    defs = build_schema()["definitions"]
    assert _model_keys(Test) == set(defs["guc_test"]["properties"])
    assert _model_keys(AutotuneTest) == set(defs["autotune_test"]["properties"])
    assert _model_keys(Scenario) == set(build_schema()["properties"])
    assert {f.name for f in fields(GucOptions)} == set(defs["guc_options"]["properties"])
    assert {o.name for o in GUC_OPTIONS} == set(defs["guc_matrix"]["properties"])
    gfapi = defs["gfapi_test"]["properties"]
    assert _model_keys(GfapiTest) == set(gfapi)
    assert set(SWEEPABLE) == set(gfapi["matrix"]["properties"])
    defaults = {f.name: f.default for f in fields(GfapiTest)}
    assert {s.name: s.default for s in GFAPI_SETTINGS} == {s.name: defaults[s.name] for s in GFAPI_SETTINGS}


def test_schema_command_prints_the_committed_file():
    out = subprocess.run([sys.executable, "-m", "gftpwb", "schema"], capture_output=True, text=True, check=True)
    assert out.stdout == SCHEMA_FILE.read_text()


@pytest.mark.parametrize("path", sorted((ROOT / "scenarios").glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_scenarios_validate_and_carry_the_modeline(path):
    first = path.read_text().splitlines()[0]
    assert first == "# yaml-language-server: $schema=../schemas/scenario.schema.json"
    load_scenario(str(path))


def test_every_link_key_reaches_the_link_model():
    # A link mapping with every key set must change every field of the model from its default.
    values = {"bandwidth": "2GB/s", "rtt": "5ms", "window": "8M", "buffer_cap": "2M", "setup": "1s",
              "per_stream": "1ms", "contention": 0.01, "noise": "7%", "outliers": 0.1, "failures": 0.2,
              "seed": 9, "time_scale": 0.5}
    assert set(values) == {k.name for k in LINK_KEYS}
    link, default = build_link(values), build_link({})
    assert [f.name for f in fields(link) if getattr(link, f.name) == getattr(default, f.name)] == []


def test_every_kind_names_only_keys_the_test_model_has():
    defs = build_schema()["definitions"]
    for kind in ("guc", "connection-test"):
        assert set(defs[f"{kind}_test"]["properties"]) <= _model_keys(Test), kind
    assert set(defs["defaults"]["properties"]) <= _model_keys(Test)
