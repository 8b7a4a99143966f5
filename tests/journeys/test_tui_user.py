"""The TUI as a user meets it: ``gftpwb run SCENARIO --tui`` on an 80x24 pseudo-terminal (the screen read
through a terminal emulator), the views looked at once the run is over (scenario, threads, results with
the run's directory opened and its report tables), ``q``, and then ``gftpwb report`` of the same directory.

The TUI ends with the headless run's exit code and prints what it prints; its results view shows the cases
and medians the report shows; what it says at 80x24 is whole and true (how the run ended, every key of the
key bar, totals of runs that ran one after another, two cases told apart)."""

from __future__ import annotations

import re
import shutil

import pytest
from conftest import ROOT
from support.journey import User, table_titled, tables
from support.polling import eventually
from support.results import records
from support.terminal import Terminal

pytestmark = pytest.mark.real

SCENARIO = """\
version: 1
name: tuijourney
defaults: {{source: "{url}/dev/zero", target: "{url}/dev/null", timeout: 60s}}
tests:
  - {{id: stream, kind: guc, options: {{length: 64M}}, repeat: 2}}
  - id: par
    kind: guc
    options: {{length: 64M}}
    matrix: {{parallel: [2, 4]}}
    repeat: 2
    expect: {{median_rate: ">= 100000MiB/s"}}    # violated: the run exits 8
"""
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def key_bar(screen: str) -> str:
    return screen.splitlines()[-1]


@pytest.fixture(scope="module")
def walked(tmp_path_factory, gridftp):
    home = tmp_path_factory.mktemp("tui-user")
    (home / "tui.yaml").write_text(SCENARIO.format(url=gridftp.url))
    user = User(home)
    tui = Terminal.gftpwb("run", "tui.yaml", "--tui", cwd=home)
    screens: dict[str, str] = {}
    try:
        def finished():
            found = [p for p in (home / "results").glob("*-tuijourney") if (p / "results.jsonl").exists()]
            return found if found and len(records(found[0])) == 6 else None
        (directory,) = eventually(finished, "the TUI's run to record its 6 runs", timeout=180)
        screens["run"] = tui.wait_for("finished: 6 passed of 6 planned")
        tui.press("1")
        screens["scenario"] = tui.wait_for(lambda s: "host(s)" in s and "expect: 2 violated" in s, "the scenario view")
        tui.press("3")
        screens["threads"] = tui.wait_for(lambda s: "6 row(s)" in s and " total " in s, "the threads view")
        tui.press("5")
        screens["results"] = tui.wait_for(directory.name)
        screens["opened"] = tui.press_until("\r", "statistics of passed runs")
        tui.press("t")
        screens["tables"] = tui.wait_for(lambda s: "Results (rates in MiB/s)" in s, "the report tables")
        tui.press("q")
        code = tui.wait()
    finally:
        tui.close()
    closing = ANSI.sub("", tui.printed_after_closing())
    report = user.sh(f"gftpwb report {directory.relative_to(home)}", expect=0)
    return {"user": user, "dir": directory, "code": code, "screens": screens, "closing": closing,
            "report80": user.sh(f"COLUMNS=80 gftpwb report {directory.relative_to(home)}"), "report": report}


def test_the_tui_ends_with_the_headless_exit_code_and_prints_the_report(walked):
    assert walked["code"] == 8  # every run passed, a threshold was violated
    assert [r["status"] for r in records(walked["dir"])] == ["passed"] * 6
    closing, report80 = walked["closing"], walked["report80"].stdout
    assert "Traceback" not in closing
    assert "Expectations: 2 of 2 violated" in closing
    relative = walked["dir"].relative_to(walked["user"].home)
    assert closing.rstrip().endswith(f"6 passed of 6 planned. Results: {relative}")
    printed = [(t.title, t.header, t.rows) for t in tables(closing)]
    assert printed and printed == [(t.title, t.header, t.rows) for t in tables(report80)]


