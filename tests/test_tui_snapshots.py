"""SVG snapshots of the workbench at 80x24, made stable: a fixed clock, events with fixed timestamps
(a realistic mid-run moment of a loopback scenario, worker threads and an auto-tune ranking), no
cursor blink, no toasts, and relative paths. Update with ``pytest --snapshot-update`` after looking at
the report; the SVGs live in tests/__snapshots__/."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from support.live_events import RANKING
from support.quickstart_events import RESULTS, T0, mid_run_events, write_quickstart
from support.report_fixture import write_mixed
from support.tui import NOW, app_for, feeding
from support.tui_standins import GfapiStandIn, thread_speed

from gftpwb.core.checks import Check
from gftpwb.core.dsl.loader import load_scenario
from gftpwb.core.events import (
    ExpectationsChecked,
    MonitorSample,
    Progress,
    RunStarted,
    SamplerStarted,
    ScenarioStarted,
    TraceLevelChanged,
    TuneUpdate,
    WorkerProgress,
)
from gftpwb.core.live.models import MIB
from gftpwb.core.plan import plan


@pytest.fixture
def scenario_path(tmp_path, monkeypatch) -> str:
    monkeypatch.chdir(tmp_path)  # relative paths on screen, and no results/ to list
    return write_quickstart(tmp_path)


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
    # client2 was lost mid-run (its four threads failed with one long error) and one of client1's threads
    # failed alone: the failed rows are in no total, and every error is there whole, each once
    standin = GfapiStandIn(hosts=("client1", "client2"), threads=4)
    lost = ("client2 p0: lost the worker's connection: client2: the SSH connection closed: Connection lost while "
            "reading the worker's output (the host dropped out or its sshd was stopped)")
    for h, host in enumerate(standin.hosts):
        for thread in range(standin.threads):
            mib = 3 * thread_speed(h, thread)
            eio = "client1 p0 thread 3: write /vol/d3/f31: Input/output error"
            error = lost if h == 1 else eio if thread == 3 else ""
            events.append(WorkerProgress(run_id=spec.run_id, host=host, thread=thread,
                                         state="failed" if error else "running", files=30 + thread, bytes=mib * MIB,
                                         ios=mib * 16, elapsed_s=1.5, files_total=200, error=error, t=T0 + 1.5))
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
