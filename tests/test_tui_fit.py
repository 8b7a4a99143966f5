"""Everything the workbench shows at 80x24 is readable whole: the key bar of every view ends with a
whole key (it ended in "q Q"), the results view's cases can be told apart (their parameters were
off-screen, so two cases looked the same), the comparison's verdict is not cut ("no s"), and the
report tables cut no number ("939.8 ± 22"): they are drawn at the view's width, in parts, as
``gftpwb report`` prints them."""

from __future__ import annotations

import io
import json
import shutil

import pytest
from rich.console import Console
from rich.text import Text
from support.live_events import RANKING
from support.polling import eventually_async
from support.quickstart_events import mid_run_events, write_quickstart
from support.results_pair import write_pair
from textual.widgets import Log, Static
from textual.widgets._footer import FooterKey

from gftpwb.core.dsl.loader import load_scenario
from gftpwb.core.events import RunStarted, ScenarioStarted, TuneUpdate, WorkerProgress
from gftpwb.core.live.cells import TUNE_COLUMNS
from gftpwb.core.live.models import MIB
from gftpwb.core.plan import plan
from gftpwb.core.report_tables import directory_tables
from gftpwb.shell.results_index import read_directory
from gftpwb.tui.app import VIEWS, WorkbenchApp
from gftpwb.tui.results_view import CASE_COLUMNS
from gftpwb.tui.run_view import command_lines
from gftpwb.tui.widgets import FastTable, LiveTable


@pytest.fixture
def scenario_path(tmp_path, monkeypatch) -> str:
    monkeypatch.chdir(tmp_path)
    return write_quickstart(tmp_path)


SIZES = [(80, 24), (160, 50)]
IDS = ["80x24", "160x50"]


async def results_listed(pilot, app: WorkbenchApp) -> None:
    """Show the results view and wait until it lists the two directories (newest first, highlighted)."""
    await pilot.press("5")
    await eventually_async(lambda: len(app.query_one("#dirs", LiveTable).keys) == 2, "the results directories",
                           pause=pilot.pause)


def footer_keys(app: WorkbenchApp) -> list[tuple[str, bool]]:
    """Each key shown in the key bar, and whether it is whole on the screen."""
    width = app.size.width
    return [(f"{key.key_display} {key.description}", key.region.right <= width and key.region.width > 0)
            for key in app.query(FooterKey)]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_every_views_key_bar_fits(tmp_path, scenario_path, size):
    """At 80 columns the results view's bar ended in "q Q" (Quit cut) and the filter key was gone."""
    write_pair(tmp_path / "results")
    app = WorkbenchApp(scenario_path, results_base=str(tmp_path / "results"), stable=True)
    async with app.run_test(size=size) as pilot:
        for n, (key, _label, _view) in enumerate(VIEWS, start=1):
            await pilot.press(str(n))
            await pilot.pause()
            shown = footer_keys(app)
            assert shown and all(whole for _, whole in shown), (key, shown)
            assert any(text.endswith("Quit") for text, _ in shown), (key, shown)


def screen_rows(app: WorkbenchApp, table_id: str) -> list[str]:
    """The rows of a table as they are on the screen: cut at the screen's right edge."""
    table = app.query_one(f"#{table_id}", LiveTable)
    width = app.size.width - table.region.x
    out = []
    for key in table.keys:
        cells = [str(cell) for cell in table.row_cells(key)]
        line = ""
        for cell, column in zip(cells, table.ordered_columns, strict=True):
            line += cell[:column.get_render_width(table) - 2].ljust(column.get_render_width(table) - 2) + "  "
        out.append(line[:width])
    return out


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_cases_are_told_apart_on_screen(tmp_path, size):
    """The fixture's ``sweep`` has two cases (-p 1 and -p 4): on screen, at 80 columns too, their rows
    differ (test, parameters and the statistics were the same width of screen; parameters came last)."""
    write_pair(tmp_path / "results")
    app = WorkbenchApp(None, results_base=str(tmp_path / "results"))
    async with app.run_test(size=size) as pilot:
        await results_listed(pilot, app)
        await pilot.press("enter")
        await eventually_async(lambda: len(app.query_one("#cases", LiveTable).keys) > 2, "the cases", pause=pilot.pause)
        rows = screen_rows(app, "cases")
        sweep = [row for row in rows if row.startswith("sweep")]
        assert len(sweep) == 2 and sweep[0] != sweep[1], rows
        assert "-p 1" in sweep[0] and "-p 4" in sweep[1], rows
        headers = [str(column.label) for column in app.query_one("#cases", LiveTable).ordered_columns]
        assert headers[:4] == ["test", "parameters", "n", "median"]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_comparisons_verdict_is_whole_on_screen(tmp_path, size):
    write_pair(tmp_path / "results")
    app = WorkbenchApp(None, results_base=str(tmp_path / "results"))
    async with app.run_test(size=size) as pilot:
        await results_listed(pilot, app)
        await pilot.press("m", "down", "m", "d")
        await eventually_async(lambda: len(app.query_one("#compare", LiveTable).keys) >= 4, "the comparison",
                               pause=pilot.pause)
        table = app.query_one("#compare", LiveTable)
        verdicts = [str(table.row_cells(key)[_column(table, "verdict")]) for key in table.keys]
        rows = screen_rows(app, "compare")
        assert len(rows) == len(verdicts) >= 4
        for row, verdict in zip(rows, verdicts, strict=True):
            assert verdict in row, (verdict, row)