def test_the_results_view_shows_the_cases_and_medians_of_the_report(walked):
    report = table_titled(walked["report"].stdout, "Results").records()
    opened = walked["screens"]["opened"].splitlines()
    start = next(i for i, line in enumerate(opened) if line.split()[:1] == ["test"] and " median " in line)
    rows = opened[start + 1:start + 1 + len(report)]
    assert [line.split()[0] for line in rows] == [r["test"] for r in report]
    for line, case in zip(rows, report, strict=True):
        assert case["median"] in line.split(), (line, case)
    assert "Results (rates in MiB/s)" in walked["screens"]["tables"]


def test_the_header_says_how_the_run_ended(walked):
    for name, screen in walked["screens"].items():
        header = screen.splitlines()[0]
        assert "threshold" in header and "violated" in header, (name, header)


def test_every_key_bar_ends_with_a_whole_key(walked):
    for name, screen in walked["screens"].items():
        assert "q Quit" in key_bar(screen), (name, key_bar(screen))


def test_the_threads_totals_never_add_up_runs_that_ran_one_after_another(walked):
    screen = walked["screens"]["threads"]
    rates = [float(line.split()[5]) for line in screen.splitlines() if re.match(r" (stream|par)\S*/\d ", line)]
    assert len(rates) == 6
    total = float(re.search(r"([\d.]+) MiB/s in all", " ".join(screen.split()))[1])
    assert total <= max(rates), (total, rates)


def test_the_results_view_tells_two_cases_apart(walked):
    report = table_titled(walked["report"].stdout, "Results").records()
    opened = walked["screens"]["opened"]
    for case in report:
        assert re.search(rf"^ {case['test']} +{re.escape(case['guc options'])} ", opened, flags=re.M), case


def test_the_results_view_shows_each_directory_s_expect_cell_whole(walked):
    row = next(line for line in walked["screens"]["results"].splitlines() if line.split()[:1] == [walked["dir"].name])
    assert row.rstrip().endswith("2/2 violated"), row


def test_the_results_view_lists_the_run_just_made_wherever_its_results_went(tmp_path, gridftp):
    """With ``--results campaign/first`` the results view lists campaign/ (it said 'No results under
    results/ yet.' right after the run, so the run just made was not there to open)."""
    (tmp_path / "one.yaml").write_text(SCENARIO.format(url=gridftp.url).split("  - id: par")[0])
    tui = Terminal.gftpwb("run", "one.yaml", "--tui", "--results", "campaign/first", cwd=tmp_path)
    try:
        tui.wait_for("finished: 2 passed of 2 planned")
        tui.press("5")
        screen = tui.wait_for(lambda s: "results directory" in s and " under " in s, "the results view's list")
        tui.press("q")
        assert tui.wait() == 0
    finally:
        tui.close()
    assert "1 results directories under campaign/" in screen, screen
    assert any(line.split()[:1] == ["first"] for line in screen.splitlines()), screen


def test_the_run_chart_of_the_shipped_simulated_tune_shows_simulated_rates(tmp_path):
    """The shipped simulated auto-tune at 80x24: its run chart's axis reaches the simulated rates (the link
    carries 10 Gbit/s, 1192 MiB/s), not a hundred 4 GiB transfers over one second of wall clock."""
    shutil.copy(ROOT / "scenarios" / "autotune-simulated.yaml", tmp_path / "sim.yaml")
    tui = Terminal.gftpwb("run", "sim.yaml", "--only", "adaptive", "--tui", cwd=tmp_path)
    try:
        screen = tui.wait_for("finished: 1 passed of 1 planned", timeout=300)
        tui.press("q")
        assert tui.wait() == 0
    finally:
        tui.close()
    ticks = [float(m[1].replace(",", "")) for m in re.finditer(r"^ *([\d,.]+)┤", screen, flags=re.M)]
    assert len(ticks) >= 2, screen
    assert 0 < max(ticks) <= 1200, screen
