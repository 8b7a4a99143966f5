"""What the workbench says of how a run ended is what happened: the header says "all passed" only when
the exit code is 0 (not when thresholds were violated, exit 8, nor when runs were skipped, exit 1),
and a filter that leaves out a test another one ``needs`` says why that test's runs are skipped, as
the headless run does ("needs warm, which was not selected to run")."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.live_events import PLAN, record, started
from support.polling import eventually_async
from support.quickstart_events import mid_run_events, write_quickstart
from support.tui import NOW, Notes, app_for, cells, standin_factory, write_scenario
from support.tui_standins import GfapiStandIn

from gftpwb.core.events import ScenarioFinished
from gftpwb.core.harness.agenda import Schedule, left_out_needs
from gftpwb.core.live import read
from gftpwb.core.records import Summary
from gftpwb.shell.frontend import exit_code
from gftpwb.shell.results_index import read_directory
from gftpwb.tui.app import WorkbenchApp

SIZE = (80, 24)


@pytest.fixture
def scenario_path(tmp_path, monkeypatch) -> str:
    monkeypatch.chdir(tmp_path)
    return write_quickstart(tmp_path)


def status_line(app: WorkbenchApp) -> str:
    return str(app.query_one("#status").render())


async def finished_with(scenario_path: str, summary: Summary) -> tuple[str, str, str]:
    """The header, the run view's head and its rates line once a run ended with ``summary``."""
    app = app_for(scenario_path, [])
    async with app.run_test(size=SIZE) as pilot:
        for event in mid_run_events(scenario_path):
            app.live(event)
        app.live(ScenarioFinished(summary=summary, t=NOW))
        await pilot.press("2")
        app.draw(force=True)
        await pilot.pause()
        rates = app.query_one("#run-rates")
        assert rates.content_region.width == SIZE[0] - 2
        return status_line(app), str(app.query_one("#run-head").render()), str(rates.render())


async def test_the_header_says_thresholds_were_violated_not_all_passed(scenario_path):
    """Every run passed but two thresholds were violated: exit 8, and the header says so (it said
    "all passed")."""
    summary = Summary(total=9, counts={"passed": 9}, violations=2)
    assert exit_code(summary) == 8
    header, _, rates = await finished_with(scenario_path, summary)
    assert "all passed, 2 threshold(s) violated" in header, header
    # nothing in flight: no "now -" and "average -", and the last run's rate whole at 80 columns
    assert rates == "moved in all 6.00 GiB   runs 3/9   last run 1137.8 MiB/s", rates


async def test_the_header_says_what_did_not_pass(scenario_path):
    """Runs skipped (nothing failed): exit 1, and the header counts them (it said "finished, some failed")."""
    summary = Summary(total=9, counts={"passed": 7, "skipped": 2})
    assert exit_code(summary) == 1
    header, _, _ = await finished_with(scenario_path, summary)
    assert "finished: 2 skipped" in header and "failed" not in header, header
    header, _, _ = await finished_with(scenario_path, Summary(total=9, counts={"passed": 9}))
    assert header.split("  ")[1] == "all passed"


def test_outcome_words_follow_the_exit_code():
    cases = [(Summary(total=2, counts={"passed": 2}), "all passed", 0),
             (Summary(total=2, counts={"passed": 2}, violations=1), "all passed, 1 threshold(s) violated", 8),
             (Summary(total=3, counts={"passed": 1, "failed": 1, "skipped": 1}), "finished: 1 failed, 1 skipped", 1),
             (Summary(total=3, counts={"passed": 1}, interrupted=True), "interrupted", 130)]
    for summary, words, code in cases:
        assert read.outcome(summary)[0] == words
        assert exit_code(summary) == code
        assert (read.outcome(summary)[1] == "ok") == (code == 0)


NEEDS = """\
  - id: warm
    kind: guc
    source: ftp://127.0.0.1:2811/dev/zero
    target: ftp://127.0.0.1:2811/dev/null
    options: {length: 1M}
  - id: main
    kind: guc
    needs: [warm]
    repeat: 2
    source: ftp://127.0.0.1:2811/dev/zero
    target: ftp://127.0.0.1:2811/dev/null
    options: {length: 1M}
"""


def test_left_out_needs_in_the_runs_words(tmp_path):
    from gftpwb.core.dsl.loader import load_scenario

    scenario = load_scenario(write_scenario(tmp_path, NEEDS))
    assert left_out_needs(Schedule.of(scenario), ["main"]) == {
        "main": "needs warm, which was not selected to run (--only, --where)"}
    assert left_out_needs(Schedule.of(scenario), ["warm", "main"]) == {}
    assert left_out_needs(Schedule.of(scenario), ["warm"]) == {}


