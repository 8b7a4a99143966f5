"""The TUI workbench driven by Textual's Pilot: real loopback GridFTP runs, stop and quit, invalid
scenarios, the per-thread and auto-tune views (fed through the real executor by stand-in runners, see
support/tui_standins.py), past results and their diff, filter and export, 80x24 and resizing."""

from __future__ import annotations

import asyncio
import csv
import json
import re
import time
from pathlib import Path

import pytest
from support.polling import eventually_async
from support.processes import guc_processes
from support.results import records
from support.tui import SIZE, cells, standin_factory, write_scenario
from support.tui_standins import BUDGET, CANDIDATES, GfapiStandIn, TuneStandIn, thread_speed

from gftpwb.core.bus import EventBus
from gftpwb.core.format import p_text, rate_text
from gftpwb.core.live import read
from gftpwb.shell.executor import Executor
from gftpwb.shell.frontend import exit_code
from gftpwb.shell.results_index import read_directory
from gftpwb.tui.app import WorkbenchApp
from gftpwb.tui.results_view import ResultsView
from gftpwb.tui.views import ThreadsView
from gftpwb.tui.widgets import ChoiceScreen, ConfirmScreen, FastTable, LiveTable, RateChart

# --- real GridFTP -------------------------------------------------------------------------------


@pytest.mark.real
async def test_real_scenario_reaches_passed_with_a_rate(tmp_path, gridftp):
    path = write_scenario(tmp_path, f"""\
        - id: stream
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
          options: {{length: 256M}}
          repeat: 2
        - id: parallel
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
          options: {{length: 256M, parallel: 4}}
    """)
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert {k: v[3] for k, v in cells(app, "tests").items()} == {"stream": "queued", "parallel": "queued"}
        await pilot.press("r")
        await eventually_async(lambda: app.summary is not None, "the scenario to finish", pause=pilot.pause)
        await pilot.press("1")
        await pilot.pause()
        rows = cells(app, "tests")
        assert {k: (v[3], v[4]) for k, v in rows.items()} == {"stream": ("passed", "2/2"),
                                                              "parallel": ("passed", "1/1")}
        assert all(float(v[5]) > 0 for v in rows.values())
        journal = records(app.live.results_dir)
        assert [(r["run_id"], r["status"]) for r in journal] == [("stream/0", "passed"), ("stream/1", "passed"),
                                                                  ("parallel/0", "passed")]
        assert all(r["bytes"] == 256 << 20 and r["rate_incl_setup_mib_s"] > 0 for r in journal)
        assert exit_code(app.summary) == 0
        # The run view shows the finished state and the output guc printed.
        await pilot.press("2")
        await pilot.pause()
        head = str(app.query_one("#run-head").render())
        assert head.startswith("finished: 3 passed of 3 planned")
        assert "runs 3/3" in str(app.query_one("#run-rates").render())
        log_text = "\n".join(app.query_one("#log").lines)
        assert "Source:" in log_text and "passed: parallel/0" in log_text


@pytest.mark.real
async def test_stop_records_the_run_in_flight_as_interrupted(tmp_path, gridftp):
    path = write_scenario(tmp_path, f"""\
        - id: endless
          kind: guc
          source: {gridftp.url}/dev/zero
          target: file:///dev/null
          options: {{length: 2000G}}
          timeout: 300s
        - id: never
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
          options: {{length: 1M}}
    """)
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        # guc reports every 2 s for a client-side transfer: wait until the run view has a live rate.
        await eventually_async(lambda: read.run_panel(app.live, time.monotonic()).bytes_moved > 0, "live progress",
                               pause=pilot.pause)
        await pilot.press("s")
        await eventually_async(lambda: app.summary is not None, "the stop to be recorded", pause=pilot.pause)
        assert app.summary.interrupted and exit_code(app.summary) == 130
        journal = records(app.live.results_dir)
        assert [(r["run_id"], r["status"]) for r in journal] == [("endless/0", "interrupted")]
        assert journal[0]["bytes"] > 0  # what moved before the stop is kept
        assert (Path(app.live.results_dir) / "tuitest_#000_000.log").exists()
        await pilot.press("1")
        await pilot.pause()
        rows = cells(app, "tests")
        assert rows["endless"][3] == "interrupted"
        assert (rows["never"][3], rows["never"][6]) == ("skipped", "1 not run (stopped)")
    await eventually_async(lambda: guc_processes(str(gridftp.port)) == [], "guc gone after the stop",
                           detail=lambda: guc_processes(str(gridftp.port)))


# --- quit -------------------------------------------------------------------------------------------


