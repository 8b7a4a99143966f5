"""The harness when scenarios run (fast: a deterministic stand-in for guc; the same paths against the
real server and namespace hosts are in test_harness_real.py): skipped records with reasons, loops,
copies with their aggregate and their console lines in order, tests at the same time, delays, and
stopping and resuming copies."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path

import pytest
from support.clihelp import gftpwb
from support.golden_runs import HERE
from support.polling import eventually
from support.processes import running
from support.results import records

from gftpwb.core.bus import EventBus
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.events import CopiesFinished, Progress, RunDelayed, RunFinished, RunStarted
from gftpwb.core.harness.agenda import Schedule
from gftpwb.core.plan import plan
from gftpwb.shell.executor import Executor
from gftpwb.shell.sinks.aggregates import read_aggregates


@pytest.fixture
def stand_in(tmp_path: Path) -> dict[str, str]:
    """The golden tests' deterministic guc on PATH: fails for a source with /fail/, else moves -len bytes."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    guc = bindir / "globus-url-copy"
    guc.write_text(f"#!/bin/sh\nexec {__import__('sys').executable} {HERE / 'fake_guc.py'} \"$@\"\n")
    guc.chmod(0o755)
    import os

    return {"PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}


SUITE = """\
version: 1
name: suite
seed: 11
loops: 2
vars: {length: 1M, copies: 1}
defaults:
  source: ftp://127.0.0.1:2811/dev/zero
  target: ftp://127.0.0.1:2811/dev/null
  options:
    length: ${length}
tests:
  - id: warm-up
    kind: guc
    source: ftp://127.0.0.1:1/fail/zero
  - id: upload
    kind: guc
    needs: warm-up
    repeat: 2
  - id: stress
    kind: guc
    concurrency: ${copies}
    delay: {uniform: [0s, 0.2s]}
  - id: check
    kind: connection-test
    needs: [stress]
"""


def test_a_suite_with_needs_loops_and_copies(tmp_path, stand_in):
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE)
    results = tmp_path / "r"
    out = gftpwb("run", str(path), "--results", str(results), "--progress", "never", "--set", "copies=3",
                 env={**stand_in, "GFTPWB_VAR_length": "2M"})
    assert out.returncode == 1, out.stdout + out.stderr  # warm-up failed, so upload was skipped
    got = {r["run_id"]: r for r in records(results)}
    assert sorted(got) == sorted(f"loop{n}/{run}" for n in (0, 1) for run in (
        "warm-up/0", "upload/0", "upload/1", "stress/0#0", "stress/0#1", "stress/0#2", "check/0"))
    for loop in (0, 1):
        skipped = [got[f"loop{loop}/upload/{r}"] for r in (0, 1)]
        assert [(r["status"], r["error"], r["taglog"]) for r in skipped] == [
            ("skipped", "needs warm-up, which failed", "")] * 2  # recorded with the reason, not dropped
        assert got[f"loop{loop}/check/0"]["status"] == "passed"  # its need, every copy of stress, passed
        copies = [got[f"loop{loop}/stress/0#{c}"] for c in range(3)]
        assert [r["details"]["copy"] for r in copies] == [0, 1, 2]
        assert all(r["details"]["copies"] == 3 and r["details"]["loop"] == loop and r["details"]["seed"] == 11
                   and 0 <= r["details"]["delay_s"] <= 0.2 and r["bytes"] == 2 * 1048576 for r in copies)
    # No copies or delay: only its mode, its loop and seed (and vb_added).
    assert got["loop0/warm-up/0"]["details"] == {"mode": "stream", "live_progress": False, "vb_added": False,
                                                 "loop": 0, "seed": 11}
    # Each copy has its own tag log; loops are in the names.
    names = sorted(p.name for p in results.glob("*.log"))
    assert "suite_#002_000.loop1#2.log" in names and "suite_#000_000.loop0.log" in names
    assert not [n for n in names if "#001_" in n]  # skipped runs write no tag log
    # The aggregate of each run's copies.
    aggregates = {a.group: a for a in read_aggregates(str(results / "aggregates.jsonl"))}
    assert sorted(aggregates) == ["loop0/stress/0", "loop1/stress/0"]
    agg = aggregates["loop1/stress/0"]
    copies = [got[f"loop1/stress/0#{c}"] for c in range(3)]
    assert agg.copies == 3 and agg.statuses == {"passed": 3} and agg.bytes == 6 * 1048576
    assert agg.rate_sum_mib_s == pytest.approx(sum(r["rate_incl_setup_mib_s"] for r in copies), abs=1e-5)
    assert agg.first_done_at == min(r["ended_at"] for r in copies)
    assert agg.last_done_at == max(r["ended_at"] for r in copies)
    # The stored scenario is the expanded one; meta.json says the seed, the loops and the values used.
    stored = (results / "scenario.yaml").read_text()
    assert "${" not in stored and "concurrency: 3" in stored and 'length: "2M"' in stored
    meta = json.loads((results / "meta.json").read_text())
    assert (meta["seed"], meta["loops"], meta["vars"]) == (11, 2, {"length": "2M", "copies": 3})
    # Console: one line when the copies start, their results in copy order, then what they did together.
    lines = out.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if "loop0/stress/0 ×3: 3 copies at once" in line)
    results_at = [next(i for i, line in enumerate(lines) if line.startswith(f"ok   loop0/stress/0#{c} "))
                  for c in range(3)]
    together = next(i for i, line in enumerate(lines) if line.startswith("  ×3 loop0/stress/0: 3/3 passed  sum "))
    assert start < results_at[0] and results_at == [results_at[0], results_at[0] + 1, results_at[0] + 2]
    assert together == results_at[2] + 1
    assert not [line for line in lines if line.startswith("    loop0/stress/0#")]  # no per-copy progress lines
    assert "SKIPPED loop0/upload/0  needs warm-up, which failed" in out.stdout
    assert "Runs at the same time: copies, hosts (rates in MiB/s)" in out.stdout


