"""SVG snapshots of the workbench at 80x24, made stable: a fixed clock, events with fixed timestamps
(a realistic mid-run moment of a loopback scenario, worker threads and an auto-tune ranking), no
cursor blink, no toasts, and relative paths. Update with ``pytest --snapshot-update`` after looking at
the report; the SVGs live in tests/__snapshots__/."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from support.live_events import RANKING, record
from support.report_fixture import write_mixed
from support.tui import NOW, app_for, feeding
from support.tui_standins import GfapiStandIn, thread_speed

from gftpwb.core.checks import Check
from gftpwb.core.dsl.loader import load_scenario
from gftpwb.core.events import (
    ExpectationsChecked,
    MonitorSample,
    OutputLine,
    Progress,
    RunFinished,
    RunStarted,
    SamplerStarted,
    ScenarioStarted,
    TraceLevelChanged,
    TuneUpdate,
    WorkerProgress,
)
from gftpwb.core.live.models import MIB
from gftpwb.core.plan import plan

SCENARIO = """\
version: 1
name: quickstart
description: guc configurations over loopback, each repeated
defaults:
  source: ftp://127.0.0.1:2811/dev/zero
  target: ftp://127.0.0.1:2811/dev/null
  timeout: 60s
  options: {length: 2G}
tests:
  - {id: stream-mode, kind: guc, repeat: 2}
  - {id: parallel, kind: guc, matrix: {parallel: [1, 4, 8]}, repeat: 2}
  - {id: refused, kind: guc, source: "ftp://127.0.0.1:1/dev/zero"}
