"""Everything the workbench shows at 80x24 is readable whole: the key bar of every view ends with a
whole key (it ended in "q Q"), the results view's cases can be told apart (their parameters were
off-screen, so two cases looked the same), the comparison's verdict is not cut ("no s"), and the
report tables cut no number ("939.8 ± 22"): they are drawn at the view's width, in parts, as
``gftpwb report`` prints them."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console
from rich.text import Text
from support.polling import eventually_async
from support.quickstart_events import write_quickstart
from support.results_pair import write_pair
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from gftpwb.core.report_tables import directory_tables
from gftpwb.shell.results_index import read_directory
from gftpwb.tui.app import VIEWS, WorkbenchApp
from gftpwb.tui.widgets import LiveTable


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
        assert "CI: 95 % bootstrap" in said
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
