"""The "protocols on the same path" section on records made here: which rows it has, what each is
compared with (iperf3 by streams, GridFTP by streams and medium, third-party copies with their
likes), and that the records it takes from other kinds' tests are tabulated, never charted or listed
twice (ReportSection.also)."""

from __future__ import annotations

from gftpwb.core.records import PASSED, ResultRecord
from gftpwb.core.report import own_records, report_sections
from gftpwb.core.report_html import directory_html
from gftpwb.core.summary import summarize_directory
from gftpwb.kinds.copytool import report

SHM = "/dev/shm/p/"


def record(test_id: str, kind: str, rate: float, repeat: int, *, params: dict | None = None,
           argv: tuple[str, ...] = (), details: dict | None = None, iperf3: float | None = None,
           case: int = 0) -> ResultRecord:
    return ResultRecord(scenario="p", test_id=test_id, run_id=f"{test_id}[{case}]/{repeat}", case=case, repeat=repeat,
                        kind=kind, host="local", argv=list(argv), status=PASSED, params=params or {},
                        seconds=1.0, bytes=1 << 27, rate_incl_setup_mib_s=rate, rate_guc_avg_mib_s=iperf3,
                        details=details or {})


def files(source: str, target: str) -> dict:
    return {"files": {"source_dir": SHM + "a/", "target_dir": SHM + "b/", "source_url": source, "target_url": target,
                      "count": 1}}


def records() -> list[ResultRecord]:
    out = []
    for n in range(5):
        out.append(record("iperf3", "iperf3", 500.0, n, params={"streams": 2}, iperf3=480.0 + n, case=0))
        out.append(record("g", "guc", 400.0 + n, n, params={"parallel": 2}, case=1,
                          details=files("file:///dev/shm/p/a/", "ftp://h2:2811/dev/shm/p/b/")))
        out.append(record("x", "xrootd", 100.0 + n, n, params={"streams": 2}, case=2,
                          details={"mode": "upload", **files(SHM + "a/", "root://h2:1094//dev/shm/p/b/")}))
        out.append(record("g-tpc", "guc", 300.0 + n, n, case=3,
                          details=files("ftp://h1:2811/dev/shm/p/a/", "ftp://h2:2811/dev/shm/p/b/")))
        out.append(record("x-tpc", "xrootd", 301.0 + n, n, params={"tpc": "only"}, case=4,
                          details={"mode": "third-party", **files("root://h1:1094//dev/shm/p/a/",
                                                                  "root://h2:1094//dev/shm/p/b/")}))
    return out


def by_test(found: list[report.Row]) -> dict[str, report.Row]:
    return {r.case.test_id: r for r in found}


def test_each_protocol_against_iperf3_and_gridftp_with_the_same_streams_and_medium():
    rows = by_test(report.rows(records()))
    assert {t: r.medium for t, r in rows.items()} == {
        "iperf3": "memory", "g": "memory", "x": "memory", "g-tpc": "memory, third-party",
        "x-tpc": "memory, third-party"}
    assert rows["x"].efficiency is not None and 0.2 < rows["x"].efficiency.value < 0.22  # 102 / 482
    assert rows["x"].verdict == "slower" and round(rows["x"].change) == -75
    # a third-party copy against GridFTP's server to server, where 1 MiB/s apart is no change
    assert rows["x-tpc"].verdict == "no significant change"
    assert rows["g"].verdict == "" and rows["iperf3"].efficiency is None


def test_the_table_and_its_data_say_the_same():
    *_, table = report.tables(records())
    data = {row["test_id"]: row for row in report.data(records(), [])[0].rows}
    assert table.title == "Protocols on the same path"
    assert [cells[1] for cells, _ in table.rows] == ["g", "x", "iperf3", "g-tpc", "x-tpc"]
    assert data["x"]["vs_gridftp"] == "slower" and data["x"]["medium"] == "memory"


def test_no_section_without_another_protocol():
    only_guc = [r for r in records() if r.kind in ("guc", "iperf3")]
    assert report.tables(only_guc) == [] and report.charts(only_guc, {}) == []