"""
T0 = 1000.0
RESULTS = "results/20261122T004512Z-quickstart"


@pytest.fixture
def scenario_path(tmp_path, monkeypatch) -> str:
    monkeypatch.chdir(tmp_path)  # relative paths on screen, and no results/ to list
    Path("quickstart.yaml").write_text(SCENARIO)
    return "quickstart.yaml"


def mid_run_events(path: str, *, simulated: bool = False) -> list:
    """``simulated``: the run in flight is carried out by the simulated engine (marked SIMULATED)."""
    specs = {s.run_id: s for s in plan(load_scenario(path))}
    if simulated:
        specs["parallel[0]/1"] = replace(specs["parallel[0]/1"], engine="simulated")
    events: list = [ScenarioStarted(scenario="quickstart", results_dir=RESULTS, plan=tuple(specs.values()), t=T0)]
    t = T0
    for run_id, seconds, status in (("stream-mode/0", 2.1, "passed"), ("stream-mode/1", 2.0, "passed"),
                                    ("parallel[0]/0", 1.8, "passed")):
        spec = specs[run_id]
        events.append(RunStarted(spec=spec, argv=spec.argv, started_at="", t=t + 0.1))
        events.append(OutputLine(run_id=run_id, stream="stdout", text="Source: ftp://127.0.0.1:2811/dev/", t=t + 0.2))
        events.append(OutputLine(run_id=run_id, stream="stdout", text="Dest:   ftp://127.0.0.1:2811/dev/", t=t + 0.2))
        events.append(OutputLine(run_id=run_id, stream="stdout", text="  zero  ->  null", t=t + 0.2))
        events.append(RunFinished(record=record(spec, status, 2 << 30, seconds), t=t + 0.1 + seconds))
        t += seconds + 0.3
    spec = specs["parallel[0]/1"]
    events.append(RunStarted(spec=spec, argv=spec.argv, started_at="", t=t))
    for n, (nbytes, avg, inst) in enumerate(((620, 1240.0, 1240.0), (1350, 1350.0, 1460.0)), start=1):
        events.append(Progress(run_id=spec.run_id, bytes=nbytes * MIB, rate_avg_mib_s=avg, rate_inst_mib_s=inst,
                               elapsed_s=0.5 * n, length_bytes=2 << 30, t=t + 0.5 * n))
    return events


def monitor_events(seconds: int = 12) -> list:
    """A second a sample of cpu on the controller, net and tcp on two data-transfer nodes: a busy link
    on dtn1 with a few retransmissions, a quieter one on dtn2."""
    events: list = [SamplerStarted(host=host, monitors=monitors, clock_offset_s=0.0, clock_uncertainty_s=0.001,
                                   t=T0 - 0.5)
                    for host, monitors in (("local", ("cpu",)), ("dtn1", ("nic", "tcp")), ("dtn2", ("nic", "tcp")))]
    for n in range(seconds):
        t = T0 + n
        wave = (n * 7) % 5
        events.append(MonitorSample(monitor="cpu", type="cpu", host="local", sampled_t=t, utc="", span_s=1.0,
                                    values={"busy_pct": 35.0 + 9 * wave, "iowait_pct": 1.5, "load1": 1.2 + 0.1 * n}))
        for host, base in (("dtn1", 1050.0), ("dtn2", 300.0)):
            rx = base + 40 * wave if n else 0.0
            events.append(MonitorSample(monitor="nic", type="net", host=host, sampled_t=t, utc="", span_s=1.0,
                                        values={"eth0.rx_mib_s": rx, "eth0.tx_mib_s": rx / 40, "lo.rx_mib_s": 0.01,
                                                "lo.tx_mib_s": 0.01}))
            retrans = float(wave * 3 if host == "dtn1" else 0)
            events.append(MonitorSample(monitor="tcp", type="tcp", host=host, sampled_t=t, utc="", span_s=1.0,
                                        values={"connections": 4.0, "retrans_s": retrans, "rtt_ms_mean": 0.42,
                                                "cwnd_mean": 87.0, "delivery_mbit_s": 8 * rx}))
    return events


SIZES = pytest.mark.parametrize("size", [(80, 24), (160, 50)], ids=["80x24", "160x50"])


@SIZES
def test_scenario_view_mid_run(snap_compare, scenario_path, size):
    events = mid_run_events(scenario_path)
    assert snap_compare(app_for(scenario_path, events), terminal_size=size, run_before=feeding("1"))


@SIZES
def test_run_view_mid_run(snap_compare, scenario_path, size):
    events = mid_run_events(scenario_path)
    assert snap_compare(app_for(scenario_path, events), terminal_size=size, run_before=feeding("2"))


@SIZES
def test_threads_view_with_workers(snap_compare, scenario_path, size):
    spec = plan(load_scenario(scenario_path))[0]
    events: list = [ScenarioStarted(scenario="quickstart", results_dir=RESULTS, plan=(spec,), t=T0),
                    RunStarted(spec=spec, argv=spec.argv, started_at="", t=T0)]
    standin = GfapiStandIn(hosts=("client1", "client2"), threads=4)
    for h, host in enumerate(standin.hosts):
        for thread in range(standin.threads):
            mib = 3 * thread_speed(h, thread)
            state = "failed" if (h, thread) == (1, 3) else "running"
            events.append(WorkerProgress(run_id=spec.run_id, host=host, thread=thread, state=state, files=30 + thread,
                                         bytes=mib * MIB, ios=mib * 16, elapsed_s=1.5, files_total=200,
                                         error="EIO on /vol/d3/f31" if state == "failed" else "", t=T0 + 1.5))
    assert snap_compare(app_for(scenario_path, events), terminal_size=size, run_before=feeding("3"))


@SIZES
def test_autotune_view_finished(snap_compare, scenario_path, size):
    spec = plan(load_scenario(scenario_path))[0]
    events = [ScenarioStarted(scenario="quickstart", results_dir=RESULTS, plan=(spec,), t=T0),
              TuneUpdate(test_id=spec.test_id, strategy="adaptive", engine="simulated", transfers_used=40, budget=40,
                         margin_mib_s=20.0, rows=RANKING, leader=RANKING[0].candidate, finished=True,
                         p_within_margin=0.93, stop_reason="confident: P(within margin) 0.93 >= 0.9", t=T0 + 9)]
    assert snap_compare(app_for(scenario_path, events), terminal_size=size, run_before=feeding("4"))


def test_invalid_scenario(snap_compare, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    # Errors whose wording does not list the schema's kinds or keys, which other issues extend.
    Path("broken.yaml").write_text("version: 1\nname: broken\ntests:\n"
                                   "  - {id: a, kind: guc, source: s, target: t, repeat: many}\n"
                                   "  - {id: b, kind: guc, source: s, target: t, timeout: soon}\n")
    assert snap_compare(app_for("broken.yaml", []), terminal_size=(80, 24), run_before=feeding())


@SIZES
def test_results_view_case_statistics(snap_compare, tmp_path, monkeypatch, size):
    """The results view with a directory open: each case's parameters and statistics, then its runs."""
    monkeypatch.chdir(tmp_path)
    write_mixed(Path("results/20261122T100000Z-mixed"))
    assert snap_compare(app_for(None, []), terminal_size=size, run_before=feeding("5", "enter"))


