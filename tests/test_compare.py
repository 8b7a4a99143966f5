"""Comparing two runs' rates (gftpwb.core.compare) and listing past results directories (gftpwb.shell.results_index)."""

import json
import os

import pytest

from gftpwb.core.compare import diff_cells, diff_rates
from gftpwb.core.records import ResultRecord
from gftpwb.shell.results_index import list_results, load_records
from gftpwb.shell.sinks.journal import JournalSink


def rec(run_id, rate, params, status="passed", test_id="a"):
    case = int(run_id.split("[")[1].split("]")[0]) if "[" in run_id else 0
    return ResultRecord(scenario="s", test_id=test_id, run_id=run_id, case=case, repeat=int(run_id[-1]), kind="guc",
                        host="local", argv=[], status=status, params=params,
                        rate_incl_setup_mib_s=rate if status == "passed" else None)


def test_cases_match_by_test_and_options_not_by_case_number():
    a = [rec("a[0]/0", 100.0, {"parallel": 1}), rec("a[0]/1", 120.0, {"parallel": 1}),
         rec("a[1]/0", 400.0, {"parallel": 4})]
    # B dropped -p 1 and added -p 8; its -p 4 case has another case number and one failed run.
    b = [rec("a[0]/0", 500.0, {"parallel": 4}), rec("a[0]/1", 0.0, {"parallel": 4}, status="failed"),
         rec("a[1]/0", 900.0, {"parallel": 8})]
    rows = diff_rates(a, b)
    assert [(r.params, r.a_mib_s, r.b_mib_s, r.a_runs, r.b_runs) for r in rows] == [
        ("-p 1", 110.0, None, "2/2", ""), ("-p 4", 400.0, 500.0, "1/1", "1/2"), ("-p 8", None, 900.0, "", "1/1")]
    assert rows[1].delta_mib_s == 100.0 and rows[1].delta_pct == pytest.approx(25.0)
    assert rows[0].delta_mib_s is None and rows[0].delta_pct is None
    assert diff_cells(rows[1]) == ("a", "-p 4", "400.0", "500.0", "+100.0", "+25.0", "1/1", "1/2")
    assert diff_cells(rows[2])[2] == "-"


def test_a_resumed_run_counts_its_latest_record():
    a = [rec("a/0", 0.0, {}, status="interrupted"), rec("a/0", 300.0, {})]
    b = [rec("a/0", 330.0, {})]
    (row,) = diff_rates(a, b)
    assert (row.a_mib_s, row.a_runs, row.delta_pct) == (300.0, "1/1", pytest.approx(10.0))


def make_results(base, name, created, records):
    path = base / name
    path.mkdir(parents=True)
    (path / "meta.json").write_text(json.dumps({"scenario": "quick", "created_at": created, "runs": 3}))
    sink = JournalSink(str(path / "results.jsonl"))
    for r in records:
        sink.append(r)
    sink.close()
    return path


def test_list_results_newest_first_and_tolerant(tmp_path):
    assert list_results(str(tmp_path / "missing")) == []
    old = make_results(tmp_path, "20261101T000000Z-quick", "2026-11-01T00:00:00+00:00", [rec("a/0", 1.0, {})])
    new = make_results(tmp_path, "20261102T000000Z-quick", "2026-11-02T00:00:00+00:00",
                       [rec("a/0", 1.0, {}, status="interrupted"), rec("a/0", 2.0, {})])
    (tmp_path / "20261103T000000Z-broken").mkdir()
    (tmp_path / "20261103T000000Z-broken" / "meta.json").write_text("{not json")
    (tmp_path / "not-results").mkdir()
    (tmp_path / "stray.txt").write_text("x")
    infos = list_results(str(tmp_path))
    assert [i.name for i in infos] == ["20261102T000000Z-quick", "20261101T000000Z-quick", "20261103T000000Z-broken"]
    assert (infos[0].scenario, infos[0].planned, infos[0].records) == ("quick", 3, 2)
    assert (infos[2].scenario, infos[2].planned, infos[2].records) == ("broken", None, 0)
    records, problems = load_records(str(new))
    assert [(r.run_id, r.status) for r in records] == [("a/0", "passed")] and problems == []
    with open(os.path.join(old, "results.jsonl"), "a") as handle:
        handle.write('{"torn":')
    records, problems = load_records(str(old))
    assert len(records) == 1 and problems == ["line 2: torn last record skipped (an interrupted write)"]


def test_the_values_compare_tests_are_those_each_figures_statistics_took():
    """compare takes a figure's values from its statistics (kept in the summary) rather than going
    through the runs again: the same values, in the same order, as the runs that count give."""
    from support.report_fixture import records

    from gftpwb.core.compare import counted_values
    from gftpwb.core.summary import summarize_cases

    checked = 0
    for case in summarize_cases(records()):
        for fs in case.figures:
            from_runs = [run.values[fs.figure.key] for run in case.runs if run.counted
                         and run.values.get(fs.figure.key) is not None and fs.figure.key not in run.excluded]
            assert list(fs.values) == from_runs == counted_values(case, fs.figure.key)
            assert (fs.stats.n if fs.stats else 0) == len(from_runs)
            checked += bool(from_runs)
    assert checked >= 5
