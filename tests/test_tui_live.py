"""The run view's live side against real components, driven by Textual's Pilot: the trace key ``t``
switching a real gfapi worker from ``run`` to ``io`` mid-run (as SIGUSR2 does, tests/test_trace_real.py),
the monitors panel fed by the real sampler, thresholds (``expect:``) violated on screen and in what
the TUI prints when it closes."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest
from rich.console import Console
from support.polling import eventually_async
from support.tui import SIZE

from gftpwb.core.live import read
from gftpwb.core.trace.iofmt import OP_LEVEL, decode
from gftpwb.tui import launch
from gftpwb.tui.app import WorkbenchApp


def write_scenario(tmp_path: Path, body: str, name: str = "tuilive") -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"version: 1\nname: {name}\n" + textwrap.dedent(body))
    return str(path)


def recording_notes(app: WorkbenchApp) -> list[str]:
    """What the app tells the user (its toasts), as they are raised."""
    notes: list[str] = []
    notify = app.notify

    def record(message, *args, **kwargs):
        notes.append(str(message))
        return notify(message, *args, **kwargs)

    app.notify = record  # type: ignore[method-assign]
    return notes


def trace_lines(results: Path) -> list[dict]:
    return [json.loads(line) for line in (results / "trace.jsonl").read_text().splitlines()[1:]]


def workers_writing(app: WorkbenchApp) -> bool:
    return any(part.state == "running" and part.files for run in app.live.running.values()
               for part in run.parts.values())


@pytest.mark.real
async def test_t_switches_a_running_gfapi_worker_from_run_to_io(tmp_path):
    """A real gfapi worker (POSIX mode) traced at ``run``: ``t`` mid-run switches it to ``io``; the run
    view says so, trace.jsonl has the switch from the TUI, and the worker's own file has I/O events only
    from the switch on. Before the run, ``t`` says that nothing is in flight."""
    path = write_scenario(tmp_path, f"""\
        tests:
          - id: many
            kind: gfapi
            directory: {tmp_path / "files"}
            workload: seq-wr
            threads: 2
            files: 40000
            file_size: 1
            record_size: 1
            trace: run
            timeout: 2m
        """)
    results_base = tmp_path / "results"
    app = WorkbenchApp(path, results_base=str(results_base))
    notes = recording_notes(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2", "t")
        assert any("no run is in flight" in note for note in notes)
        await pilot.press("r")
        await eventually_async(lambda: workers_writing(app), "the workers to write files", pause=pilot.pause)
        (run_id,) = app.live.running
        assert read.trace_levels(app.live) == {run_id: "run"}
        await pilot.press("t")
        await eventually_async(lambda: read.trace_levels(app.live).get(run_id) == "io", "the switch to io",
                               pause=pilot.pause)
        assert any("trace level io asked of 1 run(s) in flight" in note for note in notes)
        app.draw(force=True)
        await pilot.pause()
        assert "trace io" in str(app.query_one("#run-head").render())
        await eventually_async(lambda: app.summary is not None, "the run to end", timeout=180, pause=pilot.pause)
    assert app.summary.all_passed
    results = Path(app.live.results_dir)
    trace = trace_lines(results)
    (mark,) = [r for r in trace if r.get("name") == "trace.level"]
    assert mark["args"] == {"level": "io", "source": "tui key t"}
    (index,) = [r for r in trace if r["type"] == "iofile"]
    _header, events = decode((results / index["path"]).read_bytes())
    levels = [e for e in events if e.op == OP_LEVEL]
    ios = [e for e in events if e.op != OP_LEVEL]
    assert [e.bytes for e in levels] == [2]  # switched to io once
    assert ios and all(e.start_ns + e.duration_ns >= levels[0].start_ns - 1_000_000 for e in ios)
    assert len(ios) < 2 * 40000 * 3  # what ran before the switch was not recorded


@pytest.mark.real
async def test_t_on_an_untraced_run_says_it_cannot_switch(tmp_path):
    """``trace: off`` (the default) has no trace file: ``t`` says so and nothing switches."""
    path = write_scenario(tmp_path, f"""\
        tests:
          - id: plain
            kind: gfapi
            directory: {tmp_path / "files"}
            workload: seq-wr
            threads: 1
            files: 40000
            file_size: 1
            record_size: 1
            timeout: 2m
        """)
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"))
    notes = recording_notes(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await eventually_async(lambda: workers_writing(app), "the worker to write files", pause=pilot.pause)
        await pilot.press("t")
        assert any("not traced (trace: off)" in note for note in notes)
        assert set(read.trace_levels(app.live).values()) == {"off"}
        app.action_stop()
        await eventually_async(lambda: app.summary is not None, "the stop", pause=pilot.pause)
    assert not (Path(app.live.results_dir) / "trace.jsonl").exists()


async def test_monitors_panel_shows_the_real_samplers_readings(tmp_path, fake_guc, monkeypatch):
    """A cpu and a memory monitor on this machine at 5 Hz during a run: the panel lists both with a
    sparkline of their history, the figures of the latest sample, and keeps them after the end."""
    path = write_scenario(tmp_path, """\
        monitors:
          - {id: cpu, type: cpu, interval: 0.2s}
          - {id: mem, type: memory, interval: 0.2s}
        tests:
          - {id: a, kind: guc, source: ftp://x/zero, target: ftp://y/null}
        """)
    monkeypatch.setenv("FAKE_GUC_STEP", "0.6")  # a run of about 2 s: ten samples of each monitor
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"), refresh_s=0.1)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("r")
        await eventually_async(lambda: app.summary is not None, "the run to end", pause=pilot.pause)
        app.draw(force=True)
        await pilot.pause()
        rows = {row.monitor: row for row in read.monitor_rows(app.live)}
        assert set(rows) == {"cpu", "mem"} and {row.host for row in rows.values()} == {"local"}
        assert len(rows["cpu"].series) >= 3 and all(0 <= v <= 100 for v in rows["cpu"].series)
        assert dict(rows["mem"].figures)["used"].endswith("MiB")
        panel = app.query_one("#monitors")
        text = str(panel.render())
        assert panel.display and "cpu local" in text and "busy" in text and "mem local" in text
        assert panel.border_title.startswith("monitors: 2 on 1 host(s)")
        samples = [json.loads(line) for line in (Path(app.live.results_dir) / "monitors.jsonl").read_text()
                   .splitlines()]
        assert sum(1 for s in samples if s.get("monitor") == "cpu" and "values" in s) >= rows["cpu"].samples


async def test_violated_thresholds_show_in_the_run_view_and_the_closing_summary(tmp_path, fake_guc):
    """A threshold no run can meet: the run view's expect line and head say VIOLATED, the scenario view
    notes it on the test, and what the TUI prints when it closes lists it as ``gftpwb run`` does."""
    path = write_scenario(tmp_path, """\
        tests:
          - id: a
            kind: guc
            source: ftp://x/zero
            target: ftp://y/null
            options: {length: 3M}
            repeat: 2
            expect: {median_rate: ">= 1000000GB/s", min_rate: "> 0"}
        """)
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await eventually_async(lambda: app.summary is not None and not app.running, "the run to end", pause=pilot.pause)
        app.draw(force=True)
        await pilot.pause()
        checks = str(app.query_one("#run-checks").render())
        assert "expect: 1 of 2 VIOLATED" in checks and "median_rate >= 1000000GB/s" in checks
        assert "1 threshold(s) violated" in str(app.query_one("#run-head").render())
        (row,) = read.test_rows(app.live)
        assert "expect: 1 violated" in row.note
    assert app.summary.violations == 1
    out = io.StringIO()
    launch.print_results(app, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    assert "Expectations: 1 of 2 violated" in text and "VIOLATED" in text and "met" in text
    assert text.rstrip().endswith(f"2 passed of 2 planned. Results: {app.live.results_dir}")
