"""One case numbering everywhere: the tables' ``#`` column, ``--only test[N]``, ``--where``, run ids, tag
log names (tgftp's ``<scenario>_#NNN_MMM.log``, counted over the whole scenario) and a test's own
``log_filename`` all give a case the number it has in the scenario, so ``--only par[4]`` runs the
row the table calls #004."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.clihelp import gftpwb

from gftpwb.core.dsl.loader import load_scenario
from gftpwb.core.plan import first_cases, plan

SCENARIO = """\
version: 1
name: num
defaults:
  source: ftp://127.0.0.1:2811/dev/zero
  target: ftp://127.0.0.1:2811/dev/null
  engine: simulated
  link: {bandwidth: 1Gbit/s, rtt: 10ms}
  options: {length: 100M}
tests:
  - id: one
    kind: guc
    matrix: {parallel: [1, 2]}
  - id: par
    kind: guc
    matrix: {parallel: [1, 2, 4, 8]}
    log_filename: par.log
"""
WIDE = {"COLUMNS": "200"}


def table_rows(stdout: str) -> dict[str, list[str]]:
    """The guc table's rows by test and ``#``: ``{"par 004": cells}``."""
    rows = {}
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if len(cells) > 2 and cells[1].isdigit():
            rows[f"{cells[0]} {cells[1]}"] = cells
    return rows


def test_only_the_run_id_the_table_and_the_tag_log_give_a_case_one_number(tmp_path):
    path = tmp_path / "num.yaml"
    path.write_text(SCENARIO)
    dry = gftpwb("run", str(path), "--dry-run")
    assert [line.split(":")[0] for line in dry.stdout.splitlines()] == [
        "one[0]/0", "one[1]/0", "par[2]/0", "par[3]/0", "par[4]/0", "par[5]/0"]
    results = tmp_path / "r"
    run = gftpwb("run", str(path), "--only", "par[4]", "--results", str(results), "--progress", "never", env=WIDE)
    assert run.returncode == 0, run.stderr
    (record,) = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    assert (record["run_id"], record["case"], record["params"]["parallel"]) == ("par[4]/0", 4, 4)
    assert record["taglog"] == "par_#004_000.log" and (results / "par_#004_000.log").exists()
    assert "[1/1] par[4]/0" in run.stdout
    rows = table_rows(run.stdout)
    assert list(rows) == ["par 004"] and "-p 4" in rows["par 004"][2]
    report = gftpwb("report", str(results), env=WIDE)
    assert list(table_rows(report.stdout)) == ["par 004"]
    # --where finds the same case under the same number
    where = gftpwb("run", str(path), "--dry-run", "--only", "par", "--where", "parallel=4")
    assert where.stdout.startswith("par[4]/0: ")


def test_a_case_number_outside_the_test_says_which_numbers_it_has(tmp_path):
    path = tmp_path / "num.yaml"
    path.write_text(SCENARIO)
    out = gftpwb("run", str(path), "--dry-run", "--only", "par[6]")
    assert out.returncode == 2
    assert out.stderr.strip() == ("gftpwb: --only par[6]: test 'par' has cases [2] to [5] (the case numbers of the "
                                  "tables' # column)")
    assert gftpwb("run", str(path), "--dry-run", "--only", "one[1]").stdout.startswith("one[1]/0: ")


def test_tgftps_log_names_count_cases_over_the_scenario(tmp_path):
    """Without log_filename the tag logs are tgftp's ``<scenario>_#NNN_MMM.log``, NNN the scenario's case."""
    path = tmp_path / "num.yaml"
    path.write_text(SCENARIO.replace("    log_filename: par.log\n", ""))
    results = tmp_path / "r"
    assert gftpwb("run", str(path), "--results", str(results), "--progress", "never").returncode == 0
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    assert [(r["run_id"], r["case"], r["taglog"]) for r in records] == [
        (f"{test}[{case}]/0", case, f"num_#{case:03d}_000.log") for test, case in
        (("one", 0), ("one", 1), ("par", 2), ("par", 3), ("par", 4), ("par", 5))]


SHIPPED = sorted((Path(__file__).resolve().parent.parent / "scenarios").glob("*.yaml"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_kind_numbers_cases_over_the_scenario(path):
    """Each kind's planner (guc, connection tests, gfapi, iperf3, the copy tools, auto-tunes) gives a run
    id ``test[N]`` the case N of the scenario, and tgftp's tag log name ``#NNN`` the same number."""
    scenario = load_scenario(str(path))
    first = first_cases(scenario)
    for spec in plan(scenario):
        numbered = re.search(rf"(^|/){re.escape(spec.test_id)}\[(\d+)\]/", spec.run_id)
        if numbered:
            assert int(numbered[2]) == spec.case, spec.run_id
        assert spec.case >= first[spec.test_id], spec.run_id
        if not spec.log_name:
            assert f"_#{spec.case:03d}_" in spec.taglog_name, (spec.run_id, spec.taglog_name)
