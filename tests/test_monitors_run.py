"""Monitors during scenario runs on this machine (the real sampler under /bin/sh; a stand-in guc):
samples sit on the runs' time line, each run gets its summary, the report shows the table, a host
that cannot be reached only costs a warning, and a stop leaves no sampler behind. The same on
namespace hosts over the real sshd is in test_monitors_real.py."""

from __future__ import annotations

import asyncio
import json
import math
import os
import textwrap
from datetime import datetime
from pathlib import Path

import pytest
from jsonschema import Draft7Validator
from support.clihelp import gftpwb
from support.polling import eventually, eventually_async
from support.processes import running

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.plan import plan
from gftpwb.shell.lab.gridftp import free_port
from gftpwb.shell.sinks.monitors import SAMPLES_NAME, SUMMARIES_NAME, read_lines


def utc(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def records(results: Path) -> dict[str, dict]:
    return {r["run_id"]: r for r in read_lines(str(results / "results.jsonl"))}


def test_samples_line_up_with_the_runs_and_each_run_gets_its_summary(tmp_path, fake_guc, monkeypatch):
    """A command monitor reads two files: ``pre`` of every run adds a line to one before the run starts
    (RunStarted), ``post`` to the other when its transfer ended. So a sample taken during run k must
    count k starts, and a sample that counts k ends is not older than run k's recorded end: the
    sampler's clock, the controller's mapping and the records' wall clock agree."""
    monkeypatch.setenv("FAKE_GUC_STEP", "0.25")  # each transfer takes about 0.75 s
    starts, ends = tmp_path / "starts", tmp_path / "ends"
    starts.touch()
    ends.touch()
    path = tmp_path / "m.yaml"
    path.write_text(textwrap.dedent(f"""\
        version: 1
        name: m
        hosts: {{ghost: {{address: 127.0.0.1, port: {free_port()}, connect_timeout: 2s}}}}
        monitors:
          - {{id: phase, type: command, interval: 0.1s,
             command: [sh, -c, 'echo started $(wc -l < {starts}); echo ended $(wc -l < {ends})']}}
          - {{id: load, type: cpu, interval: 0.2s, on: [local, ghost]}}
          - {{id: broken, type: command, interval: 0.2s, command: [sh, -c, "echo oops; exit 3"]}}
        defaults:
          source: ftp://127.0.0.1:2811/dev/zero
          target: ftp://127.0.0.1:2811/dev/null
          options: {{length: 3M}}
        tests:
          - id: t
            kind: guc
            repeat: 3
            delay: 0.3s
            pre: [sh, -c, 'echo x >> {starts}']
            post: [sh, -c, 'echo x >> {ends}']
    """))
    results = tmp_path / "r"
    out = gftpwb("run", str(path), "--results", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "warning: monitors: cannot start the sampler on ghost" in out.stdout
    assert out.stdout.count("warning: monitors: broken on local: exit status 3: oops") == 1  # not every 0.2 s
    table = out.stdout[out.stdout.index("Monitors over the whole run"):].splitlines()
    assert [line.split()[1:4:2] for line in table if "local" in line] == [
        ["phase", "local"], ["phase", "local"], ["load", "local"], ["load", "local"]]  # in the order of monitors:

    lines = read_lines(str(results / SAMPLES_NAME))
    assert [(x["event"], x["host"]) for x in lines if x["event"] != "sample"] == [
        ("sampler-ended", "ghost"), ("sampler-started", "local"), ("sampler-ended", "local")] or \
        [(x["event"], x["host"]) for x in lines if x["event"] != "sample"] == [
        ("sampler-started", "local"), ("sampler-ended", "ghost"), ("sampler-ended", "local")]
    samples = [x for x in lines if x["event"] == "sample" and x["monitor"] == "phase"]
    assert all(x["host"] == "local" and "error" not in x for x in samples)
    assert [x["t"] for x in samples] == sorted(x["t"] for x in samples)
    summaries = {s["run_id"]: s for s in read_lines(str(results / SUMMARIES_NAME))}
    runs = records(results)
    assert sorted(summaries) == sorted(runs) == ["t/0", "t/1", "t/2"]
    margin = 0.03  # the sampler's clock counts hundredths of a second
    inside_counted = 0
    for k, run_id in enumerate(["t/0", "t/1", "t/2"], start=1):
        summary, record = summaries[run_id], runs[run_id]
        start, end = utc(summary["started_at"]), utc(summary["ended_at"])
        # the window is the run's events' time: it holds the record's times (post runs after ended_at)
        assert start - margin <= utc(record["started_at"]) and utc(record["ended_at"]) <= end + margin
        inside = [x for x in samples if start + margin < utc(x["utc"]) < end - margin]
        assert all(x["values"]["started"] == k for x in inside), (k, inside)
        inside_counted += len(inside)
        assert all(utc(x["utc"]) > utc(record["ended_at"]) - margin for x in samples if x["values"]["ended"] >= k)
        figures = summary["monitors"]["phase"]["local"]
        assert figures["started"]["max"] >= k and figures["started"]["n"] >= 1
        assert summary["monitors"]["load"]["local"]["busy_pct"]["n"] >= 1
        assert "ghost" not in summary["monitors"]["load"]
    assert inside_counted >= 3  # at least one reading inside a run per run on average
    check_report_reads_the_monitors_back(results, out.stdout, summaries)


def table_rows(text: str) -> list[list[str]]:
    """(monitor, host, figure, mean, max, samples) of the rows of the report's monitors table."""
    table = text[text.index("Monitors over the whole run"):].splitlines()
    return [cells for line in table
            if len(cells := [c.strip() for c in line.strip("│┃ ").split("│")]) == 6 and cells[1] == "local"]


def check_report_reads_the_monitors_back(results: Path, run_output: str, summaries: dict) -> None:
    """``gftpwb report`` prints the table the run printed (recomputed from monitors.jsonl, so the
    means agree to the printed digits but for the rounding of the stored spans), and ``--json`` has
    each run's figures and the whole run's, valid against the report's schema."""
    out = gftpwb("report", str(results), env={"COLUMNS": "200"})
    assert out.returncode == 0, out.stdout + out.stderr
    ran, read = table_rows(run_output), table_rows(out.stdout)
    assert [r[:3] for r in read] == [r[:3] for r in ran] and len(ran) == 4
    for a, b in zip(ran, read, strict=True):
        assert a[4:] == b[4:], (a, b)  # max and sample count: exact
        assert math.isclose(float(a[3]), float(b[3]), rel_tol=0.02), (a, b)
    assert run_output[run_output.index("Monitors over the whole run"):].split("\n")[0] == \
        out.stdout[out.stdout.index("Monitors over the whole run"):].split("\n")[0]  # the same sample count
    doc = json.loads(gftpwb("report", str(results), "--json").stdout)
    schema = json.loads((Path(__file__).resolve().parent.parent / "schemas" / "report.schema.json").read_text())
    assert list(Draft7Validator(schema).iter_errors(doc)) == []
    (directory,) = doc["directories"]
    assert list(directory["monitors"]["types"]) == ["phase", "load", "broken"]
    assert set(directory["monitors"]["figures"]) == {"phase", "load"}  # broken never read a number
    runs = {run["run_id"]: run for case in directory["cases"] for run in case["runs"]}
    assert {run_id: run["monitors"] for run_id, run in runs.items()} == {
        run_id: s["monitors"] for run_id, s in summaries.items()}


@pytest.mark.parametrize("sampler", ["python", "sh"])
async def test_a_stop_leaves_no_sampler_behind(tmp_path, fake_guc, monkeypatch, sampler):
    """Ctrl-C (the executor's stop) during a run: the service stops without waiting for more readings,
    its sampler's process group is gone, and the run's summary is still written; either sampler."""
    from gftpwb.shell.executor import Executor
    from gftpwb.shell.monitors import MonitorService
    from gftpwb.shell.session import RunRequest, execute, prepare_run

    monkeypatch.setenv("FAKE_GUC_MODE", "hang")
    monkeypatch.setenv("FAKE_GUC_CHILD_PID", str(tmp_path / "child.pid"))
    monkeypatch.setenv("GFTPWB_SAMPLER", sampler)
    text = textwrap.dedent("""\
        version: 1
        name: stop
        monitors: [{id: load, type: cpu, interval: 0.2s}, {id: mem, type: memory, interval: 5s}]
        tests:
          - {id: hang, kind: guc, source: "ftp://127.0.0.1:2811/a", target: "ftp://127.0.0.1:2811/b"}
    """)
    scenario = load_scenario_text(text, str(tmp_path / "stop.yaml"))
    services: list[MonitorService] = []
    original = MonitorService.start

    async def keep(self, ctx, results_dir):
        services.append(self)
        await original(self, ctx, results_dir)

    monkeypatch.setattr(MonitorService, "start", keep)
    executor = Executor(bus=None, kill_grace_s=0.5)  # type: ignore[arg-type]  # wired by execute()
    seen = []
    request = RunRequest(scenario=scenario, specs=plan(scenario), results_dir=str(tmp_path / "r"), command=["t"],
                         subscribers=[seen.append])
    task = asyncio.create_task(execute(prepare_run(request), install_signal_handlers=False, executor=executor))
    await eventually_async(lambda: any(type(e).__name__ == "MonitorSample" and e.monitor == "load"
                                       and "busy_pct" in e.values for e in seen), "a reading of the load monitor")
    (service,) = services
    pid = service.samplers[0].process.pid
    assert running(pid)
    with open(f"/proc/{pid}/cmdline", "rb") as handle:
        assert handle.read().split(b"\0")[0] == (b"/usr/bin/python3" if sampler == "python" else b"/bin/sh")
    executor.stop()
    outcome = await asyncio.wait_for(task, 30)
    assert outcome.summary.interrupted
    assert not running(pid)
    names = [type(e).__name__ for e in seen]
    assert names.index("MonitorSummary") < names.index("MonitorsFinished") < names.index("ScenarioFinished")
    (summary,) = read_lines(str(tmp_path / "r" / SUMMARIES_NAME))
    assert summary["run_id"] == "hang/0" and summary["monitors"]["load"]["local"]["busy_pct"]["n"] >= 1
    assert os.path.getsize(tmp_path / "r" / SAMPLES_NAME) > 0


def test_a_resumed_run_appends_its_samples_and_the_report_takes_the_last_summary(tmp_path, fake_guc, monkeypatch):
    """Ctrl-C while the first run hangs, then ``--resume``: the second session's sampler appends to
    monitors.jsonl, the rerun's summary is appended after the interrupted one, and ``gftpwb report``
    shows the rerun's figures for that run id (and counts every sample of both sessions)."""
    import signal

    from support.clihelp import popen

    path = tmp_path / "r.yaml"
    path.write_text(textwrap.dedent("""\
        version: 1
        name: r
        monitors: [{id: load, type: cpu, interval: 0.2s}]
        tests:
          - {id: t, kind: guc, source: "ftp://127.0.0.1:2811/a", target: "ftp://127.0.0.1:2811/b",
             options: {length: 1M}}
    """))
    results = tmp_path / "res"
    proc = popen("run", str(path), "--results", str(results), "--progress", "never",
                 env={"FAKE_GUC_MODE": "hang", "FAKE_GUC_CHILD_PID": str(tmp_path / "child.pid")})
    eventually(lambda: sum(x.get("event") == "sample" for x in read_lines(str(results / SAMPLES_NAME))) >= 2,
               "two samples of the run", step=0.1)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode == 130
    first = read_lines(str(results / SUMMARIES_NAME))
    assert [s["run_id"] for s in first] == ["t/0"]

    out = gftpwb("run", str(path), "--resume", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    lines = read_lines(str(results / SAMPLES_NAME))
    assert [x["event"] for x in lines if x["event"] != "sample"] == [
        "sampler-started", "sampler-ended", "sampler-started", "sampler-ended"]
    summaries = read_lines(str(results / SUMMARIES_NAME))
    assert [s["run_id"] for s in summaries] == ["t/0", "t/0"] and summaries[0] == first[0]
    doc = json.loads(gftpwb("report", str(results), "--json").stdout)
    (directory,) = doc["directories"]
    (run,) = [r for c in directory["cases"] for r in c["runs"]]
    assert run["status"] == "passed" and run["monitors"] == summaries[1]["monitors"]
    assert directory["monitors"]["samples"] == sum(x["event"] == "sample" for x in lines)