async def test_quit_when_idle_exits_at_once(tmp_path):
    path = write_scenario(tmp_path, "- {id: a, kind: guc, source: ftp://x/a, target: ftp://y/b}\n")
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0 and not isinstance(app.screen, ConfirmScreen)
    assert not (tmp_path / "results").exists()


async def test_quit_while_running_asks_then_stops_and_keeps_the_record(tmp_path, fake_guc, monkeypatch):
    monkeypatch.setenv("FAKE_GUC_MODE", "hang")
    monkeypatch.setenv("FAKE_GUC_CHILD_PID", str(tmp_path / "child.pid"))
    path = write_scenario(tmp_path, "- {id: a, kind: guc, source: ftp://x/a, target: ftp://y/b, repeat: 2}\n")
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"),
                       executor_factory=lambda: Executor(EventBus(), kill_grace_s=1.0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await eventually_async(lambda: read.run_panel(app.live, time.monotonic()).bytes_moved > 0, "the run to report",
                               pause=pilot.pause)
        await pilot.press("q")
        await eventually_async(lambda: isinstance(app.screen, ConfirmScreen), "the question", pause=pilot.pause)
        await pilot.press("n")  # keep running
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen) and app.running and app.summary is None
        await pilot.press("q")
        await eventually_async(lambda: isinstance(app.screen, ConfirmScreen), "the question again", pause=pilot.pause)
        await pilot.press("y")
        await eventually_async(lambda: app.return_code is not None, "the app to exit", pause=pilot.pause)
        results_dir = app.live.results_dir
    assert app.summary is not None and app.summary.interrupted and exit_code(app.summary) == 130
    assert [(r["run_id"], r["status"]) for r in records(results_dir)] == [("a/0", "interrupted")]
    child = int((tmp_path / "child.pid").read_text())
    assert not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]


async def stopped_run(pilot, app: WorkbenchApp) -> str:
    """Start the scenario, stop it while its first run hangs, and return the results directory."""
    await pilot.press("r")
    await eventually_async(lambda: read.run_panel(app.live, time.monotonic()).bytes_moved > 0, "the run to report",
                           pause=pilot.pause)
    await pilot.press("s")
    await eventually_async(lambda: app.summary is not None, "the stop", pause=pilot.pause)
    assert app.summary.interrupted
    return app.live.results_dir


@pytest.mark.parametrize("answer", ["resume", "anew"])
async def test_r_after_a_stop_asks_to_resume_or_start_anew(tmp_path, fake_guc, monkeypatch, answer):
    monkeypatch.setenv("FAKE_GUC_MODE", "hang")
    monkeypatch.setenv("FAKE_GUC_CHILD_PID", str(tmp_path / "child.pid"))
    path = write_scenario(tmp_path, "- {id: a, kind: guc, source: ftp://x/a, target: ftp://y/b, repeat: 2}\n")
    base = tmp_path / "results"
    app = WorkbenchApp(path, results_base=str(base), executor_factory=lambda: Executor(EventBus(), kill_grace_s=1.0))
    async with app.run_test(size=SIZE) as pilot:
        first = await stopped_run(pilot, app)
        monkeypatch.setenv("FAKE_GUC_MODE", "ok")
        await pilot.press("r")
        await eventually_async(lambda: isinstance(app.screen, ChoiceScreen), "the question", pause=pilot.pause)
        assert "Resume" in str(app.screen.query_one("#confirm-question").render())
        await pilot.press("r" if answer == "resume" else "a")
        await eventually_async(lambda: app.summary is not None and not app.running, "the second attempt",
                               pause=pilot.pause)
        second = app.live.results_dir
    assert exit_code(app.summary) == 0
    if answer == "resume":
        assert second == first and len(list(base.iterdir())) == 1
        # the interrupted a/0 ran again (its final record supersedes the interrupted one), then a/1
        assert [(r["run_id"], r["status"]) for r in records(first)] == [
            ("a/0", "interrupted"), ("a/0", "passed"), ("a/1", "passed")]
    else:
        assert second != first and len(list(base.iterdir())) == 2
        assert [(r["run_id"], r["status"]) for r in records(first)] == [("a/0", "interrupted")]
        assert [(r["run_id"], r["status"]) for r in records(second)] == [("a/0", "passed"), ("a/1", "passed")]