def test_tests_run_at_the_same_time_only_when_concurrent_tests_allows(tmp_path, stand_in):
    body = textwrap.dedent("""\
        version: 1
        name: conc
        defaults: {source: "ftp://h/dev/zero", target: "ftp://h/dev/null", options: {length: 1M}}
        tests:
          - {id: slow, kind: guc, delay: 1s}
          - {id: quick, kind: guc}
    """)
    for limit, overlap in ((1, False), (2, True)):
        path = tmp_path / f"c{limit}.yaml"
        path.write_text(body + f"concurrent_tests: {limit}\n")
        results = tmp_path / f"r{limit}"
        out = gftpwb("run", str(path), "--results", str(results), "--progress", "never", env=stand_in)
        assert out.returncode == 0, out.stdout + out.stderr
        got = {r["run_id"]: r for r in records(results)}
        # quick finishes before slow has waited out its delay only when both may run at once
        assert (got["quick/0"]["ended_at"] < got["slow/0"]["started_at"]) == overlap


def _executor():
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    return Executor(bus, kill_grace_s=1.0), events


STRESS = textwrap.dedent("""\
    version: 1
    name: st
    defaults: {source: "ftp://x/a", target: "ftp://y/b", options: {length: 3M}}
    tests:
      - {id: s, kind: guc, concurrency: 3}
      - {id: later, kind: guc, delay: 30s}
""")


