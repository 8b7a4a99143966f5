"""The shipped multi-host example on the lab's namespace hosts, as the README and docs/lab.md say: ``gftpwb
lab up --hosts 2``, ``gftpwb hosts check scenarios/multi-host.yaml $(gftpwb lab status --vars)``, ``gftpwb
run`` of it the same way and ``gftpwb report``. The lab is one of this test's own (its own state directory
and GridFTP port), so the shared default lab is never touched.

What the user sees: every host of the scenario checks ok, every planned run passes, and the runs counted
by validate, the run's closing line, its table, the journal and the report are the same."""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest
from support.journey import User, table_titled
from support.results import records

from gftpwb.shell.lab.gridftp import free_port

pytestmark = pytest.mark.real

ROOT = Path(__file__).resolve().parents[2]
VARS = "$(gftpwb lab status --vars)"


@pytest.fixture(scope="module")
def user(tmp_path_factory):
    home = tmp_path_factory.mktemp("multi-host")
    (home / "scenarios").mkdir()
    shutil.copy(ROOT / "scenarios" / "multi-host.yaml", home / "scenarios")
    user = User(home, env={"GFTPWB_LAB_DIR": str(home / "lab")})
    try:
        up = user.sh(f"gftpwb lab up --hosts 2 --port {free_port()}")
        assert "2 namespace host(s)" in up.stdout, up
        yield user
    finally:
        user.sh("gftpwb lab down")


def test_the_lab_names_its_two_hosts_and_the_variables_that_point_at_them(user):
    status = user.sh("gftpwb lab status")
    assert re.search(r"^  h1 .* sshd running$", status.stdout, flags=re.M), status
    assert re.search(r"^  h2 .* sshd running$", status.stdout, flags=re.M), status
    names = re.findall(r"--lab-var (\w+)=\S+", user.sh("gftpwb lab status --vars").stdout)
    assert names == ["lab", "ctrl", "src", "dst"]


def test_hosts_check_passes_every_host_of_the_example(user):
    check = user.sh(f"gftpwb hosts check scenarios/multi-host.yaml {VARS}")
    table = table_titled(check.stdout, "Hosts of multi-host")
    assert {row["host"]: row["status"] for row in table.records()} == {"local": "ok", "client1": "ok",
                                                                       "client2": "ok"}


def test_the_example_runs_as_shipped_and_every_command_counts_the_same_runs(user):
    validate = user.sh(f"gftpwb validate scenarios/multi-host.yaml {VARS}")
    planned = int(re.search(r"ok \(\d+ test\(s\), (\d+) run\(s\)\)", validate.stdout)[1])
    run = user.sh(f"gftpwb run scenarios/multi-host.yaml {VARS} --results results/multi-host")
    assert run.stdout.rstrip().endswith(f"{planned} passed of {planned} planned. Results: results/multi-host")
    journal = records(user.home / "results" / "multi-host")
    assert len(journal) == planned and all(r["status"] == "passed" for r in journal)
    assert Counter(r["host"] for r in journal) == {"client1": 4, "client2": 5, "local": 1}
    from_run = table_titled(run.stdout, "Results")
    report = user.sh("gftpwb report results/multi-host")
    from_report = table_titled(report.stdout, "Results")
    assert from_report.rows == from_run.rows
    assert sum(int(row["ok/runs"].split("/")[1]) for row in from_report.records()) == planned
    assert [(row["test"], row["#"], row["ok/runs"]) for row in from_report.records()] == [
        ("both-clients", "000", "4/4"), ("both-clients", "001", "4/4"), ("behind-jump", "002", "1/1"),
        ("controller", "003", "1/1")]
    assert report.stdout.rstrip().endswith(f"{planned} passed of {planned} planned")


def test_runs_on_both_hosts_at_once_are_also_given_together(user):
    """both-clients runs on client1 and client2 at once: its case pools the two hosts' runs, each with its
    own rate; what they moved at once is said apart, and labelled: every group's bytes over the span from
    its first start to its last end, at the end of the group's runs, in the report and its JSON."""
    run = user.sh(f"gftpwb run scenarios/multi-host.yaml {VARS} --results results/together --only both-clients")
    groups = re.findall(r"^  ×2 (both-clients\[\d\]/\d): 2/2 passed .* \(([\d.]+) MiB/s together\)", run.stdout,
                        flags=re.M)
    assert [g for g, _ in groups] == ["both-clients[0]/0", "both-clients[0]/1", "both-clients[1]/0",
                                      "both-clients[1]/1"], run.stdout
    journal = records(user.home / "results" / "together")
    assert {r["details"]["group"] for r in journal} == {g for g, _ in groups}
    report = user.sh("gftpwb report results/together")
    table = table_titled(report.stdout, "Runs at the same time")
    assert [row["run"] for row in table.records()] == [g for g, _ in groups]
    notes = [row["notes"] for row in table_titled(report.stdout, "Results").records()]
    assert all("2 at once (client1, client2): together" in note for note in notes), notes
    user.sh("gftpwb report results/together --html together.html")
    page = (user.home / "together.html").read_text()
    assert "<h3>Runs at the same time</h3>" in page and "both-clients[1]/1" in page
    data = json.loads(user.sh("gftpwb report results/together --json").stdout)
    (directory,) = data["directories"]
    for item in directory["concurrent"]:
        runs = [r for r in journal if r["details"]["group"] == item["group"]]
        assert item["copies"] == 2 and sorted(item["hosts"]) == ["client1", "client2"]
        assert item["bytes"] == sum(r["bytes"] for r in runs)
        assert item["throughput_mib_s"] == pytest.approx(item["bytes"] / 1048576 / item["wall_seconds"], rel=1e-5)
