"""The results history: DuckDB views over the journals in place (``gftpwb results list|query|views``)
and the trend the HTML report draws from them. DuckDB's answers are checked against gftpwb's own
reading of the same directories (the report data model)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import duckdb
import pytest
from support.clihelp import gftpwb
from support.report_fixture import write_mixed

from gftpwb.shell.history import History, trend_points
from gftpwb.shell.results_index import read_directory


def with_meta(directory: Path, **changes) -> Path:
    meta = json.loads((directory / "meta.json").read_text())
    meta.update(changes)
    (directory / "meta.json").write_text(json.dumps(meta))
    return directory


@pytest.fixture
def base(tmp_path):
    """Three runs of scenario 'mixed' on three days (one faster) and one of another scenario."""
    for day in (20, 21, 22):
        directory = with_meta(write_mixed(tmp_path / f"202611{day}T100000Z-mixed"),
                              created_at=f"2026-11-{day}T10:00:00+00:00")
        if day == 21:
            journal = directory / "results.jsonl"
            lines = [json.loads(line) for line in journal.read_text().splitlines()]
            for record in lines:
                if record["test_id"] == "stream" and record.get("rate_incl_setup_mib_s"):
                    record["rate_incl_setup_mib_s"] *= 2
            journal.write_text("".join(json.dumps(r) + "\n" for r in lines))
    other = write_mixed(tmp_path / "20261123T100000Z-other")
    with_meta(other, scenario="other", created_at="2026-11-23T10:00:00+00:00")
    journal = other / "results.jsonl"
    journal.write_text(journal.read_text().replace('"scenario":"mixed"', '"scenario":"other"'))
    return tmp_path


def test_duckdb_medians_are_the_reports_medians(base):
    directory = base / "20261122T100000Z-mixed"
    summary = read_directory(str(directory))
    history = History(str(base))
    try:
        table = history.query(
            "SELECT test_id, \"case\", figure, median(value), count(*) FROM figures WHERE counted "
            f"AND directory = '{directory.name}' GROUP BY ALL ORDER BY ALL")
    finally:
        history.close()
    from_duckdb = {(t, c, f): (m, n) for t, c, f, m, n in table.rows}
    from_report = {(case.test_id, case.case, fs.figure.key): (fs.stats.median, fs.stats.n)
                   for case in summary.cases for fs in case.figures if fs.stats is not None}
    assert from_duckdb.keys() == from_report.keys()
    for key, (median, n) in from_report.items():
        assert from_duckdb[key][1] == n, key
        assert from_duckdb[key][0] == pytest.approx(median), key
    # the quantised guc average is excluded in both; the warm-ups are not counted in both
    assert from_duckdb[("sweep", 0, "rate_incl_setup_mib_s")][1] == 5


def test_list_query_and_views_from_the_command_line(base):
    listing = json.loads(gftpwb("results", "list", "--results-base", str(base), "--json").stdout)
    assert [row["directory"] for row in listing] == ["20261123T100000Z-other", "20261122T100000Z-mixed",
                                                     "20261121T100000Z-mixed", "20261120T100000Z-mixed"]
    # every run id's latest record, an auto-tune's transfers too (the report counts planned runs only)
    counts = Counter(r.status for r in read_directory(str(base / "20261122T100000Z-mixed")).records)
    row = listing[1]
    assert (row["scenario"], row["created"], row["planned"], row["runs"]) == ("mixed", "2026-11-22T10:00:00Z", 19, 20)
    assert row["passed"] == counts["passed"] == 18 and row["failed"] == counts["failed"] + counts["timeout"] == 2

    sql = ("SELECT directory, median(value) AS m FROM figures WHERE headline AND counted AND test_id = 'stream' "
           "GROUP BY ALL ORDER BY directory")
    csv_out = gftpwb("results", "query", sql, "--results-base", str(base), "--csv")
    assert csv_out.returncode == 0, csv_out.stderr
    assert csv_out.stdout.splitlines() == ["directory,m", "20261120T100000Z-mixed,399.75",
                                           "20261121T100000Z-mixed,799.5", "20261122T100000Z-mixed,399.75",
                                           "20261123T100000Z-other,399.75"]
    # The interrupted then resumed run: two lines in records, the latest in runs.
    runs = json.loads(gftpwb("results", "query", "SELECT count(*) FILTER (WHERE run_id = 'stream/1') AS n, "
                             "any_value(status) FILTER (WHERE run_id = 'stream/1') AS s FROM runs "
                             "WHERE directory = '20261122T100000Z-mixed'", "--results-base", str(base),
                             "--json").stdout)
    assert runs == [{"n": 1, "s": "passed"}]

    views = gftpwb("results", "views", "--results-base", str(base))
    assert views.returncode == 0
    connection = duckdb.connect(":memory:")  # what a user does with the duckdb command line
    for statement in views.stdout.split(";\n"):
        if statement.strip():
            connection.execute(statement)
    assert connection.execute(sql).fetchall() == [("20261120T100000Z-mixed", 399.75), ("20261121T100000Z-mixed", 799.5),
                                                  ("20261122T100000Z-mixed", 399.75),
                                                  ("20261123T100000Z-other", 399.75)]


def test_trend_points_are_the_scenarios_latest_directories(base):
    points = trend_points(str(base), "20261122T100000Z-mixed", "mixed", 2)
    stream = [(p.directory, p.median, p.n) for p in points if p.test_id == "stream"]
    assert stream == [("20261121T100000Z-mixed", 799.5, 2), ("20261122T100000Z-mixed", 399.75, 2)]
    assert {p.directory for p in trend_points(str(base), "20261121T100000Z-mixed", "mixed", 20)} == {
        "20261120T100000Z-mixed", "20261121T100000Z-mixed"}  # nothing newer than the directory reported
    assert {p.params_text for p in points if p.test_id == "sweep"} == {"-p 1 -len 1G", "-p 4 -len 1G"}


def test_a_torn_journal_line_is_skipped_and_user_errors(base, tmp_path):
    with open(base / "20261120T100000Z-mixed" / "results.jsonl", "a") as handle:
        handle.write('{"run_id": "x", "status"')
    listing = gftpwb("results", "list", "--results-base", str(base), "--json")
    assert listing.returncode == 0, listing.stderr
    assert len(json.loads(listing.stdout)) == 4
    missing = gftpwb("results", "list", "--results-base", str(tmp_path / "nowhere"))
    assert missing.returncode == 2 and "no such results base" in missing.stderr
    (tmp_path / "empty").mkdir()
    empty = gftpwb("results", "list", "--results-base", str(tmp_path / "empty"))
    assert empty.returncode == 2 and "no results directories" in empty.stderr
    bad = gftpwb("results", "query", "SELEC 1", "--results-base", str(base))
    assert bad.returncode == 2 and bad.stderr.startswith("gftpwb: query failed: Parser Error")
    assert "Traceback" not in missing.stderr + empty.stderr + bad.stderr
    assert "records" in gftpwb("results", "query", "--help").stdout


def test_figures_view_leaves_out_what_the_report_leaves_out(tmp_path):
    """guc's average is left out of statistics when quantised (a flag) and when it is a multi-file
    transfer's (its last file's: ``details.files.count`` above 1): the view says so for the same
    runs, with the same reason, as the report's summary."""
    directory = write_mixed(tmp_path / "20261122T100000Z-mixed")
    journal = directory / "results.jsonl"
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    passed = [r for r in lines if r["kind"] == "guc" and r["status"] == "passed" and r.get("rate_guc_avg_mib_s")
              and not r["details"].get("guc_avg_quantised")]
    passed[0]["details"]["files"] = {"count": 3}  # per file
    passed[1]["details"]["files"] = {"count": 1}  # one file: counted
    passed[2]["details"]["guc_avg_quantised"] = True
    passed[2]["details"]["files"] = {"count": 5}  # quantised comes first
    passed[3]["details"]["files"] = {"count": "many"}  # not a number: nothing left out
    journal.write_text("".join(json.dumps(r) + "\n" for r in lines))
    summary = read_directory(str(directory))
    from_report = {run.run_id: run.excluded.get("rate_guc_avg_mib_s") for case in summary.cases
                   for run in case.runs if run.values.get("rate_guc_avg_mib_s") is not None}
    history = History(str(tmp_path))
    try:
        rows = history.query("SELECT run_id, excluded FROM figures WHERE figure = 'rate_guc_avg_mib_s' "
                             "AND value IS NOT NULL").rows
    finally:
        history.close()
    assert dict(rows) == from_report
    assert from_report[passed[0]["run_id"]] == "per file"
    assert from_report[passed[1]["run_id"]] is None
    assert from_report[passed[2]["run_id"]] == "quantised"
    assert from_report[passed[3]["run_id"]] is None


def test_trend_points_come_in_one_order(base):
    """Cases within a directory come sorted (test id, then parameters), so the report's trend charts,
    which follow this order and stop at a limit, are the same page from the TUI and the command line
    (DuckDB's GROUP BY gives no order of its own: the TUI's `R` and `report --html` once drew
    different cases)."""
    first = trend_points(str(base), "20261122T100000Z-mixed", "mixed", 3)
    keys = [(p.created_at, p.directory, p.test_id) for p in first]
    assert keys == sorted(keys)
    assert len({p.test_id for p in first}) > 2
    for _ in range(20):
        assert trend_points(str(base), "20261122T100000Z-mixed", "mixed", 3) == first