async def test_stop_interrupts_every_copy_and_a_resume_runs_only_the_unfinished_ones(fake_guc, monkeypatch,
                                                                                       tmp_path):
    monkeypatch.setenv("FAKE_GUC_MODE", "hang")
    monkeypatch.setenv("FAKE_GUC_CHILD_PID", str(tmp_path / "child.pid"))
    specs = plan(load_scenario_text(STRESS, "st.yaml"), ["s"])
    executor, events = _executor()
    moving: set[str] = set()

    def stop_when_all_move(event):  # every copy's guc has printed its progress line: all three in flight
        if isinstance(event, Progress):
            moving.add(event.run_id)
            if len(moving) == 3 and not executor.stopping:
                asyncio.get_running_loop().call_soon(executor.stop)

    executor.bus.subscribe(stop_when_all_move)
    summary = await executor.run(specs, results_dir="r", scenario="st")
    finished = [e.record for e in events if isinstance(e, RunFinished)]
    assert sorted((r.run_id, r.status) for r in finished) == [("s/0#0", "interrupted"), ("s/0#1", "interrupted"),
                                                              ("s/0#2", "interrupted")]
    assert summary.interrupted
    (copies,) = [e for e in events if isinstance(e, CopiesFinished)]
    assert copies.aggregate is None  # not every copy finished: no aggregate yet
    child = int((tmp_path / "child.pid").read_text())
    eventually(lambda: not running(child), "the copies' guc children killed")

    # --resume: the journal holds copy #1 as passed; only #0 and #2 run again, and the aggregate counts all three.
    monkeypatch.setenv("FAKE_GUC_MODE", "ok")
    done_copy = finished[[r.run_id for r in finished].index("s/0#1")]
    done_copy = type(done_copy)(**{**done_copy.__dict__, "status": "passed", "bytes": 3 * 1048576,
                                   "rate_incl_setup_mib_s": 50.0})
    executor, events = _executor()
    summary = await executor.run(specs, results_dir="r", scenario="st", done=frozenset({"s/0#1"}),
                                 earlier=[done_copy])  # what resume_state() gives: the final records
    assert sorted(e.spec.run_id for e in events if isinstance(e, RunStarted)) == ["s/0#0", "s/0#2"]
    assert summary.counts == {"passed": 3} and summary.all_passed
    (copies,) = [e for e in events if isinstance(e, CopiesFinished)]
    assert copies.aggregate is not None and copies.aggregate.copies == 3 and copies.aggregate.bytes == 9 * 1048576


async def test_a_stop_during_a_delay_records_the_run_as_interrupted_before_it_started(fake_guc):
    specs = plan(load_scenario_text(STRESS, "st.yaml"), ["later"])
    executor, events = _executor()
    executor.bus.subscribe(lambda e: asyncio.get_running_loop().call_soon(executor.stop)  # while it waits
                           if isinstance(e, RunDelayed) else None)
    await executor.run(specs, results_dir="r", scenario="st", schedule=Schedule())
    (delayed,) = [e for e in events if isinstance(e, RunDelayed)]
    assert delayed.delay_s == 30.0
    (record,) = [e.record for e in events if isinstance(e, RunFinished)]
    assert record.status == "interrupted" and record.error == "stopped during its 30s delay, before it started"
    assert not [e for e in events if isinstance(e, RunStarted)]


def test_the_console_shows_one_line_for_a_runs_copies_and_no_interleaved_progress():
    import io

    from rich.console import Console

    from gftpwb.core.events import Progress, ScenarioStarted
    from gftpwb.shell.sinks.console import ConsoleSink

    text = STRESS.replace("{id: later, kind: guc, delay: 30s}", "{id: other, kind: guc}") + "concurrent_tests: 2\n"
    specs = list(plan(load_scenario_text(text, "st.yaml")))
    out = io.StringIO()
    sink = ConsoleSink(Console(file=out, width=200), live=False)
    sink(ScenarioStarted(scenario="st", results_dir="r", plan=tuple(specs)))
    for spec in specs:
        sink(RunStarted(spec=spec, argv=spec.argv, started_at=""))
    for spec in specs:
        sink(Progress(run_id=spec.run_id, bytes=1048576, rate_avg_mib_s=10.0, rate_inst_mib_s=None, elapsed_s=1.0))
    lines = out.getvalue().splitlines()
    note = "no live progress, elapsed time only: between two servers -vb would switch guc from stream mode to MODE E"
    assert lines[1:] == [
        "[1-3/4] s/0 ×3: 3 copies at once: globus-url-copy -len 3M ftp://x/a ftp://y/b", f"note: s: {note}",
        "[4/4] other/0: globus-url-copy -len 3M ftp://x/a ftp://y/b", f"note: other: {note}",
    ]  # no progress lines: two tests run at once, and copies have their status line
    status = io.StringIO()
    Console(file=status, width=200).print(sink._line)
    shown = status.getvalue().splitlines()
    assert len(shown) == 2 and "s/0 ×3" in shown[0] and "3 running, 0/3 done  3.00 MiB  30.0 MiB/s sum of copies" \
        in shown[0] and "other/0" in shown[1]


