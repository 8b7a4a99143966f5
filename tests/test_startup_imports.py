"""What ``gftpwb validate`` loads: the language of only the kinds its scenario uses, no ruamel for a
plain scenario, the shipped schema while the plug-ins are gftpwb's own. (Its time is measured by
bench/startup.py, never asserted here; what it imports is what keeps that time down, and it is the
same on every machine.)"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

from gftpwb.core.dsl.schema import BUILTIN_PLUGINS, build_schema, shipped_schema

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import json, sys
from gftpwb.cli.main import main
try:
    main(["validate", sys.argv[1]])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)))
"""


def modules_after_validate(scenario: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", PROBE, scenario], capture_output=True, text=True, cwd=ROOT,
                         check=True)
    assert ": ok (" in out.stdout
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_the_builtin_plugins_are_those_pyproject_declares():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["gftpwb.kinds"]
    assert set(declared.items()) == BUILTIN_PLUGINS


def test_the_shipped_schema_is_the_built_one():
    assert shipped_schema() == build_schema()


def test_validate_imports_the_language_of_the_kinds_used_and_no_ruamel():
    loaded = modules_after_validate("scenarios/quickstart.yaml")  # guc tests only
    assert "gftpwb.kinds.guc.facets" in loaded
    for kind in ("gfapi", "iperf3", "autotune", "connection_test"):
        assert f"gftpwb.kinds.{kind}.kind" in loaded  # every kind's manifest: the registry knows them all
        assert not any(m.startswith(f"gftpwb.kinds.{kind}.") and not m.endswith(".kind") for m in loaded), kind
    unwanted = {"ruamel.yaml", "jsonschema", "hashlib", "gftpwb.core.records", "gftpwb.kinds.guc.session",
                "gftpwb.kinds.guc.output", "gftpwb.core.reporttypes", "gftpwb.shell.executor", "asyncio"}
    assert loaded & unwanted == set()


def test_a_scenario_of_another_kind_loads_that_kinds_language():
    loaded = modules_after_validate("scenarios/smallfile-posix.yaml")  # gfapi tests only
    assert "gftpwb.kinds.gfapi.facets" in loaded and "gftpwb.kinds.iperf3.facets" not in loaded


def test_a_facet_named_wrongly_is_an_environment_problem():
    import re

    import pytest

    from gftpwb.core.errors import EnvironmentProblem
    from gftpwb.core.registry import ImportedDsl, ImportedPlanner

    with pytest.raises(EnvironmentProblem, match=re.escape("cannot load the facet nosuch.module:Dsl")):
        ImportedDsl("nosuch.module:Dsl").test_keys()
    with pytest.raises(EnvironmentProblem, match=re.escape("names a GucDsl, not a gftpwb.core.registry.Planner")):
        ImportedPlanner("gftpwb.kinds.guc.facets:GucDsl").plan(None, None, 0)