async def test_r_after_a_stop_can_be_cancelled(tmp_path, fake_guc, monkeypatch):
    monkeypatch.setenv("FAKE_GUC_MODE", "hang")
    monkeypatch.setenv("FAKE_GUC_CHILD_PID", str(tmp_path / "child.pid"))
    path = write_scenario(tmp_path, "- {id: a, kind: guc, source: ftp://x/a, target: ftp://y/b}\n")
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"),
                       executor_factory=lambda: Executor(EventBus(), kill_grace_s=1.0))
    async with app.run_test(size=SIZE) as pilot:
        await stopped_run(pilot, app)
        await pilot.press("r")
        await eventually_async(lambda: isinstance(app.screen, ChoiceScreen), "the question", pause=pilot.pause)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ChoiceScreen) and not app.running


# --- invalid scenario, filter, export -----------------------------------------------------------------


async def test_invalid_scenario_shows_positions_and_does_not_run(tmp_path):
    path = write_scenario(tmp_path, "- {id: a, kind: guc, source: s, target: t, bogus: 1}\n")
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        shown = str(app.query_one("#diagnostics").render())
        assert f"{path}:4:44: unknown key 'bogus'" in shown
        assert not app.query_one("#tests").display
        await pilot.press("r")
        await pilot.pause()
        assert not app.running and not (tmp_path / "results").exists()
        # Fixed in an editor, reloaded with l: the tests are listed and can run.
        Path(path).write_text("version: 1\nname: tuitest\ntests:\n  - {id: a, kind: guc, source: s, target: t}\n")
        await pilot.press("l")
        await pilot.pause()
        assert app.diagnostics == [] and list(cells(app, "tests")) == ["a"]


async def test_a_preflight_refusal_is_shown_and_nothing_runs(tmp_path, fake_guc):
    """The TUI asks the same front-end preflight as ``gftpwb run``, host checks too (here a real ``stat`` on
    this machine, from a thread while the app's loop runs), and shows its message."""
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    closed.chmod(0o700)
    path = write_scenario(tmp_path, f"""\
        - id: disk
          kind: guc
          source: file://{closed}/src/
          target: ftp://localhost:2811/var/tmp/gftpwb-tuitest-never/
          files: {{size: 64K}}
    """)
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"))
    seen: list[tuple[str, str]] = []
    notify = app.notify

    def recording(message, *args, **kw):
        seen.append((str(message), kw.get("severity", "information")))
        return notify(message, *args, **kw)

    app.notify = recording  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await eventually_async(lambda: seen, "the refusal", pause=pilot.pause)
        assert seen == [(f"test 'disk', source: {closed} on local is mode 0700 (owner root): other users cannot pass "
                         "through it, and the GridFTP server may run the transfer as another user (the lab's servers "
                         f"run it as nobody), which gets \"Permission denied\"; run `chmod o+x {closed}` on local, or "
                         "put the test files under a directory every user can reach (such as /var/tmp/gftpwb); the "
                         "transfer was not started", "error")]
        assert not app.running and not (tmp_path / "results").exists() and not (tmp_path / "argv.log").exists()
    assert list(closed.iterdir()) == []


async def test_filter_narrows_the_view_and_what_runs(tmp_path, fake_guc):
    path = write_scenario(tmp_path, """\
        - {id: alpha, kind: guc, source: ftp://x/a, target: ftp://y/b, options: {length: 3M}}
        - {id: beta, kind: guc, source: ftp://x/a, target: ftp://y/b, options: {length: 3M}, repeat: 2}
    """)
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"bet", "enter")
        await pilot.pause()
        assert app.filter_text == "bet" and list(cells(app, "tests")) == ["beta"]
        await pilot.press("r")
        await eventually_async(lambda: app.summary is not None, "the run", pause=pilot.pause)
        assert [r["run_id"] for r in records(app.live.results_dir)] == ["beta/0", "beta/1"]
        meta = json.loads((Path(app.live.results_dir) / "meta.json").read_text())
        assert meta["command"] == ["gftpwb", "run", path, "--only", "beta", "--results", app.live.results_dir]
        await pilot.press("1", "slash", "home", "ctrl+k", "enter")  # clear the filter
        await pilot.pause()
        rows = cells(app, "tests")
        assert {k: (v[3], v[6]) for k, v in rows.items()} == {"alpha": ("skipped", "not selected"),
                                                              "beta": ("passed", "")}
        await pilot.press("e")
        await pilot.pause()
        (exported,) = Path(app.live.results_dir).glob("gftpwb-scenario-*.csv")
        table = list(csv.reader(exported.open()))
        assert table[0] == ["test", "kind", "host(s)", "status", "runs", "last MiB/s", "note"]
        assert [row[:5] for row in table[1:]] == [["alpha", "guc", "local", "skipped", "0/1"],
                                                  ["beta", "guc", "local", "passed", "2/2"]]


# --- per-thread and auto-tune views (stand-ins for the gfapi workers and the simulated auto-tune) ---