def test_run_view_marks_a_simulated_run(snap_compare, scenario_path):
    events = mid_run_events(scenario_path, simulated=True)
    assert snap_compare(app_for(scenario_path, events), terminal_size=(80, 24), run_before=feeding("2"))


def test_run_view_two_hosts(snap_compare, scenario_path):
    """A batch on two hosts: the chart draws the aggregate and one line per host."""
    base = plan(load_scenario(scenario_path))[2]
    specs = tuple(replace(base, run_id=f"{base.run_id}@{host}", host=host, group=base.run_id)
                  for host in ("dtn1", "dtn2"))
    events: list = [ScenarioStarted(scenario="quickstart", results_dir=RESULTS, plan=specs, t=T0)]
    events += [RunStarted(spec=s, argv=s.argv, started_at="", t=T0) for s in specs]
    moved = {s.run_id: 0.0 for s in specs}
    for n in range(1, 25):
        t = 0.5 * n
        for s, rate in zip(specs, (600.0 + 15 * (n % 7), 250.0 + 80 * (n > 12)), strict=True):
            moved[s.run_id] += rate * 0.5
            events.append(Progress(run_id=s.run_id, bytes=int(moved[s.run_id] * MIB), rate_avg_mib_s=rate,
                                   rate_inst_mib_s=rate, elapsed_s=t, length_bytes=20 << 30, t=T0 + t))
    assert snap_compare(app_for(scenario_path, events), terminal_size=(160, 50), run_before=feeding("2"))


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_run_view_with_monitors(snap_compare, scenario_path, size):
    """The monitors panel: under the chart at 80 columns, beside it from 120, a sparkline per monitor and
    host; the runs in flight are traced (level shown, t switches it)."""
    events = mid_run_events(scenario_path)
    started = next(e for e in reversed(events) if isinstance(e, RunStarted))
    traced = replace(started.spec, details={**started.spec.details, "trace": {"level": "run"}})
    events[events.index(started)] = replace(started, spec=traced)
    events += monitor_events()
    events.append(TraceLevelChanged(run_id=traced.run_id, host="local", level="io", source="tui key t", t=NOW - 1))
    assert snap_compare(app_for(scenario_path, events), terminal_size=size, run_before=feeding("2"))


def violations_events(path: str) -> list:
    events = mid_run_events(path)
    checks = (Check("stream-mode", 0, "#000", "median_rate", ">= 900MiB/s", 975.1, "975.1 MiB/s", True),
              Check("parallel", 0, "#000 -p 1", "median_rate", ">= 1200MiB/s", 1137.8, "1137.8 MiB/s", False),
              Check("parallel", 0, "#000 -p 1", "cv", "< 5%", 7.4, "7.4 %", False))
    events.append(ExpectationsChecked(test_id="stream-mode", checks=checks[:1], t=T0 + 4.5))
    events.append(ExpectationsChecked(test_id="parallel", checks=checks[1:], t=NOW - 0.5))
    return events


def test_run_view_marks_violated_thresholds(snap_compare, scenario_path):
    """Thresholds (expect:) checked as tests end: the violated ones in red over the chart, in the log,
    and in the scenario view's note of the test."""
    assert snap_compare(app_for(scenario_path, violations_events(scenario_path)), terminal_size=(80, 24),
                        run_before=feeding("2"))