async def test_services_run_alongside_the_whole_scenario_run(tmp_path, stand_in, monkeypatch):
    """The seam monitors use: a service starts before the first run, can publish and reach the hosts'
    transports, and stops after the last run and before ScenarioFinished (so what it publishes on
    stopping is part of the report), before the transports close."""
    from gftpwb.core.events import Notice, ScenarioFinished, ScenarioStarted
    from gftpwb.shell.session import RunRequest, execute, prepare_run

    monkeypatch.setenv("PATH", stand_in["PATH"])
    seen: list[str] = []

    class Probe:
        async def start(self, ctx, results_dir):
            assert ctx.transport_for("local") is not None and results_dir == str(tmp_path / "r")
            ctx.publish(Notice(level="info", text="probe started"))

        async def stop(self):
            seen.append("stopped")

    scenario = load_scenario_text(STRESS, str(tmp_path / "st.yaml"))
    request = RunRequest(scenario=scenario, specs=plan(scenario, ["s"]), results_dir=str(tmp_path / "r"),
                         command=["test"], services=[Probe()],
                         subscribers=[lambda e: seen.append(type(e).__name__ if not isinstance(e, Notice)
                                                            else e.text)])
    outcome = await execute(prepare_run(request), install_signal_handlers=False)
    assert outcome.summary.all_passed
    assert seen[0] == "probe started" and seen[1] == ScenarioStarted.__name__
    assert seen[-2:] == ["stopped", ScenarioFinished.__name__]


def test_an_auto_tunes_transfers_carry_its_loop_and_copy(tmp_path):
    """Runs a runner starts itself (an auto-tune's transfers) are named in their parent's loop and copy,
    so copies and passes of a tune never share a run id or a tag log."""
    path = tmp_path / "at.yaml"
    path.write_text(textwrap.dedent("""\
        version: 1
        name: at
        loops: 2
        defaults:
          source: gsiftp://dtn1.example.org/data/
          target: gsiftp://dtn2.example.org/data/
          engine: simulated
          link: {bandwidth: 10Gbit/s, rtt: 20ms, buffer_cap: 16M, seed: 1}
        tests:
          - {id: tune, kind: autotune, strategy: exhaustive, repetitions: 2, concurrency: 2,
             candidates: {parallel: [1, 4]}, length: 1G}
    """))
    results = tmp_path / "r"
    out = gftpwb("run", str(path), "--results", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    got = records(results)
    tunes = sorted(r["run_id"] for r in got if r["kind"] == "autotune")
    assert tunes == ["loop0/tune#0", "loop0/tune#1", "loop1/tune#0", "loop1/tune#1"]
    transfers = [r for r in got if r["kind"] == "guc"]
    assert len(transfers) == 16 and len({r["run_id"] for r in transfers}) == 16
    assert len({r["taglog"] for r in transfers}) == 16
    assert "loop1/tune#2/1#0" in {r["run_id"] for r in transfers}  # candidate 2, transfer 1, copy 0, pass 1
    assert all(r["details"]["loop"] in (0, 1) and r["details"]["copy"] in (0, 1) for r in transfers)