async def test_threads_view_shows_worker_rows_and_sorts(tmp_path):
    hold = asyncio.Event()
    path = write_scenario(tmp_path, "- {id: smallfiles, kind: guc, source: ftp://x/a, target: ftp://y/b}\n")
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"),
                       executor_factory=standin_factory(GfapiStandIn(hold=hold)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        all_moved = sum(4 * thread_speed(h, t) for h in range(2) for t in range(3)) << 20
        await eventually_async(lambda: read.run_panel(app.live, time.monotonic()).bytes_moved == all_moved, "workers",
                               pause=pilot.pause)
        await pilot.press("3")
        await eventually_async(lambda: len(cells(app, "thread-table")) == 6, "six thread rows", pause=pilot.pause)
        rows = cells(app, "thread-table")
        assert [(r[1], r[2]) for r in rows.values()] == [("c1", "0"), ("c1", "1"), ("c1", "2"),
                                                         ("c2", "0"), ("c2", "1"), ("c2", "2")]
        c2t2 = rows["smallfiles/0|c2|2"]
        mib = 4 * thread_speed(1, 2)
        # run, host, thread, %, MiB, MiB/s, rate bar (of the fastest), IOPS, files/s, state: 40 of 200
        # files in 2 s, 16 ios per MiB; c2's thread 2 is the fastest: a full bar
        assert c2t2 == ["smallfiles/0", "c2", "2", "20", f"{mib:.1f}", f"{mib / 2:.1f}", "1.000",
                        f"{mib * 16 / 2:.0f}", "20.0", "running"]
        slowest = rows["smallfiles/0|c1|0"]
        assert float(slowest[6]) == pytest.approx(thread_speed(0, 0) / thread_speed(1, 2), abs=1e-3)
        table = app.query_one("#thread-table", FastTable)
        bar_width = table._widths[6]
        assert bar_width > len("rate")  # the bar takes the width the other columns leave
        rates = [4 * thread_speed(h, t) / 2 for h in range(2) for t in range(3)]
        totals = str(app.query_one("#thread-totals").render())
        assert f"6 row(s)  ·  {sum(4 * thread_speed(h, t) for h in range(2) for t in range(3)):.1f} MiB" in totals
        assert f"{sum(rates):.1f} MiB/s in all" in totals
        assert f"per row {min(rates):.1f} to {max(rates):.1f} MiB/s (CV " in totals
        assert "done" not in totals  # no thread has finished yet
        view = app.query_one(ThreadsView)
        for _ in range(4):  # host -> thread -> percent -> mib -> mib_s
            await pilot.press("o")
        await pilot.press("O")
        await pilot.pause()
        assert view.sort_column == "mib_s" and view.sort_reverse
        speeds = [float(r[5]) for r in cells(app, "thread-table").values()]
        assert speeds == sorted(speeds, reverse=True) and speeds[0] == 4 * thread_speed(1, 2) / 2
        hold.set()
        await eventually_async(lambda: app.summary is not None, "the run to end", pause=pilot.pause)
        await pilot.pause(0.3)
        assert {r[9] for r in cells(app, "thread-table").values()} == {"done"}
        assert "6 done" in str(app.query_one("#thread-totals").render())


async def test_autotune_view_ranks_marks_ties_dims_eliminated_and_saves_the_line(tmp_path):
    path = write_scenario(tmp_path, """\
        - {id: tune, kind: guc, source: "ftp://127.0.0.1:2811/dev/zero", target: "ftp://127.0.0.1:2811/dev/null"}
    """)
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"),
                       executor_factory=standin_factory(TuneStandIn()))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4", "r")  # the view's keys work though it had no table when it was opened
        await eventually_async(lambda: app.summary is not None, "the tune to finish", pause=pilot.pause)
        await pilot.pause(0.3)
        rows = cells(app, "ranking")
        assert [r[1] for r in rows.values()] == [CANDIDATES[2], CANDIDATES[1], CANDIDATES[0], CANDIDATES[3]]
        assert [r[5] for r in rows.values()] == [
            "leader", "tied with #1 (±20 MB/s)", "eliminated after 4", "eliminated after 7"]
        assert rows[CANDIDATES[2]][2:5] == ["1180.0", "[1173, 1187]", "5"]
        # the notes under the table (wrapped), so the table needs no sideways scrolling at 80 columns
        notes = str(app.query_one("#tune-notes").render())
        assert " ".join(notes.split()) == "#4 2 failed; guc failed: 500 Command failed"
        table = app.query_one("#ranking", LiveTable)
        assert table.virtual_size.width <= table.size.width and SIZE[0] == 80
        styles = {key: table.row_cells(key)[1].style for key in table.keys}
        assert "on green" in str(styles[CANDIDATES[2]]) and str(styles[CANDIDATES[0]]) == "dim"
        assert str(app.query_one("#tune-budget-text").render()).strip() == f"{BUDGET}/{BUDGET} of the budget"
        line = str(app.query_one("#tune-line").render())
        expected = f"globus-url-copy {CANDIDATES[2]} ftp://127.0.0.1:2811/dev/zero ftp://127.0.0.1:2811/dev/null"
        assert line.startswith(f"final: {expected}")
        await pilot.press("c")
        assert app.clipboard == expected, (app.focused, app.screen.active_bindings.keys())
        await pilot.press("w")
        await pilot.pause()
        assert (Path(app.live.results_dir) / "autotune-tune.txt").read_text() == expected + "\n"


