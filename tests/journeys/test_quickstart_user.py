"""The README's first steps, twice, and what a user may conclude: ``gftpwb validate``, ``gftpwb run
scenarios/quickstart.yaml --results results/before`` and ``... results/after``, ``gftpwb report``, ``gftpwb
run --only TEST[N]`` of a row the table shows, and ``gftpwb compare results/before results/after`` (the
commands of README.md and docs/reports.md). The shipped scenario runs as shipped but for two words: the
lab server of this test (its port) and 32M instead of 1G a transfer, to stay quick.

A case has one number in every place that shows it (the tables' ``#``, run ids, ``--only TEST[N]``), the
report shows the cases the run showed, and the quickstart, run twice, gives compare the runs to decide
every case: a verdict, never "too few runs"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.journey import User, table_titled
from support.results import records

pytestmark = pytest.mark.real

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def user(tmp_path_factory, gridftp) -> User:
    home = tmp_path_factory.mktemp("quickstart")
    (home / "scenarios").mkdir()
    text = (ROOT / "scenarios" / "quickstart.yaml").read_text()
    assert text.count("ftp://127.0.0.1:2811") == 2 and text.count("length: 1G") == 1
    (home / "scenarios" / "quickstart.yaml").write_text(
        text.replace("ftp://127.0.0.1:2811", gridftp.url).replace("length: 1G", "length: 32M"))
    user = User(home)
    user.validated = user.sh("gftpwb validate scenarios/quickstart.yaml")
    user.runs = [user.sh(f"gftpwb run scenarios/quickstart.yaml --results results/{name}") for name in ("before",
                                                                                                       "after")]
    return user


def test_the_report_shows_the_cases_and_runs_the_run_showed(user):
    assert user.validated.stdout.strip() == "scenarios/quickstart.yaml: ok (2 test(s), 28 run(s))"
    before = user.runs[0]
    assert before.stdout.rstrip().endswith("28 passed of 28 planned. Results: results/before")
    report = user.sh("gftpwb report results/before")
    from_run, from_report = table_titled(before.stdout, "Results"), table_titled(report.stdout, "Results")
    assert from_report.rows == from_run.rows
    assert len(from_report.rows) == 7 and {row["ok/runs"] for row in from_report.records()} == {"4/4"}
    assert {row["n"] for row in from_report.records()} == {"4"}
    assert len(records(user.home / "results" / "before")) == 28
    assert report.stdout.rstrip().endswith("28 passed of 28 planned")


def test_a_case_has_one_number_in_the_table_the_run_ids_and_only(user):
    table = table_titled(user.runs[0].stdout, "Results")
    journal = records(user.home / "results" / "before")
    for row in table.records():
        if row["test"] != "parallel":
            continue
        number = int(row["#"])
        ids = sorted(r["run_id"] for r in journal if r["test_id"] == "parallel" and r["case"] == number)
        assert ids == [f"parallel[{number}]/{i}" for i in range(4)], (row, ids)
        dry = user.sh(f"gftpwb run scenarios/quickstart.yaml --only 'parallel[{number}]' --dry-run")
        lines = dry.stdout.splitlines()
        assert [line.split(":")[0] for line in lines] == [f"parallel[{number}]/{i}" for i in range(4)], dry
        assert all(f" {row['guc options']} ftp://" in line for line in lines), (row, lines)


def test_compare_compares_every_case_the_report_shows(user):
    compare = user.sh("gftpwb compare results/before results/after")
    table = table_titled(compare.stdout, "B results/after")
    report = table_titled(user.runs[0].stdout, "Results")
    assert [(r["test"], r["#"], r["parameters"]) for r in table.records()] == \
        [(r["test"], r["#"], r["guc options"]) for r in report.records()]
    assert all(r["A median"].endswith("(n=4)") and r["B median"].endswith("(n=4)") for r in table.records())
    assert re.search(r"^7 compared: ", compare.stdout, flags=re.M), compare


def test_the_quickstart_run_twice_lets_compare_decide_every_case(user):
    """Four runs a side: the test can decide, so every case gets a verdict and an interval of its change,
    and nothing says there are too few runs."""
    compare = user.sh("gftpwb compare results/before results/after")
    table = table_titled(compare.stdout, "B results/after")
    assert set(table.column("verdict")) <= {"faster", "slower", "no significant change"}, table.rows
    assert all(ci.startswith("[") for ci in table.column("95 % CI of change")), table.rows
    text = " ".join(compare.stdout.split())
    assert "have too few runs for" not in text and "with too few runs to say" not in text, text


def test_a_selection_runs_the_rows_asked_for_and_resumes_only_as_it_was_made(user):
    """``--only parallel --where parallel=4`` runs the two rows the full table shows with -p 4, under the same
    numbers; ``--resume`` of it without the selection is refused naming the command that made it."""
    selection = "--only parallel --where parallel=4"
    only = user.sh(f"gftpwb run scenarios/quickstart.yaml {selection} --results results/four")
    assert only.stdout.rstrip().endswith("8 passed of 8 planned. Results: results/four")
    full = table_titled(user.runs[0].stdout, "Results").records()
    assert [(r["#"], r["guc options"]) for r in table_titled(only.stdout, "Results").records()] == \
        [(r["#"], r["guc options"]) for r in full if r["guc options"].startswith("-p 4 ")]
    refused = user.sh("gftpwb run scenarios/quickstart.yaml --resume results/four", expect=5)
    assert refused.stderr.startswith("gftpwb: cannot resume results/four: the scenario's plan changed")
    assert (f"it was made by: gftpwb run scenarios/quickstart.yaml {selection} --results results/four; resume with "
            "what it ran") in refused.stderr
    again = user.sh(f"gftpwb run scenarios/quickstart.yaml {selection} --resume results/four")
    assert "0 run(s) (8 already done, resuming)" in again.stdout
