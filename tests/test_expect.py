"""Thresholds (``expect:``): how they are written and read, how the loader reports bad ones, and a real
run against the lab's GridFTP server that checks them at the end of each test: expectations.jsonl,
the console, JUnit, the report's JSON and exit code 8."""

from __future__ import annotations

import json
import textwrap
import xml.etree.ElementTree as ET

import pytest
from support.clihelp import gftpwb

from gftpwb.core.expect import ExpectError, parse_expectation
from gftpwb.core.registry import Metric

RATE = Metric("median_rate", "median rate", unit="MiB/s", figure="rate_incl_setup_mib_s")
CV = Metric("cv", "CV", unit="%", figure="rate_incl_setup_mib_s", statistic="cv")
PLAIN = Metric("files_per_s", "files/s", figure="files_s")


@pytest.mark.parametrize(("metric", "text", "op", "threshold"), [
    (RATE, ">= 900MiB/s", ">=", 900.0), (RATE, "> 900", ">", 900.0), (RATE, "<=1GiB/s", "<=", 1024.0),
    (RATE, ">= 1MB/s", ">=", 1.0),  # MB means 2^20 bytes here, as in guc
    (RATE, ">= 8Mbit/s", ">=", 1e6 / 1048576), (CV, "< 5%", "<", 0.05), (CV, "== 12.5 %", "==", 0.125),
    (PLAIN, ">= 2000", ">=", 2000.0)])
def test_thresholds_are_read_in_the_metrics_unit(metric, text, op, threshold):
    e = parse_expectation(metric, text)
    assert (e.metric, e.op, e.text) == (metric.name, op, " ".join(text.split()))
    assert e.threshold == pytest.approx(threshold)


@pytest.mark.parametrize(("metric", "text", "why"), [
    (RATE, "900MiB/s", "write <op> <number>"), (RATE, "=> 900", "write <op> <number>"),
    (RATE, ">= 900 parsecs", "bad rate"), (CV, "< 5", "needs its %"), (PLAIN, ">= 2000/s", "without a unit")])
def test_bad_thresholds_say_what_is_wrong(metric, text, why):
    with pytest.raises(ExpectError, match=why):
        parse_expectation(metric, text)


def test_holds_for_every_operator():
    values = {op: parse_expectation(PLAIN, f"{op} 10") for op in ("<", "<=", ">", ">=", "==")}
    assert [op for op, e in values.items() if e.holds(10.0)] == ["<=", ">=", "=="]
    assert [op for op, e in values.items() if e.holds(11.0)] == [">", ">="]