async def test_autotune_view_updates_as_each_transfer_completes(tmp_path):
    gate = asyncio.Semaphore(0)
    path = write_scenario(tmp_path, "- {id: tune, kind: guc, source: ftp://x/a, target: ftp://y/b}\n")
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"),
                       executor_factory=standin_factory(TuneStandIn(gate=gate)))

    def budget_text() -> str:
        return str(app.query_one("#tune-budget-text").render()).strip()

    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r", "4")
        marks_after: dict[int, list[str]] = {}
        for n in range(1, BUDGET + 1):
            gate.release()
            await eventually_async(lambda n=n: budget_text() == f"{n}/{BUDGET} of the budget", f"transfer {n}",
                                   pause=pilot.pause)
            marks_after[n] = [row[5] for row in cells(app, "ranking").values()]
            line = str(app.query_one("#tune-line").render())
            assert line.startswith("final: " if n == BUDGET else "leader so far: ")
        await eventually_async(lambda: app.summary is not None, "the end", pause=pilot.pause)
    # Round 1 ranks each candidate once; the hopeless one is dropped after transfer 4, the failing one after
    # 7; -p 8 is 22.5 MB/s behind after 8 transfers (no tie) and within 20 MB/s at the end (tied).
    assert marks_after[3] == ["leader", "", "", ""]
    assert marks_after[4][3] == "eliminated after 4"
    assert marks_after[8][:2] == ["leader", ""]
    assert marks_after[12][:2] == ["leader", "tied with #1 (±20 MB/s)"]


# --- past results -----------------------------------------------------------------------------------


async def test_results_view_lists_opens_and_diffs_two_runs(tmp_path, fake_guc, monkeypatch):
    path = write_scenario(tmp_path, """\
        - {id: a, kind: guc, source: ftp://x/a, target: ftp://y/b, options: {length: 3M}, matrix: {parallel: [1, 4]}}
    """)
    base = tmp_path / "results"
    app = WorkbenchApp(path, results_base=str(base))
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(2):
            await pilot.press("r")
            await eventually_async(lambda: app.summary is not None and not app.running, "a run", pause=pilot.pause)
            latest = app.live.results_dir
            app.summary = None
        await pilot.press("5")
        dirs = await eventually_async(lambda: len(cells(app, "dirs")) == 2 and cells(app, "dirs"),
                                      "both results directories listed", pause=pilot.pause)
        # the scenario is in the name (<stamp>-tuitest, or <stamp>-tuitest.1 when both runs began within the
        # same second), not said again after it
        assert len(dirs) == 2 and all(re.fullmatch(r"\d{8}T\d{6}Z-tuitest(\.1)?", row[1]) and row[3] == "2"
                                      for row in dirs.values()), dirs
        await pilot.press("enter")
        await eventually_async(lambda: list(cells(app, "records")) == ["a[0]/0", "a[1]/0"], "the opened runs",
                               pause=pilot.pause)
        assert [row[5] for row in cells(app, "records").values()] == ["-p 1 -len 3M", "-p 4 -len 3M"]  # parameters
        # Per case: its parameters, n, median, mean ± CI (none for one run), CV, thresholds (none here), runs,
        # figure, from core/summary.
        opened = read_directory(app.query_one(ResultsView)._open)
        case_rows = cells(app, "cases")
        assert len(case_rows) == len(opened.cases) == 2
        for case, row in zip(opened.cases, case_rows.values(), strict=True):
            stats = case.headline.stats
            assert row == [case.test_id, case.params_text, "1", rate_text(stats.median), rate_text(stats.mean), "-", "",
                           "1/1 passed", "rate incl. set-up (MiB/s)"]
        await pilot.press("m", "down", "m", "d")
        # the statistics libraries load in a worker thread on first use: wait for the comparison's rows
        compared = await eventually_async(lambda: cells(app, "compare"), "the comparison's rows", pause=pilot.pause)
        # gftpwb compare's rows (tests/test_tui_results.py checks them)
        assert [(row[0], row[2]) for row in compared.values()] == [("a", "-p 1 -len 3M"), ("a", "-p 4 -len 3M")]
        await pilot.press("e")
        (exported,) = await eventually_async(lambda: list(Path(latest).glob("gftpwb-compare-*.csv")),
                                             "the exported comparison", pause=pilot.pause)  # with the newer run, B
        assert next(csv.reader(exported.open()))[:3] == ["a", "b", "test"]
        assert app.query_one(ResultsView).display