def columns_on_screen(app: WorkbenchApp, table: LiveTable) -> list[tuple[str, str]]:
    """Each column of a table: "whole" (its header and cells inside the screen), "past" (it starts past
    the right edge: reached by scrolling) or "cut" (the edge runs through it)."""
    visible = table.scrollable_content_region.width
    out, start = [], 0
    for column in table.ordered_columns:
        end = start + column.get_render_width(table)
        out.append((str(column.label), "whole" if end <= visible else "past" if start >= visible else "cut"))
        start = end
    return out


def folded_lines(widget: Static) -> list[str]:
    """What a Static says, folded at its width as the screen shows it."""
    width = widget.content_region.width
    console = Console(width=width, file=io.StringIO())
    return [line.plain for line in Text(str(widget.content)).wrap(console, width)]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_comparisons_head_and_columns_are_whole(tmp_path, size):
    """At 80 columns the comparison's counts were cut at the right edge ("3 with too few"), the last
    column's header too ("95 % CI of chang"), and a number could be cut where the edge ran through it:
    every line of the head shows whole, the columns through the change's CI are on screen whole (the
    CI's level said in the head), and a column is either whole or past the edge."""
    write_pair(tmp_path / "results")
    app = WorkbenchApp(None, results_base=str(tmp_path / "results"))
    async with app.run_test(size=size) as pilot:
        await results_listed(pilot, app)
        await pilot.press("m", "down", "m", "d")
        await eventually_async(lambda: len(app.query_one("#compare", LiveTable).keys) >= 4, "the comparison",
                               pause=pilot.pause)
        head = app.query_one("#detail-head", Static)
        lines = folded_lines(head)
        assert len(lines) <= head.content_region.height, (lines, head.content_region)
        said = " ".join(line.strip() for line in lines)
        assert "5 compared: 1 faster, 0 slower, 1 without a significant change, 3 with too few runs to say" in said
        assert "CI: 95 %, the test inverted (none where it cannot decide)" in said
        shown = columns_on_screen(app, app.query_one("#compare", LiveTable))
        assert [label for label, _ in shown][:6] == ["test", "#", "parameters", "change", "verdict", "CI of change"]
        assert all(where == "whole" for _, where in shown[:6]), shown
        assert all(where != "cut" for _, where in shown), shown


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_directories_list_is_whole(tmp_path, size):
    """At 80 columns the list of results directories cut its expect cell ("1/2 viola" of a directory
    named as a run names it, <stamp>-<scenario of 10 letters>): every column is on screen whole; a
    directory whose name does not say its scenario says it after the name."""
    results = tmp_path / "results"
    for directory, name in zip(write_pair(results), ("first", "20261123T100000Z-mixedstudy"), strict=True):
        meta = json.loads((directory / "meta.json").read_text())
        (directory / "meta.json").write_text(json.dumps({**meta, "scenario": "mixedstudy"}))
        directory.rename(results / name)
    app = WorkbenchApp(None, results_base=str(results))
    async with app.run_test(size=size) as pilot:
        await results_listed(pilot, app)
        dirs = app.query_one("#dirs", LiveTable)
        assert all(where == "whole" for _, where in columns_on_screen(app, dirs)), columns_on_screen(app, dirs)
        names = {str(dirs.row_cells(key)[1]) for key in dirs.keys}
        assert names == {"20261123T100000Z-mixedstudy", "first  scenario mixedstudy"}, names


