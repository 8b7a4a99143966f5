"""Third-party kinds, installed the way pip installs one, work end to end with no edit outside their
folder (tests/tinykind): validation against their schema fragment and checks, planning, a dry run,
the preflight, a headless run through the real executor (journal, plan, an event consumer, the
report and the console line), and their rows in the TUI. ``nap`` is a minimal kind (only the
facets every kind needs: dsl, planner, run), shown with the defaults of the others; ``doze`` adds
the optional ones (a report section, its own console line).

The fixture puts a ``tinykind-0.1.dist-info`` (the folder's METADATA and entry_points.txt) and the
folder itself on ``sys.path`` and PYTHONPATH, so the real entry-point machinery finds the kind, in
this process and in the ``gftpwb`` subprocesses alike.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from support.clihelp import gftpwb
from support.polling import eventually_async
from textual.widgets import DataTable

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import EnvironmentProblem, ScenarioError
from gftpwb.core.plan import plan
from gftpwb.core.registry import registry, reset_registry
from gftpwb.shell import frontend
from gftpwb.tui.app import WorkbenchApp

FOLDER = Path(__file__).resolve().parent / "tinykind"
SCENARIO = """\
version: 1
name: naps
tests:
  - id: short
    kind: nap
    seconds: 0.05
    repeat: 2
  - id: dozy
    kind: doze
    seconds: 0.05
  - id: sim
    kind: guc
    source: gsiftp://a/x
    target: gsiftp://b/y
    engine: simulated
    options: {length: 1G}