# --- size -------------------------------------------------------------------------------------------


async def test_every_view_fits_80x24_and_follows_a_resize(tmp_path):
    path = write_scenario(tmp_path, "- {id: a, kind: guc, source: ftp://x/a, target: ftp://y/b}\n")
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"),
                       executor_factory=standin_factory(GfapiStandIn(steps=2)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await eventually_async(lambda: app.summary is not None, "the run", pause=pilot.pause)
        shown = {b.binding.key for b in app.screen.active_bindings.values() if b.binding.show}
        assert {"r", "s", "q", "slash", "e"} <= shown  # run, stop, quit, filter, export in the footer
        for key in "12345":
            await pilot.press(key)
            await pilot.pause()
            assert app.screen.size == SIZE
            assert app.query_one("#tabs").region.height == 22  # status line and footer around it
        await pilot.press("2")
        chart = app.query_one(RateChart)
        await eventually_async(lambda: chart.size.width > 0, "the run view's layout", pause=pilot.pause)
        narrow = chart.size.width
        await pilot.resize_terminal(132, 40)
        await eventually_async(lambda: chart.size.width > narrow, "the chart to widen", pause=pilot.pause)
        assert app.screen.size == (132, 40)
        app.draw(force=True)
        await pilot.pause()
        assert all(len(line) <= chart.size.width for line in str(chart.render()).splitlines())


async def test_live_table_updates_in_place_and_the_cursor_follows_its_row():
    from textual.app import App

    class TableApp(App):
        def compose(self):
            yield LiveTable([("name", "n"), ("rate", "r")], id="t")

    app = TableApp()
    async with app.run_test(size=SIZE) as pilot:
        table = app.query_one(LiveTable)
        table.show([("a", ["alpha", "1.0"]), ("b", ["[bold]b[/]", "2.0"]), ("c", ["gamma", "3.0"])])
        await pilot.pause()
        table.move_cursor(row=1)
        assert table.cursor_key() == "b"
        assert [str(c) for c in table.row_cells("b")] == ["[bold]b[/]", "2.0"]  # shown literally, not as markup
        table.show([("c", ["gamma", "30000.5"]), ("b", ["[bold]b[/]", "2.0"]), ("a", ["alpha", "1.0"])])
        await pilot.pause()
        assert table.keys == ["c", "b", "a"] and table.cursor_key() == "b"
        table.show([("b", ["[bold]b[/]", "2.0"]), ("c", ["gamma", "3.0"])])
        await pilot.pause()
        assert table.row_count == 2 and table.keys == ["b", "c"] and table.cursor_key() == "b"
        assert table.columns["r"].content_width >= len("30000.5")  # grew once, does not shrink on the fly


async def test_resume_in_the_tui_runs_only_what_is_left(tmp_path, fake_guc):
    from support.clihelp import gftpwb

    from gftpwb.core.dsl.loader import load_scenario
    from gftpwb.core.plan import plan
    from gftpwb.shell.session import RunRequest, prepare_run

    path = write_scenario(tmp_path, "- {id: a, kind: guc, source: ftp://x/a, target: ftp://y/b, repeat: 3}\n")
    results = tmp_path / "r"
    assert gftpwb("run", path, "--results", str(results)).returncode == 0
    journal_path = results / "results.jsonl"
    journal_path.write_text("".join(journal_path.read_text().splitlines(keepends=True)[:2]))  # a/2 never ended
    scenario = load_scenario(path)
    prepared = prepare_run(RunRequest(scenario=scenario, specs=plan(scenario), results_dir=str(results),
                                      command=["gftpwb", "run", path, "--resume", str(results), "--tui"], resume=True))
    app = WorkbenchApp(path, prepared=prepared, results_base=str(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await eventually_async(lambda: app.summary is not None, "the resumed run", pause=pilot.pause)
        await pilot.press("1")
        await pilot.pause()
        assert cells(app, "tests")["a"][3:5] == ["passed", "3/3"]
        assert cells(app, "tests")["a"][6] == "2 done earlier"
    assert [r["run_id"] for r in records(str(results))] == ["a/0", "a/1", "a/2"]
    assert exit_code(app.summary) == 0


async def test_fast_table_draws_rows_follows_the_cursor_scrolls_and_sorts_on_header_clicks():
    from textual.app import App

    from gftpwb.tui.widgets import FastTable

    clicked: list[str] = []

    class TableApp(App):
        def compose(self):
            yield FastTable([("host", "host", "left"), ("MiB/s", "mib_s", "right")], id="t")

        def on_fast_table_header_selected(self, event):
            clicked.append(event.column_key)

    app = TableApp()
    async with app.run_test(size=(40, 10)) as pilot:
        table = app.query_one(FastTable)
        table.focus()
        rows = [(f"c{i}", [f"c{i}", f"{i * 10.0:.1f}"]) for i in range(30)]
        table.show(rows)
        await pilot.pause()
        assert table.render_line(0).text.rstrip() == " host  MiB/s"
        assert table.render_line(2).text.rstrip() == " c1     10.0"  # numbers right-aligned
        await pilot.press("down", "down")
        assert table.cursor_key() == "c2"
        table.show(list(reversed(rows)))  # a new order: the cursor stays on its row
        assert table.cursor_key() == "c2" and table.keys[0] == "c29"
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_key() == "c0" and table.scroll_y > 0  # scrolled to keep the cursor in view
        table.set_row("c0", ["c0", "999.9"])
        assert [str(c) for c in table.row_cells("c0")] == ["c0", "999.9"]
        table.show(rows[:3])
        assert table.row_count == 3 and table.cursor_key() == "c0"
        await pilot.click(FastTable, offset=(12, 0))  # the MiB/s header
        await pilot.click(FastTable, offset=(2, 0))  # the host header
        assert clicked == ["mib_s", "host"]


@pytest.mark.real
async def test_a_group_on_two_ssh_hosts_runs_there_shows_both_and_stops(netlab, tmp_path):
    """The TUI's own executor goes through the scenario's SSH transports (real sshd in namespaces)."""
    from support.labhosts import hosts_yaml, netns_of, started_by_gftpwb

    controller = netlab.status()["controller_address"]
    path = tmp_path / "fan.yaml"
    path.write_text(f"version: 1\nname: fan\n{hosts_yaml(netlab)}tests:\n"
                    f"  - {{id: fan, kind: guc, on: [h1, h2], source: 'ftp://{controller}:2811/dev/zero',"
                    " target: 'file:///dev/null', options: {length: 2000G}, timeout: 300s}\n")
    app = WorkbenchApp(str(path), results_base=str(tmp_path / "results"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await eventually_async(lambda: all(started_by_gftpwb(netns_of(netlab, h)) for h in ("h1", "h2")),
                       "guc in both namespaces", pause=pilot.pause)
        await eventually_async(lambda: len(read.run_panel(app.live, time.monotonic()).running) == 2,
                       "two runs in flight", pause=pilot.pause)
        app.draw(force=True)
        await pilot.pause()
        assert "2 runs in flight: fan/0@h1, fan/0@h2" in str(app.query_one("#run-head").render())
        await pilot.press("1")
        await pilot.pause()
        assert cells(app, "tests")["fan"][2:4] == ["h1, h2", "running"]
        await pilot.press("s")
        await eventually_async(lambda: app.summary is not None, "the stop", pause=pilot.pause)
        assert sorted((r["run_id"], r["status"], r["host"]) for r in records(app.live.results_dir)) == [
            ("fan/0@h1", "interrupted", "h1"), ("fan/0@h2", "interrupted", "h2")]
    for host in ("h1", "h2"):
        assert not [cmd for _, cmd in started_by_gftpwb(netns_of(netlab, host)) if "globus-url-copy" in cmd]


async def test_autotune_view_on_the_real_simulated_engine(tmp_path):
    """The auto-tune runner and simulated engine, through the real session: the view shows the
    engine's final ranking row for row, with the leader, tie and elimination marks it implies."""
    from gftpwb.core.dsl.loader import load_scenario
    from gftpwb.core.events import TuneUpdate
    from gftpwb.core.plan import plan
    from gftpwb.shell.session import RunRequest, prepare_run

    path = write_scenario(tmp_path, """\
        - id: tune
          kind: autotune
          strategy: adaptive
          source: gsiftp://dtn1.example.org/
          target: gsiftp://dtn2.example.org/
          engine: simulated
          link: {bandwidth: 10Gbit/s, rtt: 20ms, buffer_cap: 16M, noise: 3%, seed: 1, time_scale: 0}
    """)
    scenario = load_scenario(path)
    updates: list[TuneUpdate] = []
    results = tmp_path / "r"
    prepared = prepare_run(RunRequest(scenario=scenario, specs=plan(scenario), results_dir=str(results),
                                      command=["gftpwb", "run", path, "--tui"],
                                      subscribers=[lambda e: updates.append(e) if isinstance(e, TuneUpdate) else None]))
    app = WorkbenchApp(path, prepared=prepared, results_base=str(tmp_path))
    async with app.run_test(size=(100, 60)) as pilot:
        await eventually_async(lambda: app.summary is not None, "the simulated tune", pause=pilot.pause)
        await pilot.press("4")
        await pilot.pause(0.3)
        final = updates[-1]
        assert final.finished and final.engine == "simulated" and len(updates) > 10
        facts = str(app.query_one("#tune-facts").render())
        assert final.p_within_margin is not None and f"P(within margin) {p_text(final.p_within_margin)}" in facts
        assert f"stop reason {final.stop_reason or 'ran its plan'}" in facts
        # what the history did (nothing here: the results base holds no earlier campaign)
        assert final.warm_start == "cold search: no earlier campaign in the history"
        assert f"start {final.warm_start}" in facts
        assert "SIMULATED" in str(app.query_one("#tune-head").render())
        panel = read.tune(app.live)
        pick = next(r for r in panel.rows if r.candidate == final.leader)
        # the chart plots every candidate's mean and CI, and the band of the margin under the pick
        assert app.query_one("#tune-chart")._key[:3] == (panel.rows, pick.mean_mib_s, final.margin_mib_s)
        rows = cells(app, "ranking")
        assert list(rows) == [r.candidate for r in final.rows]
        table = app.query_one("#ranking", LiveTable)
        tied = 0
        for ranking_row in final.rows:
            shown = rows[ranking_row.candidate]
            style = str(table.row_cells(ranking_row.candidate)[1].style)
            assert shown[4] == str(ranking_row.runs)
            if ranking_row.eliminated:
                assert shown[5].startswith("eliminated") and style == "dim"
            elif ranking_row.candidate == final.leader:
                assert shown[5] == "leader" and "on green" in style
            elif ranking_row.tied_with_leader:
                tied += 1
                assert shown[5] == f"tied with #1 (±{final.margin_mib_s:g} MB/s)"
        assert tied >= 1 and any(r.eliminated for r in final.rows)  # this seeded link exercises both marks
        budget = str(app.query_one("#tune-budget-text").render()).strip()
        assert budget == f"{final.transfers_used}/{final.budget} of the budget"
        assert str(app.query_one("#tune-line").render()).startswith(f"final: globus-url-copy {final.leader} ")
        await pilot.press("1")
        await pilot.pause()
        test_row = cells(app, "tests")["tune"]
        assert test_row[1:5] == ["autotune", "local", "passed", "1/1"]
        assert test_row[6].startswith(f"SIMULATED, {final.transfers_used} transfers")  # marked as simulated


@pytest.mark.real
async def test_threads_view_on_real_gfapi_workers(tmp_path, gluster):
    """The gfapi workers on a real GlusterFS volume: one row per worker thread, as the record says."""
    import uuid

    path = write_scenario(tmp_path, f"""\
        - id: smallfiles
          kind: gfapi
          volume: {{name: {gluster.volume}, server: {gluster.address}}}
          directory: /gftpwb-tui-{uuid.uuid4().hex[:8]}
          workload: seq-wr
          processes: 2
          threads: 4
          files: 100
          file_size: 64K
          record_size: 16K
          timeout: 2m
    """)
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("3", "r")
        await eventually_async(lambda: app.summary is not None, "the gfapi run", pause=pilot.pause)
        await pilot.pause(0.5)
        (record,) = records(app.live.results_dir)
        assert record["status"] == "passed", record["error"]
        rows = list(cells(app, "thread-table").values())
        threads = record["details"]["gfapi"]["threads"]
        assert len(rows) == len(threads) == 8
        assert sorted((r[1], int(r[2])) for r in rows) == sorted((t["host"], int(t["thread"])) for t in threads)
        for row in rows:
            # run, host, thread, %, MiB, MiB/s, bar, IOPS, files/s, state: 100 files of 64 KiB each, all done
            assert row[3] == "100" and float(row[4]) == pytest.approx(100 * 64 / 1024, abs=0.05)
            assert 0 < float(row[6]) <= 1
            assert float(row[5]) > 0 and float(row[7]) > 0 and float(row[8]) > 0 and row[9] == "done"
