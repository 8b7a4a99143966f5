"""The front-end service every front end uses: preflight by the kinds' programs, the results
directory (new, given, resumed), the command that repeats a run, and the exit codes."""

from __future__ import annotations

import json

import pytest

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import EnvironmentProblem, UsageError
from gftpwb.core.plan import plan
from gftpwb.core.records import Summary
from gftpwb.shell import frontend
from gftpwb.shell import results_dir as rd

SCENARIO = """\
version: 1
name: fe
hosts:
  far: {address: 10.0.0.9}
defaults: {source: ftp://a/x, target: ftp://b/y}
tests:
  - {id: real, kind: guc, options: {length: 1M}}
  - {id: sim, kind: guc, engine: simulated, options: {length: 1M}}
  - {id: tune, kind: autotune, engine: simulated, candidates: [{}, {parallel: 4}], repetitions: 1}
  - {id: conn, kind: connection-test}
  - {id: remote, kind: guc, on: far, options: {length: 1M}}
"""


@pytest.fixture
def no_guc(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))


def specs(*only):
    return plan(load_scenario_text(SCENARIO, "fe.yaml"), only)


@pytest.mark.parametrize("only", [("real",), ("conn",)])
def test_runs_of_guc_on_this_machine_need_guc(no_guc, only):
    with pytest.raises(EnvironmentProblem, match="globus-url-copy not found in PATH; install the Debian package "
                                                 "globus-gass-copy-progs"):
        frontend.preflight(specs(*only))


def test_simulated_runs_and_runs_on_other_hosts_do_not(no_guc):
    frontend.preflight(specs("sim", "tune", "remote"))  # the TUI used to refuse the first one


def test_results_directory_new_given_or_resumed(tmp_path):
    scenario = load_scenario_text(SCENARIO, "fe.yaml")
    base = tmp_path / "results"
    fresh = frontend.results_dir(scenario, str(base))
    assert fresh.startswith(f"{base}/") and fresh.endswith("-fe")
    assert frontend.results_dir(scenario, str(base), results="mine") == "mine"
    with pytest.raises(UsageError, match=f"nothing to resume: no results of fe under {base}/"):
        frontend.results_dir(scenario, str(base), resume="")
    made(base / "20260102T000000Z-fe", "2026-01-01T00:00:00+00:00", left=1)
    made(base / "20260101T000000Z-fe", "2026-01-02T00:00:00+00:00", left=1)  # started later: newer
    assert frontend.results_dir(scenario, str(base), resume="") == str(base / "20260101T000000Z-fe")
    assert frontend.results_dir(scenario, str(base), resume="old") == "old"


def made(directory, created_at, *, left, runs=("real/0", "sim/0"), fingerprint="fp", scenario="fe", **meta):
    """A results directory as a run makes it: meta.json, plan.json, and a journal without the last ``left`` runs."""
    directory.mkdir(parents=True)
    (directory / "meta.json").write_text(json.dumps({"scenario": scenario, "created_at": created_at,
                                                     "plan_fingerprint": fingerprint, **meta}))
    (directory / "plan.json").write_text(json.dumps([{"run_id": run} for run in runs]))
    done = runs[:len(runs) - left]
    (directory / "results.jsonl").write_text("".join(json.dumps(record(run)) + "\n" for run in done))


def record(run_id):
    return {"run_id": run_id, "scenario": "fe", "test_id": run_id.split("/")[0], "case": 0, "repeat": 0,
            "kind": "guc", "host": "local", "argv": ["globus-url-copy"], "status": "passed"}


def test_bare_resume_takes_the_newest_directory_with_runs_left_of_this_plan(tmp_path):
    base = tmp_path / "results"
    made(base / "other", "2026-01-01T00:00:00+00:00", left=0, scenario="fe2")
    made(base / "imported", "2026-01-09T00:00:00+00:00", left=1, imported=True)
    made(base / "finished", "2026-01-08T00:00:00+00:00", left=0)
    made(base / "old-plan", "2026-01-07T00:00:00+00:00", left=1, fingerprint="else")
    made(base / "mine", "2026-01-02T00:00:00+00:00", left=2)
    made(base / "older", "2026-01-01T00:00:00+00:00", left=1)
    (base / "no-meta").mkdir()
    assert rd.to_resume(str(base), "fe") == str(base / "old-plan")  # no plan given: the newest with runs left
    plan = specs()
    fingerprint = rd.plan_fingerprint(plan)
    (base / "mine" / "meta.json").write_text(json.dumps({"scenario": "fe", "created_at": "2026-01-02T00:00:00Z",
                                                         "plan_fingerprint": fingerprint}))
    assert rd.to_resume(str(base), "fe", plan) == str(base / "mine")  # the newest of this plan
    lock = rd.lock(str(base / "mine"), ["gftpwb", "run"], create=False)
    try:  # a directory another gftpwb writes to is not an interrupted run
        assert rd.to_resume(str(base), "fe", plan) == str(base / "old-plan")
    finally:
        lock.release()


def test_bare_resume_with_every_directory_finished_names_the_newest(tmp_path):
    base = tmp_path / "results"
    made(base / "20260109T000000Z-fe", "2026-01-01T00:00:00+00:00", left=0)
    made(base / "copy", "2026-01-03T00:00:00+00:00", left=0)
    with pytest.raises(UsageError, match=r"every run of fe under .*/ is finished; the newest, .*/copy \(started "
                                         r"2026-01-03T00:00:00\+00:00\), holds all its 2 run\(s\), and nothing is "
                                         "left to run"):
        rd.to_resume(str(base), "fe")


def test_the_command_that_repeats_a_run():
    assert frontend.repeat_command("s.yaml", "r/1") == ["gftpwb", "run", "s.yaml", "--results", "r/1"]
    assert frontend.repeat_command("s.yaml", "r/1", only=["a", "b"], accept_new_host_keys=True) == [
        "gftpwb", "run", "s.yaml", "--only", "a,b", "--results", "r/1", "--accept-new-host-keys"]


def test_exit_codes():
    def summary(passed: int, failed: int = 0, interrupted: bool = False) -> Summary:
        return Summary(total=passed + failed, counts={"passed": passed, "failed": failed}, interrupted=interrupted)

    assert [frontend.exit_code(s) for s in (None, summary(2), summary(1, 1), summary(1, interrupted=True))] == \
        [0, 0, 1, 130]