"""


@pytest.fixture
def nap_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    site = tmp_path / "site"
    info = site / "tinykind-0.1.dist-info"
    info.mkdir(parents=True)
    for name in ("METADATA", "entry_points.txt"):
        shutil.copy(FOLDER / name, info / name)
    monkeypatch.syspath_prepend(str(FOLDER))
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(site), str(FOLDER), os.environ.get("PYTHONPATH", "")]))
    reset_registry()
    yield tmp_path
    reset_registry()


def write(tmp_path: Path, text: str = SCENARIO) -> str:
    path = tmp_path / "naps.yaml"
    path.write_text(text)
    return str(path)


def test_the_registry_finds_them_and_the_schema_takes_their_keys(nap_kind):
    assert registry().kind_names() == ("guc", "connection-test", "autotune", "gfapi", "iperf3", "xrootd", "http",
                                       "doze", "nap")
    schema = json.loads(gftpwb("schema").stdout)
    for name in ("nap", "doze"):
        assert schema["definitions"][f"{name}_test"]["properties"]["seconds"]["description"] == "How long to sleep."
        assert name in schema["definitions"]["test"]["properties"]["kind"]["enum"]


def test_a_minimal_kind_has_the_defaults_of_the_optional_facets(nap_kind):
    nap = registry().kind("nap")
    assert nap.report.section is None and nap.report.figures == () and nap.report.metrics == ()
    assert nap.present.whole_run_row and nap.exports == {}
    assert "expect" not in json.loads(gftpwb("schema").stdout)["definitions"]["nap_test"]["properties"]


def test_validation_uses_its_schema_fragment_and_its_checks(nap_kind):
    out = gftpwb("validate", write(nap_kind))
    assert out.returncode == 0 and out.stdout.strip().endswith("ok (3 test(s), 4 run(s))"), out.stderr
    with pytest.raises(ScenarioError) as bad:
        load_scenario_text(SCENARIO.replace("seconds: 0.05\n    repeat", "seconds: 0.05\n    snooze: 3\n    repeat"),
                           "n.yaml")
    assert [str(d) for d in bad.value.diagnostics] == [
        "n.yaml:7:5: unknown key 'snooze' in tests[0]; allowed: concurrency, delay, description, id, kind, needs, "
        "on, repeat, seconds, trace"]
    with pytest.raises(ScenarioError) as bad:
        load_scenario_text(SCENARIO.replace("seconds: 0.05\n    repeat", "seconds: 11\n    repeat"), "n.yaml")
    assert [str(d) for d in bad.value.diagnostics] == ["n.yaml:6:14: test 'short': a nap of 11 s is too long "
                                                       "(10 at most)"]


def test_planning_dry_run_and_preflight(nap_kind, monkeypatch):
    specs = plan(load_scenario_text(SCENARIO, "n.yaml"))
    assert [(s.run_id, s.kind, s.case, s.argv) for s in specs] == [
        ("short/0", "nap", 0, ("sleep", "0.05")), ("short/1", "nap", 0, ("sleep", "0.05")),
        ("dozy/0", "doze", 1, ("sleep", "0.05")),
        ("sim/0", "guc", 2, ("globus-url-copy", "-len", "1G", "gsiftp://a/x", "gsiftp://b/y"))]
    out = gftpwb("run", write(nap_kind), "--dry-run")
    assert out.stdout.splitlines()[:3] == ["short/0: sleep 0.05", "short/1: sleep 0.05", "dozy/0: sleep 0.05"]
    monkeypatch.setenv("PATH", str(nap_kind / "empty"))
    with pytest.raises(EnvironmentProblem, match="sleep not found in PATH; install coreutils"):
        frontend.preflight(specs)


def test_a_headless_run_journals_reports_and_feeds_its_consumer(nap_kind):
    results = nap_kind / "out"
    out = gftpwb("run", write(nap_kind), "--results", str(results), "--progress", "never")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert any(line.startswith("ok   short/0  done in ") for line in lines), out.stdout  # the default line
    assert any(line.startswith("ok   dozy/0  slept 0.05s (took ") for line in lines), out.stdout  # its own
    assert "Dozes (seconds)" in out.stdout and "Results SIMULATED (rates in MiB/s)" in out.stdout
    assert out.stdout.index("Dozes (seconds)") > out.stdout.index("Results SIMULATED")  # sections in order
    assert "short/0" not in out.stdout[out.stdout.index("Results SIMULATED"):]  # a nap is in no table
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    assert [(r["run_id"], r["kind"], r["status"], r["taglog"]) for r in records] == [
        ("short/0", "nap", "passed", ""), ("short/1", "nap", "passed", ""), ("dozy/0", "doze", "passed", ""),
        ("sim/0", "guc", "passed", "naps_#002_000.log")]
    assert records[0]["seconds"] >= 0.05 and records[0]["argv"] == ["sleep", "0.05"]
    assert (results / "naps.txt").read_text() == "short/0 passed\nshort/1 passed\n"
    assert sorted(p.name for p in results.glob("*.log")) == ["naps_#002_000.log"]  # naps write no tag logs
    assert [s["kind"] for s in json.loads((results / "plan.json").read_text())] == ["nap", "nap", "doze", "guc"]
    report = gftpwb("report", str(results))
    assert report.returncode == 0 and "Dozes (seconds)" in report.stdout, report.stderr


def test_the_harness_runs_its_copies_loops_and_needs_without_it_knowing(nap_kind):
    text = SCENARIO.replace("name: naps\n", "name: naps\nloops: 2\n").replace(
        "seconds: 0.05\n    repeat: 2\n", "seconds: 0.5\n    repeat: 1\n    concurrency: 3\n"
        "    delay: {uniform: [0s, 0.05s]}\n").replace(
        "    engine: simulated\n", "    engine: simulated\n    needs: short\n")
    results = nap_kind / "out"
    out = gftpwb("run", write(nap_kind, text), "--results", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    assert sorted(r["run_id"] for r in records) == sorted(
        [f"loop{n}/short/0#{c}" for n in (0, 1) for c in range(3)] + [f"loop{n}/{t}/0" for n in (0, 1)
                                                                       for t in ("dozy", "sim")])
    naps = [r for r in records if r["kind"] == "nap"]
    assert all(r["status"] == "passed" and r["details"]["copies"] == 3 for r in naps)
    by_loop = {n: [r for r in naps if r["details"]["loop"] == n] for n in (0, 1)}
    for loop, copies in by_loop.items():  # the copies of a pass slept at the same time
        assert max(r["started_at"] for r in copies) < min(r["ended_at"] for r in copies), loop
    lines = (results / "aggregates.jsonl").read_text().splitlines()
    assert [json.loads(line)["group"] for line in lines] == ["loop0/short/0", "loop1/short/0"]
    assert "  ×3 loop0/short/0: 3/3 passed" in out.stdout


async def test_their_tests_are_rows_of_the_tui(nap_kind):
    app = WorkbenchApp(write(nap_kind), results_base=str(nap_kind / "results"), stable=True)
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("r")
        await eventually_async(lambda: app.summary is not None, "the run", pause=pilot.pause)
        assert app.summary.all_passed
        await pilot.press("1")
        await pilot.pause()
        table = app.query_one("#tests", DataTable)
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
    assert rows[0][:5] == ["short", "nap", "local", "passed", "2/2"]
    assert rows[1][:5] == ["dozy", "doze", "local", "passed", "1/1"]
    assert rows[2][:5] == ["sim", "guc", "local", "passed", "1/1"]
