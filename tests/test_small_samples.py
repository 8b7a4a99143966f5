"""What a report says of cases of few runs, the runs people make (2-3 repeats): no interval that
leaves the figure's range (a rate is never below 0), none where too few runs give one, and every
figure's n, the runs that have it, in the console, the JSON, the TUI and the charts, with a note when
a figure rests on fewer runs than the case ran."""

from __future__ import annotations

import json

import pytest
from support.clihelp import gftpwb
from support.journey import table_titled
from support.report_fixture import guc, write_records

from gftpwb.core.report_charts import per_case_charts
from gftpwb.core.summary import summarize_cases

WIDE = {"COLUMNS": "220"}


def records():
    return [
        # the quickstart's repeat 2: two runs far apart
        guc("two/0", 0, 0, 2048.0, test="two"), guc("two/1", 0, 1, 5227.0, test="two"),
        # three runs, one of them slow: Student's t of the rates would reach below 0
        guc("wide/0", 1, 0, 300.0, test="wide"), guc("wide/1", 1, 1, 900.0, test="wide"),
        guc("wide/2", 1, 2, 4000.0, test="wide"),
        # three passed runs of which one has a rate (a plain copy guc printed no marker for)
        guc("one/0", 2, 0, 850.0, test="one"), guc("one/1", 2, 1, None, test="one"),
        guc("one/2", 2, 2, None, test="one"),
        # a run that moved nothing: the log scale cannot hold it
        guc("zero/0", 3, 0, 0.0, test="zero"), guc("zero/1", 3, 1, 900.0, test="zero"),
        guc("zero/2", 3, 2, 910.0, test="zero"),
    ]


@pytest.fixture
def directory(tmp_path):
    return write_records(tmp_path / "small", records())


def test_no_interval_of_a_rate_reaches_below_zero_and_two_runs_give_none(directory):
    doc = json.loads(gftpwb("report", str(directory), "--json").stdout)
    cases = {c["test_id"]: c["figures"][0]["stats"] for c in doc["directories"][0]["cases"]}
    assert cases["two"]["n"] == 2 and cases["two"]["ci_mean"] is None
    wide = cases["wide"]["ci_mean"]
    assert 0 < wide["low"] < cases["wide"]["mean"] < wide["high"]
    assert wide["method"] == "log-normal mean (Cox, t)"
    assert cases["wide"]["ci_median"] is None  # an interval of the median needs 6 runs
    assert (cases["two"]["no_ci_mean"], cases["wide"]["no_ci_mean"]) == ("no CI under 3 runs", None)
    assert cases["zero"]["ci_mean"] is None and cases["zero"]["no_ci_mean"] == "no CI: a value of 0"


def test_the_table_gives_each_rates_n_and_says_when_it_rests_on_fewer_runs_than_ran(directory):
    out = gftpwb("report", str(directory), env=WIDE)
    assert out.returncode == 0, out.stderr
    rows = {r["test"]: r for r in table_titled(out.stdout, "Results").records()}
    assert (rows["two"]["n"], rows["two"]["mean [95 % CI]"]) == ("2", "3637.5")
    low, high = rows["wide"]["mean [95 % CI]"].split("[")[1].rstrip("]").split(", ")
    assert 0 < float(low) < float(high)
    assert (rows["one"]["ok/runs"], rows["one"]["n"], rows["one"]["median"]) == ("3/3", "1", "850.0")
    assert "rate incl. set-up from 1 of 3 runs" in rows["one"]["notes"]
    assert "rate incl. set-up from" not in rows["two"]["notes"] + rows["wide"]["notes"]
    assert rows["zero"]["notes"] == "rate incl. set-up: no CI: a value of 0" and rows["two"]["notes"] == ""
    text = " ".join(out.stdout.split())
    assert "of the n runs that have one" in text and "none under 3 runs" in text


def test_the_tui_and_the_charts_give_the_figures_n(directory):
    from gftpwb.tui.results_view import case_cells

    cases = summarize_cases(records())
    one = next(c for c in cases if c.test_id == "one")
    cells = case_cells(one)
    assert (cells[2], cells[7]) == ("1", "3/3 passed")
    (chart,) = per_case_charts(cases)
    assert [p.label.rsplit(" ", 1)[-1] for p in chart.points] == ["(n=2)", "(n=3)", "(n=1)", "(n=3)"]
    assert "Median of the n counted runs" in chart.note and "none under 6 runs" in chart.note