def test_a_line_per_protocol_by_streams_and_intervals_for_third_party_copies():
    more = records() + [record("x", "xrootd", 200.0 + n, n, params={"streams": 4}, case=5,
                               details={"mode": "upload", **files(SHM + "a/", "root://h2:1094//dev/shm/p/b/")})
                        for n in range(5)]
    charts = report.charts(more, {})
    titles = [c.title for c in charts]
    assert titles == ["Protocols on the same path, memory: median by streams",
                      "Protocols on the same path, memory, third-party"]
    lines = {line.label: (line.x, line.y) for line in charts[0].lines}
    assert lines["XRootD (x)"] == ((2.0, 4.0), (102.0, 202.0))


def test_other_kinds_records_are_tabulated_here_but_charted_in_their_own_sections():
    recs = records()
    kinds = {"iperf3": "iperf3", "g": "guc", "x": "xrootd", "g-tpc": "guc", "x-tpc": "xrootd"}
    sections = {section.name: got for section, got in report_sections(recs, kinds)}
    assert len(sections["protocols"]) == len(recs)  # every record, in its order
    protocols = next(s for s, _ in report_sections(recs, kinds) if s.name == "protocols")
    assert {r.kind for r in own_records(protocols, sections["protocols"], kinds)} == {"xrootd"}


def test_the_html_section_charts_its_own_cases_once():
    summary = summarize_directory("results/p", records())
    html = directory_html(0, summary, svg=_no_svg, trend=())
    section = html[html.index("<h3>Protocols"):html.index("<h3>", html.index("<h3>Protocols") + 1)]
    assert "Protocols on the same path, memory, third-party" in section
    assert "x #002" in section and "g #001" not in section and "iperf3 #000" not in section


def _no_svg(chart) -> str:
    """The chart's title only (the test reads which charts a section has, not how they look)."""
    from html import escape

    lines = getattr(chart, "points", ()) or getattr(chart, "lines", ())
    labels = " ".join(escape(getattr(p, "label", "")) for p in lines)
    return f"<svg>{escape(chart.title)} {labels}</svg>"


def test_guc_test_files_on_tmpfs_are_memory_to_memory_in_guc_s_own_table():
    from gftpwb.core.summary import summarize_cases
    from gftpwb.kinds.guc.efficiency import disk_comparisons

    disk = {"files": {"source_dir": "/var/tmp/p/a/", "target_dir": "/var/tmp/p/b/", "count": 1}}
    recs = records() + [record("g-disk", "guc", 200.0 + n, n, params={"parallel": 2}, case=6, details=disk)
                        for n in range(5)]
    (found,) = disk_comparisons(summarize_cases(recs))
    assert found.disk.test_id == "g-disk" and found.memory is not None and found.memory.test_id == "g"


def test_too_few_runs_for_a_verdict_say_so():
    three = [r for r in records() if r.repeat < 3]
    rows = by_test(report.rows(three))
    assert rows["x"].verdict == "too few runs" and round(rows["x"].change) == -75


def copies() -> list[ResultRecord]:
    """An HTTP test of two copy modes (nothing else tells its cases apart) and an XRootD test whose
    xrdcp averages are quantised in one case, all third-party, without a GridFTP case to compare with."""
    out = []
    http = files("http://h1:8094/dev/shm/p/a/", "http://h2:8094/dev/shm/p/b/")
    xrootd = files("root://h1:1094//dev/shm/p/a/", "root://h2:1094//dev/shm/p/b/")
    for n in range(3):
        for case, mode in enumerate(("pull", "push")):
            out.append(record("tpc", "http", 170.0 + 90 * case + n, n, params={"copy_mode": mode}, case=case,
                              details={"mode": "third-party", **http}))
        for case, quantised in ((2, True), (3, False)):
            out.append(record("x-tpc", "xrootd", 150.0 + case + n, n, params={"tpc": "only", "streams": case},
                              case=case, iperf3=140.0 + n, details={"mode": "third-party", **xrootd,
                                                         **({"guc_avg_quantised": True} if quantised else {})}))
    return out