async def test_a_filter_that_leaves_out_a_need_says_why_its_runs_are_skipped(tmp_path):
    """Filter ``main`` (which needs ``warm``) and press r: the run skips main's runs without starting
    guc, as ``gftpwb run --only main`` does; the TUI says why when r is pressed, in the scenario view's
    note and in the run view's head (before, only the scrolling log had it)."""
    path = write_scenario(tmp_path, NEEDS)
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"))
    notes = Notes(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"main", "enter", "r")
        await eventually_async(lambda: app.summary is not None, "the run's end", pause=pilot.pause)
        assert any("main: needs warm, which was not selected to run" in note for note, _ in notes.seen), notes.seen
        app.draw(force=True)
        await pilot.pause()
        head = str(app.query_one("#run-head").render())
        assert "skipped: needs warm, which was not selected to run" in head, head
        await pilot.press("1")
        await pilot.pause()
        (row,) = [r for r in read.test_rows(app.live) if r.test_id == "main"]
        assert row.status == "skipped" and "2 skipped: needs warm, which was not selected to run" in row.note
        table = app.query_one("#tests")
        assert any("2 skipped: needs warm" in str(cell) for key in table.keys for cell in table.row_cells(key))
    summary = read_directory(app.live.results_dir)
    assert [r.status for r in summary.records] == ["skipped", "skipped"]
    assert all(r.error == "needs warm, which was not selected to run (--only, --where)" for r in summary.records)
    assert Path(app.live.results_dir).is_dir()


# --- the threads view's totals add only what ran at the same time --------------------------------


async def test_thread_totals_do_not_add_runs_that_ran_one_after_another(tmp_path):
    """Two runs of a test, one after the other, each with 6 worker threads (stand-ins through the real
    executor): their rates are not one aggregate ("... MiB/s in all" summed both runs); the totals
    give each run's own sum, as the rate they had at a time."""
    path = write_scenario(tmp_path, "- {id: smallfiles, kind: guc, source: ftp://x/a, target: ftp://y/b, repeat: 2}\n")
    app = WorkbenchApp(path, results_base=str(tmp_path / "results"),
                       executor_factory=standin_factory(GfapiStandIn(steps=2)))
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.press("r")
        await eventually_async(lambda: app.summary is not None, "both runs", pause=pilot.pause)
        await pilot.press("3")
        await eventually_async(lambda: len(cells(app, "thread-table")) == 12, "twelve thread rows", pause=pilot.pause)
        totals = str(app.query_one("#thread-totals").render())
        rows = read.thread_rows(app.live)
        per_run = {run_id: sum(r.mib_s for r in rows if r.run_id == run_id) for run_id in ("smallfiles/0",
                                                                                             "smallfiles/1")}
        assert f"{sum(per_run.values()):.1f} MiB/s in all" not in totals, totals
        low, high = min(per_run.values()), max(per_run.values())
        assert f"{low:.1f} to {high:.1f} MiB/s in all at a time (2 runs one after another)" in totals, totals


def test_runs_that_overlapped_add_up_and_runs_after_them_do_not():
    """a and b overlap (concurrent tests), c starts as b ends: two groups, a+b then c."""
    from gftpwb.core.events import RunFinished, RunStarted
    from gftpwb.core.live.state import LiveState

    live = LiveState()
    live(started())
    a, b, c = PLAN[0], PLAN[2], PLAN[3]
    live(RunStarted(spec=a, argv=a.argv, started_at="", t=100.0))
    live(RunStarted(spec=b, argv=b.argv, started_at="", t=101.0))
    live(RunFinished(record=record(a), t=103.0))
    live(RunFinished(record=record(b), t=104.0))
    live(RunStarted(spec=c, argv=c.argv, started_at="", t=104.0))
    assert read.together(live, {a.run_id, b.run_id, c.run_id}) == {a.run_id: 0, b.run_id: 0, c.run_id: 1}
    from gftpwb.core.live.cells import thread_totals, totals_text
    from gftpwb.core.live.models import ThreadRow

    rows = [ThreadRow(key=run_id, run_id=run_id, host="h", thread="all", percent=None, mib=1.0, mib_s=rate, iops=None,
                      files_s=None, state="done") for run_id, rate in ((a.run_id, 10.0), (b.run_id, 20.0),
                                                                       (c.run_id, 5.0))]
    totals = thread_totals(rows, {}, read.together(live, {r.run_id for r in rows}))
    assert totals.at_a_time == (30.0, 5.0) and totals.mib_s is None
    assert "5.0 to 30.0 MiB/s in all at a time (2 groups of runs one after another)" in totals_text(totals)


def test_a_run_without_a_rate_yet_does_not_make_runs_look_overlapped():
    """Two runs one after another with rates and a third just started (its threads preparing, no rate
    yet): "2 runs one after another", not "groups of runs"."""
    from gftpwb.core.live.cells import thread_totals, totals_text
    from gftpwb.core.live.models import ThreadRow

    rows = [ThreadRow(key=f"{run_id}|{n}", run_id=run_id, host="h", thread=str(n), percent=None, mib=1.0,
                      mib_s=rate, iops=None, files_s=None, state="done" if rate else "preparing")
            for run_id, rate in (("a/0", 10.0), ("b/0", 20.0), ("c/0", None)) for n in range(2)]
    totals = thread_totals(rows, {}, {"a/0": 0, "b/0": 1, "c/0": 2})
    assert totals.at_a_time == (20.0, 40.0)
    assert "20.0 to 40.0 MiB/s in all at a time (2 runs one after another)" in totals_text(totals)
