"""What the workbench says of how a run ended is what happened: the header says "all passed" only when
the exit code is 0 (not when thresholds were violated, exit 8, nor when runs were skipped, exit 1),
and a filter that leaves out a test another one ``needs`` says why that test's runs are skipped, as
the headless run does ("needs warm, which was not selected to run")."""

from __future__ import annotations

from pathlib import Path

from gftpwb.tui.app import WorkbenchApp
from test_tui import wait_for, write_scenario
from test_tui_live import recording_notes
from test_tui_snapshots import NOW, app_for, mid_run_events, scenario_path  # noqa: F401 (a fixture)

from gftpwb.core.events import ScenarioFinished
from gftpwb.core.harness.agenda import Schedule, left_out_needs
from gftpwb.core.live import read
from gftpwb.core.records import Summary
from gftpwb.shell.frontend import exit_code
from gftpwb.shell.results_index import read_directory

SIZE = (80, 24)


def status_line(app: WorkbenchApp) -> str:
    return str(app.query_one("#status").render())


async def finished_with(scenario_path: str, summary: Summary) -> tuple[str, str]:  # noqa: F811
    """The header and the run view's head once a run ended with ``summary``."""
    app = app_for(scenario_path, [])
    async with app.run_test(size=SIZE) as pilot:
        for event in mid_run_events(scenario_path):
            app.live(event)
        app.live(ScenarioFinished(summary=summary, t=NOW))
        await pilot.press("2")
        app.draw(force=True)
        await pilot.pause()
        return status_line(app), str(app.query_one("#run-head").render())


async def test_the_header_says_thresholds_were_violated_not_all_passed(scenario_path):  # noqa: F811
    """Every run passed but two thresholds were violated: exit 8, and the header says so (it said
    "all passed")."""
    summary = Summary(total=9, counts={"passed": 9}, violations=2)
    assert exit_code(summary) == 8
    header, _ = await finished_with(scenario_path, summary)
    assert "all passed, 2 threshold(s) violated" in header, header


async def test_the_header_says_what_did_not_pass(scenario_path):  # noqa: F811
    """Runs skipped (nothing failed): exit 1, and the header counts them (it said "finished, some failed")."""
    summary = Summary(total=9, counts={"passed": 7, "skipped": 2})
    assert exit_code(summary) == 1
    header, _ = await finished_with(scenario_path, summary)
    assert "finished: 2 skipped" in header and "failed" not in header, header
    header, _ = await finished_with(scenario_path, Summary(total=9, counts={"passed": 9}))
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
    notes = recording_notes(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *"main", "enter", "r")
        await wait_for(pilot, lambda: app.summary is not None, "the run's end")
        assert any("main: needs warm, which was not selected to run" in note for note in notes), notes
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
