"""The front-end service every front end uses: preflight by the kinds' programs, the results
directory (new, given, resumed), the command that repeats a run, and the exit codes."""

from __future__ import annotations

import pytest

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import EnvironmentProblem, UsageError
from gftpwb.core.plan import plan
from gftpwb.core.records import Summary
from gftpwb.shell import frontend

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
    (base / "20260101T000000Z-fe").mkdir(parents=True)
    (base / "20260102T000000Z-fe").mkdir()
    assert frontend.results_dir(scenario, str(base), resume="") == str(base / "20260102T000000Z-fe")
    assert frontend.results_dir(scenario, str(base), resume="old") == "old"


def test_the_command_that_repeats_a_run():
    assert frontend.repeat_command("s.yaml", "r/1") == ["gftpwb", "run", "s.yaml", "--results", "r/1"]
    assert frontend.repeat_command("s.yaml", "r/1", only=["a", "b"], accept_new_host_keys=True) == [
        "gftpwb", "run", "s.yaml", "--only", "a,b", "--results", "r/1", "--accept-new-host-keys"]


def test_exit_codes():
    def summary(passed: int, failed: int = 0, interrupted: bool = False) -> Summary:
        return Summary(total=passed + failed, counts={"passed": passed, "failed": failed}, interrupted=interrupted)

    assert [frontend.exit_code(s) for s in (None, summary(2), summary(1, 1), summary(1, interrupted=True))] == \
        [0, 0, 1, 130]