def _column(table: LiveTable, label: str) -> int:
    return [str(column.label) for column in table.ordered_columns].index(label)


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_report_tables_cut_no_number(tmp_path, size):
    """Every cell of every report table is whole on screen (the tables fold and split into parts at
    the view's width instead of running past its right edge)."""
    base = tmp_path / "results"
    write_pair(base)
    app = WorkbenchApp(None, results_base=str(base))
    async with app.run_test(size=size) as pilot:
        await results_listed(pilot, app)
        await pilot.press("t")
        await eventually_async(lambda: "t: cases" in str(app.query_one("#detail-head").render()), "the report",
                               pause=pilot.pause)
        body = app.query_one("#report-body")
        view = app.query_one("#report")
        assert body.region.width <= view.region.width, (body.region, view.region)
        console = Console(width=body.content_region.width, record=True, file=io.StringIO())
        console.print(body.content)
        text = console.export_text()
        path = sorted(p for p in base.iterdir() if p.is_dir())[-1]
        numbers = [cell for table in directory_tables(read_directory(str(path))) for cells, _ in table.rows
                   for cell in cells if cell and cell[0].isdigit() and " " not in cell]
        missing = [number for number in numbers if number not in text]
        assert numbers and not missing, (missing, text)
        assert all(len(line) <= body.content_region.width for line in text.splitlines())


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_run_views_command_shows_its_source_and_target(scenario_path, size):
    """At 80 columns the run's ``$ globus-url-copy …`` line was cut at the right edge, in the head and in
    the output log, and the target URL was lost: both show the source and the target, in lines that fit."""
    events = mid_run_events(scenario_path)
    command = next(e for e in reversed(events) if isinstance(e, RunStarted)).spec.argv
    source, target = command[-2:]
    app = WorkbenchApp(scenario_path, results_base="results", stable=True)
    async with app.run_test(size=size) as pilot:
        for event in events:
            app.live(event)
        await pilot.press("2")
        await eventually_async(lambda: "$ globus-url-copy" in str(app.query_one("#run-cmd", Static).render()),
                               "the run's command", pause=pilot.pause)
        shown = app.query_one("#run-cmd", Static)
        lines = str(shown.render()).splitlines()
        assert len(lines) <= shown.content_region.height and all(len(line) <= shown.content_region.width
                                                                 for line in lines), (lines, shown.content_region)
        assert source in lines[0] and target in lines[-1], lines
        log = app.query_one("#log", Log)
        logged = [line for line in log.lines if len(line) > log.scrollable_content_region.width]
        assert not logged, logged
        assert target in "\n".join(log.lines)


COMMAND = "globus-url-copy -vb -fast -p 4 -cc 2 -len 2G ftp://h:2811/dev/zero ftp://h:2811/dev/null"


@pytest.mark.parametrize(("width", "expected"), [
    (90, f"$ {COMMAND}"),
    (60, "$ globus-url-copy -vb -fast -p 4 -cc 2 -len 2G\nftp://h:2811/dev/zero ftp://h:2811/dev/null"),
    (45, "$ globus-url-copy -vb -fast -p 4 -cc 2 -len …\n… ftp://h:2811/dev/zero ftp://h:2811/dev/null"),
    (42, "$ globus-url-copy … ftp://h:2811/dev/zero\n  ftp://h:2811/dev/null"),
    (30, "$ globus-url-copy … ftp:/…zero\n  ftp://h:2811/dev/null"),
])
def test_a_command_wraps_and_then_folds_its_middle(width, expected):
    """Whole when it fits, wrapped onto two lines, then its options folded, then its ends folded too."""
    assert command_lines(COMMAND, width) == expected


def test_a_command_with_long_urls_keeps_both_ends_of_each():
    source = "gsiftp://dtn1.example.org:2811/data/project/run42/input/large-file.bin"
    target = "gsiftp://dtn2.example.org:2811/scratch/project/run42/output/large-file.bin"
    lines = command_lines(f"globus-url-copy -vb -fast -p 16 -cc 4 -len 20G {source} {target}", 60).splitlines()
    assert len(lines) == 2 and all(len(line) <= 60 for line in lines), lines
    assert lines[0].startswith("$ globus-url-copy … gsiftp://dtn1.") and lines[0].endswith("/large-file.bin")
    assert lines[1].strip().startswith("gsiftp://dtn2.example.org") and "…" in lines[1]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_comparisons_note_is_whole_on_every_row(tmp_path, size):
    """At 80x24, on a case with too few runs, the note over the comparison shows whole on every row, and
    says how many cases the test cannot decide and the runs it needs a side."""
    write_pair(tmp_path / "results")
    app = WorkbenchApp(None, results_base=str(tmp_path / "results"))
    async with app.run_test(size=size) as pilot:
        await results_listed(pilot, app)
        await pilot.press("m", "down", "m", "d")
        await eventually_async(lambda: len(app.query_one("#compare", LiveTable).keys) >= 4, "the comparison",
                               pause=pilot.pause)
        table = app.query_one("#compare", LiveTable)
        note = app.query_one("#compare-note", Static)
        for row in range(len(table.keys)):
            table.move_cursor(row=row)
            await pilot.pause()
            lines = folded_lines(note)
            assert len(lines) <= note.content_region.height, (row, lines, note.content_region)
        said = " ".join(line.strip() for line in lines)
        assert "3 of 5 case(s): too few runs for the test, no verdict (it needs 4 runs a side)" in said, said


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_an_open_directorys_runs_have_rows(tmp_path, size):
    """With three directories listed, an open directory's runs table showed only its header at 80x24 (the
    list and the cases took the rows): it shows runs, and the cases still show."""
    a, _b = write_pair(tmp_path / "results")
    shutil.copytree(a, tmp_path / "results" / "20261121T100000Z-mixed")
    app = WorkbenchApp(None, results_base=str(tmp_path / "results"))
    async with app.run_test(size=size) as pilot:
        await pilot.press("5")
        await eventually_async(lambda: len(app.query_one("#dirs", LiveTable).keys) == 3, "the results directories",
                               pause=pilot.pause)
        await pilot.press("enter")
        await eventually_async(lambda: len(app.query_one("#records", LiveTable).keys) > 10, "the runs",
                               pause=pilot.pause)
        await pilot.pause()
        for table_id, rows in (("records", 3), ("cases", 3)):
            table = app.query_one(f"#{table_id}", LiveTable)
            shown = table.scrollable_content_region.height - table.header_height
            assert shown >= rows, (table_id, shown, table.region)


