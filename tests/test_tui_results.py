"""The results view over results directories made by real runs (``gftpwb run`` against the loopback
GridFTP server of the lab): each case's statistics and thresholds as ``gftpwb report`` computes them,
the report's tables through the kinds' report hooks, two runs compared as ``gftpwb compare`` compares
them (verdict in words), ``R`` writing ``gftpwb report --html``'s page in a thread, and ``e`` writing
full-precision values next to the runs. The expected values come from the core functions and the CLI,
never from the screen."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest
from rich.table import Table
from support.clihelp import gftpwb
from support.polling import eventually_async
from support.results_pair import write_pair
from support.tui import Notes, cells

from gftpwb.cli.parser import build_parser
from gftpwb.core.compare import FASTER, NO_DATA, SAME, TOO_FEW, change_cells, compare_summaries
from gftpwb.core.compare_words import change_sentence, comparison_counts
from gftpwb.core.report_tables import directory_tables
from gftpwb.core.summary import DirectorySummary
from gftpwb.shell.results_index import read_directory
from gftpwb.tui.app import WorkbenchApp
from gftpwb.tui.results_view import (
    CASE_COLUMNS,
    COMPARE_ORDER,
    DEFAULT_THRESHOLD_PCT,
    HTML_NAME,
    THRESHOLD_STEPS,
    VERDICT_AT,
    ResultsView,
    case_cells,
    case_checks,
)

SIZE = (120, 40)
EXIT_VIOLATED = 8  # a threshold (expect:) was violated: README, errors.py


@pytest.fixture(scope="module")
def past(gridftp, tmp_path_factory) -> Path:
    """A results base with two results directories of the same scenario, made one after the other by
    real runs: two cases of three runs whose threshold is met, and a case whose threshold is violated."""
    root = tmp_path_factory.mktemp("past")
    scenario = root / "past.yaml"
    guc = f"kind: guc, source: {gridftp.url}/dev/zero, target: {gridftp.url}/dev/null"
    scenario.write_text(f"version: 1\nname: past\ntests:\n"
                        f"  - {{id: copy, {guc}, options: {{length: 16M}}, matrix: {{parallel: [1, 2]}}, repeat: 3,\n"
                        f"     expect: {{median_rate: '>= 1MiB/s'}}}}\n"
                        f"  - {{id: strict, {guc}, options: {{length: 16M}}, repeat: 2,\n"
                        f"     expect: {{median_rate: '>= 1000000MiB/s'}}}}\n")
    base = root / "results"
    for name in ("20261122T200000Z-past", "20261122T200100Z-past"):
        out = gftpwb("run", str(scenario), "--results", str(base / name))
        assert out.returncode == EXIT_VIOLATED, out.stdout + out.stderr
    return base


def older_newer(base: Path) -> tuple[str, str]:
    a, b = sorted(str(p) for p in base.iterdir() if p.is_dir())  # names start with their UTC time
    return a, b


def report_titles(app: WorkbenchApp) -> list[str]:
    group = app.query_one("#report-body").content
    return [str(r.title) for r in group.renderables if isinstance(r, Table)]


@pytest.mark.real
async def test_cases_thresholds_and_report_tables_of_a_real_run(past):
    a, b = older_newer(past)
    app = WorkbenchApp(None, results_base=str(past))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5")
        await pilot.pause()
        dirs = cells(app, "dirs")
        assert list(dirs) == [b, a]  # newest first
        assert all(row[4] == "1/3 violated" for row in dirs.values())  # the directory's thresholds
        await pilot.press("e")  # nothing open: the listing, into the results base it lists
        await pilot.pause()
        (listing,) = past.glob("gftpwb-results-*.csv")
        assert [line[0] for line in csv.reader(listing.open())] == ["results directory", *map(os.path.basename, (b, a))]
        listing.unlink()
        await pilot.press("enter")
        await pilot.pause()
        summary = read_directory(b)
        rows = cells(app, "cases")
        assert len(rows) == len(summary.cases) == 3
        for case, row in zip(summary.cases, rows.values(), strict=True):
            assert row == list(case_cells(case, case_checks(summary, case)))  # core/summary's numbers
        assert [row[CASE_COLUMNS.index("expect")] for row in rows.values()] == ["met", "met", "VIOLATED"]
        assert [row[CASE_COLUMNS.index("n")] for row in rows.values()] == ["3", "3", "2"]
        # mean [low, high] from 3 runs; the mean alone from 2 (too few for an interval)
        assert [" [" in row[CASE_COLUMNS.index("mean [95 % CI]")] for row in rows.values()] == [True, True, False]
        head = str(app.query_one("#detail-head").render())
        assert "expect 1/3 violated" in head
        # t: the report's tables, the kinds' sections generically, then the thresholds', as `report`
        await pilot.press("t")
        await pilot.pause()
        assert app.query_one("#report").display and not app.query_one("#cases").display
        assert report_titles(app) == [t.title for t in directory_tables(summary)]
        assert report_titles(app)[-1] == "Expectations: 1 of 3 violated"
        out = gftpwb("report", b)
        assert all(title in out.stdout for title in report_titles(app))
        await pilot.press("t")
        await pilot.pause()
        assert app.query_one("#cases").display and not app.query_one("#report").display


@pytest.mark.real
async def test_compare_two_real_runs_and_export_at_full_precision(past):
    a, b = older_newer(past)
    app = WorkbenchApp(None, results_base=str(past))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5")
        await pilot.pause()
        await pilot.press("m", "down", "m", "d")  # marked newest first: A is still the older
        await pilot.pause()
        expected = compare_summaries(read_directory(a), read_directory(b))
        assert [row[0] for row in cells(app, "dirs").values()] == ["B", "A"]
        rows = list(cells(app, "compare").values())
        assert rows == [[change_cells(x)[0][i] for i in COMPARE_ORDER] for x in expected.changes]
        assert len(rows) == 3
        head = str(app.query_one("#detail-head").render())
        assert comparison_counts(expected) in head and f"B {os.path.basename(b)}" in head
        note = str(app.query_one("#compare-note").render())
        assert change_sentence(expected.changes[0], expected.threshold_pct) in note
        await pilot.press("down")  # the note follows the highlighted case
        await pilot.pause()
        note = str(app.query_one("#compare-note").render())
        assert change_sentence(expected.changes[1], expected.threshold_pct) in note
        # e: the comparison at full precision, into B's directory (the newer run it describes)
        await pilot.press("e")
        await pilot.pause()
        (exported,) = Path(b).glob(f"gftpwb-compare-{os.path.basename(a)}-*.csv")
        lines = list(csv.DictReader(exported.open()))
        assert len(lines) == len(expected.changes)
        for line, x in zip(lines, expected.changes, strict=True):
            assert float(line["a_median"]) == x.a.median and float(line["b_median"]) == x.b.median  # exact
            assert float(line["change_pct"]) == x.change_pct and line["verdict"] == x.verdict
            assert line["p_value"] == ("" if x.p_value is None else repr(x.p_value))
        assert not list(Path(a).glob("gftpwb-*.csv")) and not list(Path.cwd().glob("gftpwb-*.csv"))
        # e on an opened directory: its cases as `gftpwb report --csv` writes them, its runs unrounded
        await pilot.press("escape", "enter")
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        opened = app.query_one(ResultsView)._open
        assert opened is not None
        (cases_csv,) = Path(opened).glob("gftpwb-cases-*.csv")
        cli_csv = Path(opened).parent / "cli.csv"
        assert gftpwb("report", opened, "--csv", str(cli_csv)).returncode == 0
        assert cases_csv.read_text() == cli_csv.read_text()
        (runs_csv,) = Path(opened).glob("gftpwb-runs-*.csv")
        journal = {r["run_id"]: r for r in map(json.loads, (Path(opened) / "results.jsonl").read_text().splitlines())}
        rates = [line for line in csv.DictReader(runs_csv.open()) if line["figure"] == "rate_incl_setup_mib_s"]
        assert sorted(line["run"] for line in rates) == sorted(journal)
        for line in rates:
            assert float(line["value"]) == journal[line["run"]]["rate_incl_setup_mib_s"]  # not rounded
            assert repr(float(line["value"])) == line["value"]


@pytest.mark.real
async def test_R_writes_the_html_report_in_a_thread_and_errors_are_notifications(past, tmp_path, monkeypatch):
    a, b = older_newer(past)
    for name in ("BROWSER", "DISPLAY", "WAYLAND_DISPLAY"):  # opening it: tests/test_tui_browser.py
        monkeypatch.delenv(name, raising=False)
    app = WorkbenchApp(None, results_base=str(past))
    notes = Notes(app)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5")
        await pilot.pause()
        await pilot.press("R")  # the highlighted directory (the newest), none open yet
        target = Path(b) / HTML_NAME
        await eventually_async(lambda: any(m.startswith("HTML report written") for m, _ in notes.seen), "the report",
                               pause=pilot.pause)
        assert (f"HTML report written: {target}", "information") in notes.seen
        cli = tmp_path / "cli.html"
        assert gftpwb("report", b, "--html", str(cli)).returncode == 0
        assert target.read_text() == cli.read_text()  # the same page `gftpwb report --html` writes
        await pilot.press("enter")
        await pilot.pause()
        assert f"HTML {target}" in str(app.query_one("#detail-head").render())
        # a report that cannot be written: a notification saying why, the session goes on
        (Path(a) / HTML_NAME).mkdir()
        await pilot.press("down", "enter", "R")
        await eventually_async(lambda: any(s == "error" for _, s in notes.seen), "the error", pause=pilot.pause)
        (error,) = [m for m, s in notes.seen if s == "error"]
        assert error.startswith(f"cannot write the HTML report to {Path(a) / HTML_NAME}: ")
        assert "Traceback" not in error and app.is_running


# --- without a lab: the words of a verdict and the report tables of the fixture directory ----------


def pair(tmp_path: Path) -> tuple[DirectorySummary, DirectorySummary]:
    a, b = write_pair(tmp_path / "results")
    return read_directory(str(a)), read_directory(str(b))


def test_the_verdict_in_words(tmp_path):
    a, b = pair(tmp_path)
    c = compare_summaries(a, b)
    by_case = {(x.test_id, x.case_b): x for x in c.changes}
    faster = by_case[("sweep", 0)]
    assert faster.verdict == FASTER
    assert change_sentence(faster, 5.0) == "B is 8.0 % faster, significant (Mann-Whitney U, p=0.008)"
    two = by_case[("sweep", 1)]  # two runs a side: the test cannot decide, and there is no CI either
    assert two.verdict == TOO_FEW
    assert change_sentence(two, 5.0) == ("too few runs to say: B +0.0 %, but with A 2 and B 2 runs Mann-Whitney U's p "
                                         "cannot be under 0.333; it needs 4 runs a side")
    assert change_sentence(by_case[("slow", 3)], 5.0) == "no data to compare (counted runs: A 0, B 0)"
    assert by_case[("slow", 3)].verdict == NO_DATA
    # B against A the other way round: slower, with the same size
    back = {(x.test_id, x.case_b): x for x in compare_summaries(b, a).changes}[("sweep", 0)]
    assert change_sentence(back, 5.0).startswith("B is 7.4 % slower, significant")
    # significant by the test but under the threshold: said so
    below = {(x.test_id, x.case_b): x for x in compare_summaries(a, b, threshold_pct=10).changes}[("sweep", 0)]
    assert below.verdict == SAME
    assert change_sentence(below, 10) == ("no significant change: B +8.0 %, under the 10 % threshold "
                                          "(Mann-Whitney U, p=0.008)")
    assert comparison_counts(c) == ("5 compared: 1 faster, 0 slower, 1 without a significant change, 3 with too few "
                                    "runs to say")


async def test_plus_and_minus_change_the_comparisons_threshold(tmp_path):
    a, b = write_pair(tmp_path / "results")
    sa, sb = read_directory(str(a)), read_directory(str(b))
    # it starts where `gftpwb compare` starts
    assert build_parser().parse_args(["compare", "A", "B"]).threshold == DEFAULT_THRESHOLD_PCT
    app = WorkbenchApp(None, results_base=str(tmp_path / "results"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5", "m", "down", "m", "d")
        await pilot.pause()

        def shown(threshold: float) -> None:
            c = compare_summaries(sa, sb, threshold_pct=threshold)
            assert [r[VERDICT_AT] for r in cells(app, "compare").values()] == [change_cells(x)[0][9] for x in c.changes]
            assert f"threshold {threshold:g} %" in str(app.query_one("#detail-head").render())
            assert str(app.query_one("#compare-note").render()).splitlines()[0].endswith(
                change_sentence(c.changes[0], threshold))

        shown(5.0)
        assert "faster" in [r[VERDICT_AT] for r in cells(app, "compare").values()]  # sweep case 0: +8 %, p = 0.008
        await pilot.press("plus")
        await pilot.pause()
        shown(10.0)
        assert "faster" not in [r[VERDICT_AT] for r in cells(app, "compare").values()]  # 8 % is under 10 %
        await pilot.press("minus", "minus", "minus")
        await pilot.pause()
        shown(2.0)
        for _ in range(len(THRESHOLD_STEPS) + 1):
            await pilot.press("minus")
        await pilot.pause()
        shown(0.0)  # stops at the lowest step


def test_report_tables_are_the_reports_sections_monitors_and_thresholds(tmp_path):
    a, _ = pair(tmp_path)
    titles = [t.title for t in directory_tables(a)]
    out = gftpwb("report", a.path)
    assert out.returncode == 0
    positions = [out.stdout.index(title) for title in titles]
    assert positions == sorted(positions)  # the order `gftpwb report` prints them in
    assert titles[-1] == "Expectations: 1 of 2 violated"


async def test_report_view_shows_a_kinds_own_tables_such_as_the_baseline_efficiency(tmp_path):
    """The efficiency table is guc's report section's: the view draws whatever the sections
    return, so it shows it (and the iperf3 baselines) without knowing either."""
    from rich.console import Console
    from support.baseline_records import record

    records = []
    for repeat, (guc, base) in enumerate([(44.0, 46.0), (45.0, 47.0), (43.0, 45.0)]):
        records.append(record(f"eff[0]/{repeat}/iperf3", "iperf3", 0, repeat, base + 1, base,
                              params={"client": "h1", "server": "h2", "server_address": "x", "streams": 4}))
        records.append(record(f"eff[0]/{repeat}", "guc", 0, repeat, guc - 1, guc, params={"parallel": 4}))
    directory = tmp_path / "results" / "20261122T210000Z-b"
    directory.mkdir(parents=True)
    (directory / "results.jsonl").write_text("".join(r.to_json() + "\n" for r in records))
    (directory / "plan.json").write_text(json.dumps([{"run_id": r.run_id, "test_id": "eff", "kind": "guc"}
                                                     for r in records]))
    (directory / "meta.json").write_text(json.dumps({"scenario": "b", "created_at": "2026-11-22T21:00:00+00:00"}))
    expected = directory_tables(read_directory(str(directory)))
    assert [t.title for t in expected][:3] == ["Results (rates in MiB/s)", "guc vs iperf3 baseline (MiB/s)",
                                               "iperf3 baselines (receiver rate after the omitted seconds)"]
    app = WorkbenchApp(None, results_base=str(tmp_path / "results"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("5", "t")  # t opens the highlighted directory's report tables
        await pilot.pause()
        assert report_titles(app) == [t.title for t in expected]
        console = Console(width=400, record=True, file=io.StringIO())
        console.print(app.query_one("#report-body").content)
        text = console.export_text()
        (efficiency,) = [t for t in expected if t.title.startswith("guc vs iperf3")]
        assert all(cell in text for cell in efficiency.rows[0][0])  # every cell, as the section made it


@pytest.mark.real
async def test_a_large_journal_is_read_in_a_thread_and_the_screen_keeps_answering(past, monkeypatch):
    """Above ``SYNC_READ_BYTES`` (here: every journal) the directory is read off the UI thread; the
    cases appear when it is done, the same as read on the spot."""
    import threading

    from gftpwb.tui import results_view

    readers: list[str] = []

    def reading(path: str):
        readers.append(threading.current_thread().name)
        return read_directory(path)

    monkeypatch.setattr(results_view, "read_directory", reading)
    monkeypatch.setattr(ResultsView, "SYNC_READ_BYTES", 0)
    _, b = older_newer(past)
    app = WorkbenchApp(None, results_base=str(past))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5", "enter")
        await eventually_async(lambda: len(cells(app, "cases")) == 3, "the cases", pause=pilot.pause)
        summary = read_directory(b)
        assert list(cells(app, "cases").values()) == [list(case_cells(c, case_checks(summary, c)))
                                                       for c in summary.cases]
        await pilot.press("m", "down", "m", "d")
        await eventually_async(lambda: len(cells(app, "compare")) == 3, "the comparison", pause=pilot.pause)
    assert len(readers) == 2 and threading.main_thread().name not in readers  # A and B, each once, off the UI


async def test_compare_without_a_case_in_common_says_so(tmp_path):
    """Two directories of different scenarios: no row, and what only each side has."""
    base = tmp_path / "results"
    write_pair(base)
    (base / "20261122T100000Z-mixed" / "results.jsonl").write_text(
        "".join(r.to_json() + "\n" for r in [_gfapi_only()]))
    app = WorkbenchApp(None, results_base=str(base))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("5", "m", "down", "m", "d")
        await pilot.pause()
        assert cells(app, "compare") == {}
        note = str(app.query_one("#compare-note").render())
        assert "no case in common (cases match by test id, kind and parameters)" in note
        assert "only in B: sweep #000 -p 1 -len 1G; sweep #001 -p 4 -len 1G" in note
        assert "0 compared" in str(app.query_one("#detail-head").render())


def _gfapi_only():
    from dataclasses import replace

    from support.report_fixture import gfapi

    return replace(gfapi("other/0", 0, 100.0), test_id="other")