def test_each_copy_tool_kind_has_a_table_of_its_cases_as_guc_has():
    xrootd, http, protocols = report.tables(copies())
    assert (xrootd.title, http.title, protocols.title) == (
        "XRootD copies (rates in MiB/s)", "HTTP copies (rates in MiB/s)", "Protocols on the same path")
    assert [name for name, _ in xrootd.columns] == ["test", "#", "xrdcp options", "mode", "ok/runs", "n", "median",
                                                    "mean [95 % CI]", "CV", "xrdcp avg", "notes"]
    assert "xrdcp avg" not in [name for name, _ in http.columns]  # gfal-copy reports no average of its own
    assert "gfal-copy reports no average" in http.caption and "transfers under 10 s" in xrootd.caption
    rows = {cells[1]: cells for cells, _ in (*xrootd.rows, *http.rows)}
    assert rows["000"][2] == "copy_mode=pull" and rows["001"][2] == "copy_mode=push"  # never two alike
    assert rows["000"][3] == "third-party" and rows["000"][4:7] == ("3/3", "3", "171.0")
    assert rows["000"][7] == "171.0 [168.5, 173.5]"
    assert rows["002"][9] == "-" and rows["002"][10] == "xrdcp avg: 3 quantised"  # left out, and said so
    assert rows["003"][9] == "141.0" and rows["003"][10] == ""


def test_rows_of_one_test_say_how_they_differ_and_a_comparison_not_made_reads_a_dash():
    *_, protocols = report.tables(copies())
    columns = [name for name, _ in protocols.columns]
    rows = {cells[2]: dict(zip(columns, cells, strict=True)) for cells, _ in protocols.rows}
    assert rows["000"]["differs by"] == "copy_mode=pull" and rows["001"]["differs by"] == "copy_mode=push"
    assert rows["002"]["differs by"] == "-" and rows["002"]["streams"] == "2"  # streams: a column of their own
    assert {row["vs GridFTP"] for row in rows.values()} == {"-"} == {row["vs iperf3"] for row in rows.values()}
    data = {row["case"]: row for row in report.data(copies(), [])[0].rows}
    assert data[0]["differs"] == {"copy_mode": "pull"} and data[1]["params_text"] == "copy_mode=push"
    (by_streams,) = report.charts(copies(), {})  # a line each: pull and push are not one line
    assert {line.label for line in by_streams.lines} == {
        "HTTP (tpc copy_mode=pull)", "HTTP (tpc copy_mode=push)", "XRootD (x-tpc)"}
    (intervals,) = report.charts([r for r in copies() if r.kind == "http"], {})
    assert [p.label for p in intervals.points] == ["HTTP (tpc copy_mode=pull, 1) (n=3)",
                                                   "HTTP (tpc copy_mode=push, 1) (n=3)"]


def test_the_report_of_copies_in_the_console_html_and_json(tmp_path):
    import json

    from support.clihelp import gftpwb

    (tmp_path / "results.jsonl").write_text("".join(r.to_json() + "\n" for r in copies()))
    shown = gftpwb("report", str(tmp_path), env={"COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    assert "HTTP copies" in shown.stdout and "XRootD copies" in shown.stdout
    assert shown.stdout.count("copy_mode=pull") == 2 and "xrdcp avg: 3 quantised" in shown.stdout
    made = gftpwb("report", str(tmp_path), "--html", str(tmp_path / "r.html"), "--json")
    assert made.returncode == 0, made.stderr
    html = (tmp_path / "r.html").read_text()
    assert "HTTP copies" in html and "copy_mode=push" in html and "xrdcp avg: 3 quantised" in html
    (directory,) = json.loads(made.stdout)["directories"]
    rows = directory["tables"]["protocols"]
    assert [r["differs"] for r in rows if r["kind"] == "http"] == [{"copy_mode": "pull"}, {"copy_mode": "push"}]
    case = next(c for c in directory["cases"] if c["case"] == 2)
    own = next(f for f in case["figures"] if f["key"] == "rate_guc_avg_mib_s")
    assert own["label"] == "xrdcp avg" and own["excluded"] == {"quantised": 3}