def test_the_tui_writes_95_percent_ci_as_everywhere_else():
    """"95 % CI", with the space, as the reports, compare and the docs write it (the TUI wrote "95% CI")."""
    assert "mean [95 % CI]" in CASE_COLUMNS and "95 % CI" in TUNE_COLUMNS
    assert not [label for label in (*CASE_COLUMNS, *TUNE_COLUMNS) if "95%" in label]


@pytest.mark.parametrize("size", SIZES, ids=IDS)
async def test_the_threads_table_needs_no_sideways_scroll(scenario_path, size):
    """With more rows than fit at 80x24, the threads table ran a cell past the right edge beside its
    vertical scrollbar: its state column was cut ("runnin") and a horizontal scrollbar drew a stray
    "▏" on the row under the table. It fits: no horizontal scrollbar, every row's state whole."""
    spec = plan(load_scenario(scenario_path))[0]
    events: list = [ScenarioStarted(scenario="quickstart", results_dir="results/x", plan=(spec,), t=1000.0),
                    RunStarted(spec=spec, argv=spec.argv, started_at="", t=1000.0)]
    for host in ("client1", "client2"):
        for thread in range(12):
            mib = 3.0 * (thread + 1) + (30.0 if host == "client2" else 0.0)
            events.append(WorkerProgress(run_id=spec.run_id, host=host, thread=thread, state="running", files=30,
                                         bytes=int(mib * MIB), ios=int(mib * 16), elapsed_s=1.5, files_total=200,
                                         t=1001.5))
    app = WorkbenchApp(scenario_path, results_base="results", stable=True)
    async with app.run_test(size=size) as pilot:
        for event in events:
            app.live(event)
        await pilot.press("3")
        table = app.query_one("#thread-table", FastTable)
        await eventually_async(lambda: len(table._rows) == 24, "the 24 rows", pause=pilot.pause)
        await pilot.pause()
        assert table.virtual_size.width <= table.scrollable_content_region.width, (table.virtual_size, table.region)
        assert not table.show_horizontal_scrollbar


async def test_the_autotune_bar_offers_copy_and_save_only_with_a_line(scenario_path):
    """``c Copy line  w Save line`` were in the key bar with nothing to copy: they show once a leader
    (and so a guc line) is there."""
    spec = plan(load_scenario(scenario_path))[0]
    app = WorkbenchApp(scenario_path, results_base="results", stable=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("4")
        await pilot.pause()
        assert not [key for key, _ in footer_keys(app) if "line" in key], footer_keys(app)
        for event in (ScenarioStarted(scenario="quickstart", results_dir="results/x", plan=(spec,), t=1000.0),
                      TuneUpdate(test_id=spec.test_id, strategy="adaptive", engine="simulated", transfers_used=4,
                                 budget=40, margin_mib_s=20.0, rows=RANKING, leader=RANKING[0].candidate,
                                 finished=False, t=1001.0)):
            app.live(event)
        await eventually_async(lambda: {"c Copy line", "w Save line"} <= {key for key, _ in footer_keys(app)},
                               "c and w in the key bar", pause=pilot.pause)


def test_a_default_name_says_its_scenario_even_with_a_second_runs_number():
    """Two runs begun within one second are <stamp>-NAME and <stamp>-NAME.1: neither repeats the scenario."""
    from gftpwb.tui.results_view import names_its_scenario

    assert names_its_scenario("20261128T014736Z-tuitest", "tuitest")
    assert names_its_scenario("20261128T014736Z-tuitest.1", "tuitest")
    assert names_its_scenario("20261128T014736Z-tests.csv.2", "tests.csv")
    assert not names_its_scenario("first", "tuitest")
    assert not names_its_scenario("20261128T014736Z-tuitest.x", "tuitest")