def test_the_loader_reports_bad_thresholds_at_their_place(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(textwrap.dedent("""\
        version: 1
        name: bad
        defaults: {source: "ftp://h/dev/zero", target: "ftp://h/dev/null"}
        tests:
          - id: a
            kind: guc
            expect: {median_rate: ">= 900 parsecs"}
          - id: b
            kind: guc
            expect: {files_per_s: ">= 10"}
    """))
    out = gftpwb("run", str(path), "--dry-run")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert f"{path}:7:27: tests[0].expect.median_rate: bad threshold '>= 900 parsecs'" in out.stderr
    # files_per_s is gfapi's metric: a guc test cannot have it
    assert f"{path}:10:14: unknown key 'files_per_s' in tests[1].expect; allowed: cv, mean_rate" in out.stderr


@pytest.mark.real
def test_a_real_run_checks_thresholds_and_exits_8(tmp_path, gridftp):
    scenario = tmp_path / "gate.yaml"
    scenario.write_text(textwrap.dedent(f"""\
        version: 1
        name: gate
        defaults:
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
          options: {{length: 64M, parallel: 2}}
          expect: {{min_rate: "> 1MiB/s"}}
        tests:
          - id: easy
            kind: guc
            repeat: 3
            expect: {{median_rate: ">= 1MB/s", cv: "< 1000%"}}
          - id: impossible
            kind: guc
            repeat: 3
            expect: {{median_rate: ">= 1000Gbit/s"}}
    """))
    results = tmp_path / "r"
    out = gftpwb("run", str(scenario), "--results", str(results), env={"COLUMNS": "200"})
    assert out.returncode == 8, out.stdout + out.stderr
    assert "Expectations: 1 of 5 violated" in out.stdout and "VIOLATED" in out.stdout
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    assert [r["status"] for r in records] == ["passed"] * 6  # every run passed: the threshold fails the run
    lines = [json.loads(line) for line in (results / "expectations.jsonl").read_text().splitlines()]
    assert [line["test_id"] for line in lines] == ["easy", "impossible"]  # one line per test, as it ended
    checks = [c for line in lines for c in line["checks"]]
    assert [(c["test_id"], c["metric"], c["expect"], c["ok"]) for c in checks] == [
        ("easy", "min_rate", "> 1MiB/s", True),  # from the defaults
        ("easy", "median_rate", ">= 1MB/s", True), ("easy", "cv", "< 1000%", True),
        ("impossible", "min_rate", "> 1MiB/s", True), ("impossible", "median_rate", ">= 1000Gbit/s", False)]
    rates = sorted(r["rate_incl_setup_mib_s"] for r in records if r["test_id"] == "impossible")
    assert next(c for c in checks if not c["ok"])["value"] == pytest.approx(rates[1])  # the median of three

    junit = tmp_path / "junit.xml"
    report = gftpwb("report", str(results), "--junit", str(junit), "--json")
    assert report.returncode == 0, report.stderr
    suites = ET.parse(junit).getroot()
    failures = [(tc.get("classname"), tc.get("name"), tc.find("failure").get("type"))  # type: ignore[union-attr]
                for tc in suites.iter("testcase") if tc.find("failure") is not None]
    assert failures == [("gate.impossible", "expect #001 -p 2 -len 64M: median_rate >= 1000Gbit/s", "expectation")]
    doc = json.loads(report.stdout)
    assert sum(1 for c in doc["directories"][0]["expectations"] if not c["ok"]) == 1


@pytest.mark.real
def test_iperf3_cases_have_statistics_thresholds_and_history(tmp_path):
    """The iperf3 kind names its figures like every kind: report, expect: and the history see them."""
    scenario = tmp_path / "net.yaml"
    scenario.write_text(textwrap.dedent("""\
        version: 1
        name: net
        tests:
          - id: base
            kind: iperf3
            duration: 1s
            repeat: 3
            expect: {median_rate: ">= 1MiB/s", cv: "< 1000%"}
    """))
    results = tmp_path / "r"
    out = gftpwb("run", str(scenario), "--results", str(results), env={"COLUMNS": "200"})
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Expectations: 0 of 2 violated" in out.stdout
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    received = sorted(r["details"]["iperf3"]["received"]["mib_s"] for r in records)
    doc = json.loads(gftpwb("report", str(results), "--json").stdout)
    (case,) = doc["directories"][0]["cases"]
    figures = {f["key"]: f for f in case["figures"]}
    assert list(figures) == ["rate_guc_avg_mib_s", "rate_incl_setup_mib_s"]  # iperf3's receiver rate first
    assert figures["rate_guc_avg_mib_s"]["stats"]["n"] == 3
    assert figures["rate_guc_avg_mib_s"]["stats"]["median"] == pytest.approx(received[1], rel=1e-6)
    query = gftpwb("results", "query", "SELECT figure, count(*) AS n, median(value) AS m FROM figures WHERE counted "
                   "GROUP BY ALL ORDER BY figure", "--results-base", str(tmp_path), "--json")
    rows = {row["figure"]: row for row in json.loads(query.stdout)}
    assert rows["rate_guc_avg_mib_s"]["n"] == 3 and rows["rate_guc_avg_mib_s"]["m"] == pytest.approx(received[1])
