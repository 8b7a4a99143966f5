"""Warm starts end to end on the simulated engine (deterministic): a cold campaign, then a warm one
whose history is the results base the first wrote; warm_start: off; a changed path falling back to a
cold search; --resume after Ctrl-C racing on the priors the interrupted attempt recorded; the DSL's
errors at file:line:col; and tgftp -a staying tgftp's exhaustive 37 x 10 whatever the history holds.
The same pair with real guc is in test_autotune_warm_real.py."""

import json
import signal
import textwrap

import pytest
from support.clihelp import gftpwb, popen

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.plan import plan
from gftpwb.kinds.autotune.warm import warm_budget
from gftpwb.tgftp.run.autotune import autotune_scenario, run_tgftp_autotune


def scenario_text(bandwidth: str = "1GB/s", extra: str = "", seed: int = 7, time_scale: float = 0.0) -> str:
    scale = f", time_scale: {time_scale}" if time_scale else ""
    return textwrap.dedent(f"""\
        version: 1
        name: sim
        tests:
          - id: tune
            kind: autotune
            source: gsiftp://src.example.org/data/file
            target: gsiftp://dst.example.org/incoming/
            engine: simulated
            strategy: adaptive
            link: {{bandwidth: {bandwidth}, rtt: 20ms, noise: 3%, buffer_cap: 4M, seed: {seed}{scale}}}
        """) + textwrap.indent(textwrap.dedent(extra), "    ")


def write(tmp_path, text: str, name: str = "sim.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def records(results) -> list[dict]:
    return [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines() if line.strip()]


def tune_of(results) -> dict:
    return [r for r in records(results) if r["kind"] == "autotune"][-1]


def run_ok(*args) -> str:
    out = gftpwb("run", *args, "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_a_cold_campaign_then_a_warm_one_from_the_history_it_wrote(tmp_path):
    base = tmp_path / "results"
    cold_out = run_ok(write(tmp_path, scenario_text()), "--results", str(base / "cold"))
    assert "cold search: no earlier campaign in the history" in cold_out
    cold = tune_of(base / "cold")["details"]
    assert cold["warm_start"]["warm"] is False and cold["path"]["rtt_s"] == 0.02
    assert cold["path"]["buffer_cap"] == 4 << 20 and cold["path"]["data"] == "/dev/zero -> /dev/null"

    out = run_ok(write(tmp_path, scenario_text(seed=8)), "--results", str(base / "warm"))
    details = tune_of(base / "warm")["details"]
    warm = details["warm_start"]
    assert warm["warm"] and warm["phase"] == "race" and not warm["fell_back"]
    assert [u["ref"] for u in warm["used"]] == ["cold:tune"] and warm["used"][0]["similarity"] == 1.0
    assert warm["history"] == str(base) and warm["left_out"]
    assert details["transfers_used"] <= warm_budget(120) == details["budget"]
    # What it used is said on the console, in the final lines and in the report.
    assert "warm start from 1 earlier campaign(s) (similarity 1.00)" in out
    assert "history used: auto-tune cold:tune of " in out and "weight 1.00" in out
    assert "probe(s) agree with the history" in out
    rows = {row["candidate"]: row for row in details["ranking"]}
    assert any("left out by the history" in row["note"] for row in rows.values())
    assert "history " in rows[details["pick"]["params"]]["note"]
    report = gftpwb("report", str(base / "warm"))
    assert report.returncode == 0 and "warm (1" in report.stdout


def test_warm_start_off_searches_cold(tmp_path):
    base = tmp_path / "results"
    run_ok(write(tmp_path, scenario_text()), "--results", str(base / "first"))
    out = run_ok(write(tmp_path, scenario_text(extra="warm_start: off\n")), "--results", str(base / "second"))
    details = tune_of(base / "second")["details"]
    assert details["warm_start"]["warm"] is False and details["warm_start"]["used"] == []
    assert details["warm_start"]["reason"] == "warm_start is off" and details["budget"] == 120
    assert "cold search: warm_start is off" in out
    plan_spec = json.loads((base / "second" / "plan.json").read_text())[0]
    assert plan_spec["params"]["warm_start"] == "off"


def test_a_changed_path_falls_back_to_a_cold_search_and_says_so(tmp_path):
    base = tmp_path / "results"
    run_ok(write(tmp_path, scenario_text()), "--results", str(base / "before"))
    # A faster network card: the same ends, RTT and buffer cap, so only the probes can tell.
    out = run_ok(write(tmp_path, scenario_text(bandwidth="2GB/s")), "--results", str(base / "after"))
    details = tune_of(base / "after")["details"]
    warm = details["warm_start"]
    assert warm["warm"] and warm["fell_back"] and warm["phase"] == "cold" and details["budget"] == 120
    assert "fell back to a cold search after" in out and warm["fallback_reason"] in out
    assert details["transfers_used"] > warm["fell_back_after"]
    assert not any("left out by the history" in row["note"] for row in details["ranking"])
    report = gftpwb("report", str(base / "after"))
    assert "fell back to cold" in report.stdout


def test_a_warm_tune_resumed_after_ctrl_c_races_on_the_priors_it_recorded(tmp_path):
    base = tmp_path / "results"
    run_ok(write(tmp_path, scenario_text()), "--results", str(base / "a"))
    path = write(tmp_path, scenario_text(seed=9, time_scale=0.02), "warm.yaml")
    results = base / "warm"
    proc = popen("run", path, "--results", str(results), "--progress", "never")
    for line in proc.stdout:
        if line.startswith("ok   tune#"):
            break
    proc.send_signal(signal.SIGINT)
    rest = proc.stdout.read()
    assert proc.wait(timeout=60) == 130, rest + proc.stderr.read()
    interrupted = tune_of(results)
    assert interrupted["status"] == "interrupted" and interrupted["details"]["warm_start"]["priors"]
    # Another campaign lands in the base meanwhile: the resumed tune keeps the priors it started with.
    run_ok(write(tmp_path, scenario_text(seed=10)), "--results", str(base / "b"))
    out = gftpwb("run", path, "--resume", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    final = tune_of(results)["details"]["warm_start"]
    assert final["priors"] == interrupted["details"]["warm_start"]["priors"]
    assert [u["ref"] for u in final["used"]] == ["a:tune"]


def test_dsl_warm_start_errors_are_positioned():
    def errors(extra: str, strategy: str = "adaptive") -> list[str]:
        text = scenario_text(extra=extra).replace("strategy: adaptive", f"strategy: {strategy}")
        with pytest.raises(ScenarioError) as info:
            load_scenario_text(text, "s.yaml")
        return [str(d) for d in info.value.diagnostics]

    (line,) = errors("warm_start: auto\n", strategy="exhaustive")
    assert line.startswith("s.yaml:11:5: ") and "warm_start applies to strategy: adaptive" in line
    (line,) = errors("warm_start: sometimes\n")
    assert line.startswith("s.yaml:11:17: ") and "auto, off, or a mapping with history and campaigns" in line
    (line,) = errors("warm_start: {campaigns: 0}\n")
    assert line.startswith("s.yaml:11:")
    (line,) = errors("warm_start: {histroy: /x}\n")
    assert "histroy" in line
    scenario = load_scenario_text(scenario_text(extra="warm_start: {history: /srv/results, campaigns: 2}\n"), "s")
    (test,) = scenario.tests
    assert (test.warm_start, test.warm_history, test.warm_campaigns) == (True, "/srv/results", 2)
    (spec,) = plan(scenario)
    assert spec.params["warm_start"] == {"history": "/srv/results", "campaigns": 2}
    exhaustive = load_scenario_text(scenario_text(extra="warm_start: off\nrepetitions: 2\n").replace(
        "strategy: adaptive", "strategy: exhaustive"), "s")
    assert "warm_start" not in plan(exhaustive)[0].params


def test_tgftp_dash_a_stays_exhaustive_whatever_the_history_holds(tmp_path):
    (spec,) = plan(autotune_scenario("gsiftp://a/x", "gsiftp://b/y"))
    assert spec.params["strategy"] == "exhaustive" and spec.params["repetitions"] == 10
    assert len(spec.params["candidates"]) == 37 and "warm_start" not in spec.params
    base = tmp_path / "results"
    link = {"bandwidth": "1GB/s", "rtt": "20ms", "noise": "3%", "seed": 7}
    earlier = run_tgftp_autotune("gsiftp://a/x", "gsiftp://b/y", results_dir=str(base / "adaptive"),
                                 strategy="adaptive", engine="simulated", link=link, install_signal_handlers=False)
    assert earlier.record.details["warm_start"]["warm"] is False
    result = run_tgftp_autotune("gsiftp://a/x", "gsiftp://b/y", results_dir=str(base / "dash-a"), engine="simulated",
                                link=link, install_signal_handlers=False)
    details = result.record.details
    assert details["strategy"] == "exhaustive" and details["transfers_used"] == 370 and "warm_start" not in details
    # Asked otherwise (an adaptive tune through the same function), it learns from the base.
    again = run_tgftp_autotune("gsiftp://a/x", "gsiftp://b/y", results_dir=str(base / "asked"), strategy="adaptive",
                               engine="simulated", link=link, install_signal_handlers=False)
    used = {u["ref"] for u in again.record.details["warm_start"]["used"]}
    assert again.record.details["warm_start"]["warm"] and used == {"adaptive:autotune", "dash-a:autotune"}
