"""`gftpwb report`: console, --json (against its schema and a golden file), --csv and --junit (golden
files), errors; and the summary at the end of `gftpwb run` after --resume.

Golden files live in tests/golden/report/; after an intended change, rewrite them with
``GFTPWB_UPDATE_GOLDEN=1 pytest tests/test_report.py`` and commit them with the reason.
"""

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from jsonschema import Draft7Validator
from support.clihelp import gftpwb
from support.report_fixture import write_mixed

from gftpwb import __version__

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden" / "report"
SCHEMA = json.loads((ROOT / "schemas" / "report.schema.json").read_text())
UPDATE = bool(os.environ.get("GFTPWB_UPDATE_GOLDEN"))
WIDE = {"COLUMNS": "200"}


def normalised(text: str) -> str:
    return text.replace(f"gftpwb {__version__}", "gftpwb <version>")


def check_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        path.write_text(normalised(text))
    assert normalised(text) == path.read_text(), f"{name} differs from tests/golden/report/{name}"


@pytest.fixture
def mixed(tmp_path):
    write_mixed(tmp_path / "mixed")
    return tmp_path


def test_json_matches_its_schema_and_the_golden_file(mixed):
    out = gftpwb("report", "mixed", "--json", cwd=mixed)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    Draft7Validator.check_schema(SCHEMA)
    assert list(Draft7Validator(SCHEMA).iter_errors(doc)) == []
    check_golden("report.json", out.stdout)


def test_json_says_what_the_statistics_left_out(mixed):
    doc = json.loads(gftpwb("report", "mixed", "--json", cwd=mixed).stdout)
    (directory,) = doc["directories"]
    assert directory["counts"] == {"failed": 1, "passed": 16, "timeout": 1} and directory["not_run"] == ["late/0"]
    cases = {(c["test_id"], c["case"]): c for c in directory["cases"]}
    sweep0 = cases[("sweep", 0)]
    rate, avg = sweep0["figures"]
    assert rate["stats"]["n"] == 5  # six runs, the warm-up left out
    assert rate["stats"]["median"] == 701.2 and rate["stats"]["outliers"] == [4]
    assert [r["run_id"] for r in sweep0["runs"] if r["outlier"]] == ["sweep[0]/5"]
    assert avg["stats"]["n"] == 4 and avg["excluded"] == {"quantised": 1}
    assert sweep0["runs"][0]["warmup"] is True and sweep0["runs"][0]["counted"] is False
    stream = cases[("stream", 2)]
    assert stream["runs_total"] == 2 and stream["runs"][1]["status"] == "passed"  # the resumed run's record
    assert stream["runs"][0]["facts"] == {"mode": "stream", "live_progress": False}
    bumpy = next(r for r in cases[("sweep", 1)]["runs"] if r["run_id"] == "sweep[1]/3")
    assert bumpy["samples"] == {"series": 1, "points": 6, "stalls": [[4.0, 8.0]], "gaps": [[8.0, 16.0]]}
    tune = cases[("tune", 6)]["runs"][0]["facts"]
    assert tune["pick"] == "-vb -p 4" and tune["p_within_margin"] == 0.91
    assert cases[("files", 5)]["figures"][0]["key"] == "files_s"


def test_junit_and_csv_match_the_golden_files(mixed):
    out = gftpwb("report", "mixed", "--junit", "junit.xml", "--csv", "cases.csv", env=WIDE, cwd=mixed)
    assert out.returncode == 0, out.stderr
    junit = (mixed / "junit.xml").read_text()
    check_golden("junit.xml", junit)
    check_golden("cases.csv", (mixed / "cases.csv").read_text())
    check_golden("console.txt", out.stdout)
    root = ET.fromstring(junit)
    (suite,) = root
    cases = suite.findall("testcase")
    # 20 runs (the latest record of each), two thresholds checked (the latest line of the test), one not run
    assert len(cases) == 23 == int(root.get("tests"))
    failures = {c.get("name"): c.find("failure").get("type") for c in cases if c.find("failure") is not None}
    assert failures == {"sweep[1]/2": "failed", "slow/0": "timeout",
                        "expect #000 -p 1 -len 1G: median_rate >= 900MiB/s": "expectation"}
    assert [c.get("name") for c in cases if c.find("skipped") is not None] == ["late/0"]
    warm = next(c for c in cases if c.get("name") == "sweep[0]/0")
    assert {p.get("name"): p.get("value") for p in warm.iter("property")}["warmup"] == "true"


def test_console_shows_the_statistics_and_the_stalls(mixed):
    out = gftpwb("report", "mixed", env=WIDE, cwd=mixed)
    assert out.returncode == 0, out.stderr
    row = next(line for line in out.stdout.splitlines() if "│ sweep" in line and "│ 000" in line)
    cells = [c.strip() for c in row.split("│")[1:-1]]
    assert cells[4:10] == ["6/6", "5", "701.2", "623.4 [397.6, 1020.8]", "28.1 %", "752.8"]
    assert "1 warm-up; outlier sweep[0]/5; guc avg: 1 quantised" in cells[10]
    assert "sweep[1]/3: stalled for 4.0 s from 4.0 s; no progress report for 8.0 s from 8.0 s" in out.stdout
    assert "P(within margin)" in out.stdout and re.search(r"900\.0\s", out.stdout)
    assert not re.search(r"\d-\d", out.stdout.split("Results")[1].split("Auto-tunes")[0].replace("-len", ""))


def test_several_directories_and_user_errors(mixed, tmp_path):
    write_mixed(mixed / "again")
    doc = json.loads(gftpwb("report", "mixed", "again", "--json", cwd=mixed).stdout)
    assert [d["path"] for d in doc["directories"]] == ["mixed", "again"]
    missing = gftpwb("report", "nowhere", cwd=mixed)
    assert missing.returncode == 2 and missing.stderr == "gftpwb: nowhere: no such results directory\n"
    (mixed / "empty").mkdir()
    empty = gftpwb("report", "empty", cwd=mixed)
    assert empty.returncode == 2 and "not a gftpwb results directory" in empty.stderr
    assert "Traceback" not in missing.stderr + empty.stderr
    bad = gftpwb("report", "mixed", "--junit", str(tmp_path / "no" / "such" / "dir.xml"), cwd=mixed)
    assert bad.returncode == 2 and bad.stderr.startswith("gftpwb: cannot write the JUnit XML to ")


def test_help_has_examples():
    out = gftpwb("report", "--help")
    assert out.returncode == 0 and "examples:" in out.stdout and "gftpwb report results/" in out.stdout


def test_a_torn_samples_line_is_reported_not_fatal(mixed):
    with open(mixed / "mixed" / "samples.jsonl", "a") as handle:
        handle.write('{"run_id": "x", "series"')
    out = gftpwb("report", "mixed", env=WIDE, cwd=mixed)
    assert out.returncode == 0 and "warning: samples.jsonl: line 4: unreadable samples skipped" in out.stdout


SCENARIO = """\
version: 1
name: resumed
defaults: {source: "ftp://fake/dev/zero", target: "file:///dev/null", options: {length: 3M}}
tests:
  - {id: a, kind: guc, repeat: 3, warmup: 1}
  - {id: b, kind: guc, matrix: {parallel: [1, 2]}, repeat: 2, order: interleaved}
"""


def test_run_summary_after_resume_covers_every_run(tmp_path, fake_guc):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    first = gftpwb("run", "s.yaml", "--results", "out", cwd=tmp_path, env=WIDE)
    assert first.returncode == 0, first.stderr
    journal = tmp_path / "out" / "results.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    assert [json.loads(line)["run_id"] for line in lines] == ["a/0", "a/1", "a/2", "b[1]/0", "b[2]/0", "b[1]/1",
                                                               "b[2]/1"]  # interleaved repeats
    assert [json.loads(line)["details"].get("warmup") for line in lines[:3]] == [True, None, None]
    journal.write_text("".join(lines[:4]))  # as if stopped after four runs
    resumed = gftpwb("run", "s.yaml", "--resume", "out", cwd=tmp_path, env=WIDE)
    assert resumed.returncode == 0, resumed.stderr
    assert "3 run(s) (4 already done, resuming)" in resumed.stdout
    rows = {c[0] + c[1]: c for c in ([x.strip() for x in line.split("│")[1:-1]]
                                      for line in resumed.stdout.splitlines() if line.startswith("│"))}
    assert rows["a000"][4] == "3/3" and "1 warm-up" in rows["a000"][10]
    assert rows["b001"][4] == "2/2" and rows["b002"][4] == "2/2"
    assert "7 passed of 7 planned" in resumed.stdout
    samples = [json.loads(line) for line in (tmp_path / "out" / "samples.jsonl").read_text().splitlines()]
    # both attempts wrote the runs they ran (readers take the last line of a run id)
    assert len(samples) == 10 and len({s["run_id"] for s in samples}) == 7
    assert samples[0]["series"][""]["b"] == [1048576, 2097152, 3145728]


def test_json_text_is_the_document_with_one_line_per_run(mixed):
    from gftpwb.core.report_json import report_data, report_json
    from gftpwb.shell.results_index import read_directory

    summaries = [read_directory(str(mixed / "mixed"))]
    text = report_json(summaries, "gftpwb test")
    assert json.loads(text) == json.loads(json.dumps(report_data(summaries, "gftpwb test")))
    run_lines = [line for line in text.splitlines() if line.lstrip().startswith('{"run_id": ')]
    assert len(run_lines) == sum(len(c.runs) for c in summaries[0].cases) == 20


def test_report_in_process_returns_and_leaves_the_collector_as_it_was(mixed, capsys):
    """report pauses the cyclic GC while reading, freezes what it read while writing, and ends the
    process at once only as the program: called as ``main(argv)`` it returns, the collector back on
    and nothing left frozen."""
    import gc

    from gftpwb.cli.main import main

    assert gc.isenabled()
    directory = str(mixed / "mixed")
    assert main(["report", directory]) == 0
    assert main(["compare", directory, directory]) == 0
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert "sweep" in capsys.readouterr().out


def test_paused_gc_nests_and_restores():
    import gc

    from gftpwb.core.gcpause import paused_gc

    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner one found it off and leaves it off
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # off before, off after
    finally:
        gc.enable()


STUDY = Path(__file__).resolve().parent / "golden" / "teragrid-study"  # a real lab run of the study scenario


@pytest.fixture
def study(tmp_path):
    """The journal, samples, plan and meta of a real run of scenarios/teragrid-study.yaml on the shaped lab
    (tests/test_study_real.py's, 2 runs per case), copied so the report names it ``study``."""
    (tmp_path / "study").mkdir()
    for path in STUDY.iterdir():
        (tmp_path / "study" / path.name).write_bytes(path.read_bytes())
    return tmp_path


def test_json_and_csv_carry_the_efficiency_disk_and_stripe_tables(study):
    out = gftpwb("report", "study", "--json", "--csv", "study.csv", cwd=study)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["version"] == 2 and list(Draft7Validator(SCHEMA).iter_errors(doc)) == []
    (directory,) = doc["directories"]
    tables = directory["tables"]
    check_golden("study-tables.json", json.dumps(tables, indent=1) + "\n")
    check_golden("study.csv", (study / "study.csv").read_text())
    # The efficiency is the ratio of the means of the cases' counted runs, in the same document.
    cases = {(c["test_id"], c["case"], c["kind"]): c for c in directory["cases"]}

    def mean(case, key):
        values = [r["values"][key] for r in case["runs"] if r["counted"] and key not in r["excluded"]]
        return sum(values) / len(values)

    assert [(e["test_id"], e["case"], e["streams"]) for e in tables["efficiency"]] == [
        ("guc-vs-iperf3", 0, 1), ("guc-vs-iperf3", 1, 2)]
    for e in tables["efficiency"]:
        guc, iperf3 = cases[(e["test_id"], e["case"], "guc")], cases[(e["test_id"], e["case"], "iperf3")]
        want = mean(guc, "rate_incl_setup_mib_s") / mean(iperf3, "rate_guc_avg_mib_s")
        assert e["efficiency_rate"]["value"] == pytest.approx(want, abs=1e-6)
        # 2 runs a side: too few for an interval of the ratio (it needs 3)
        assert e["efficiency_rate"]["ci"] is None and e["efficiency_rate"]["n_numerator"] == 2
        assert e["efficiency_guc_avg"] is None  # every guc avg of these short runs was quantised
    (disk,) = tables["disk_vs_memory"]
    assert disk["memory_case"] == {"test_id": "memory", "case": 2, "params_text": "-p 2 -len 16M"}
    assert disk["files"]["count"] == 4 and disk["files"]["caches"] == "caches dropped"
    assert disk["disk_vs_memory"]["value"] == pytest.approx(
        mean(cases[("disk", 3, "guc")], "rate_incl_setup_mib_s") / mean(cases[("memory", 2, "guc")],
                                                                        "rate_incl_setup_mib_s"), abs=1e-6)
    assert disk["probe_source_read_mib_s"] > 1000 and disk["limited_by"].startswith("network/guc")
    assert [(s["test_id"], s["stripes"], len(s["stripe_median_mib_s"])) for s in tables["stripes"]] == [
        ("striped-1", 1, 1), ("striped-2", 2, 2)]
    # The CSV: the same figures after the cases' rows, the value in its statistic's column.
    import csv

    rows = list(csv.DictReader((study / "study.csv").open()))
    derived = {(r["test"], r["case"], r["figure"]): r for r in rows
               if r["unit"] == "ratio" or r["figure"].startswith("stripe[")}
    eff = derived[("guc-vs-iperf3", "0", "efficiency.rate_incl_setup_mib_s")]
    assert float(eff["mean"]) == pytest.approx(tables["efficiency"][0]["efficiency_rate"]["value"], abs=1e-6)
    assert eff["ci_mean_low"] == "" and eff["median"] == "" and eff["n"] == "2"
    stripe = derived[("striped-2", "5", "stripe[1].mib_s")]
    assert float(stripe["median"]) == tables["stripes"][1]["stripe_median_mib_s"][1]


def test_summary_runs_are_the_rows_runrow_would_make(mixed):
    """The summary makes its 100,000 RunRows without the frozen dataclass's __init__: each must be
    the RunRow that __init__ makes of the same fields (every field set, equal, same repr and hash of its dict)."""
    import dataclasses

    from gftpwb.core.summary import RunRow
    from gftpwb.shell.results_index import read_directory

    runs = [run for case in read_directory(str(mixed / "mixed")).cases for run in case.runs]
    assert runs
    names = [f.name for f in dataclasses.fields(RunRow)]
    for run in runs:
        assert type(run) is RunRow and sorted(vars(run)) == sorted(names)
        made = RunRow(**{name: getattr(run, name) for name in names})
        assert made == run and repr(made) == repr(run) and vars(made) == vars(run)
        with pytest.raises(dataclasses.FrozenInstanceError):
            run.status = "failed"  # type: ignore[misc]


NUMBER = re.compile(r"[-+]?\d[\d.]*( ?%)?( ± [\d.]+)?|\d+/\d+")


def table_numbers(text: str) -> set[str]:
    """The number cells of the tables drawn in ``text`` (medians, mean ± CI, ok/runs, CV, case numbers)."""
    cells = (c.strip() for line in text.splitlines() if line.startswith("│") for c in line.split("│")[1:-1])
    return {c for c in cells if NUMBER.fullmatch(c)}


def assert_numbers_whole(wide: str, narrow: str, width: int) -> None:
    """Every number of the wide drawing is in the narrow one whole, on one line; nothing cut."""
    numbers = table_numbers(wide)
    assert len(numbers) > 20
    lines = [line for line in narrow.splitlines() if line.startswith("│")]
    assert "…" not in narrow
    assert [n for n in sorted(numbers) if not any(f" {n} " in line for line in lines)] == []
    assert max(len(line) for line in narrow.splitlines() if line[:1] in "┏┃┡│└") <= width  # tables fit


@pytest.mark.parametrize("width", ["80", "100", "120"])
def test_console_never_cuts_a_number_in_a_narrow_console(mixed, width):
    """At 80 columns rich cut the medians (``1125…``); the tables fold text and keep numbers whole."""
    wide = gftpwb("report", "mixed", env=WIDE, cwd=mixed)
    narrow = gftpwb("report", "mixed", env={"COLUMNS": width}, cwd=mixed)
    assert narrow.returncode == 0, narrow.stderr
    assert_numbers_whole(wide.stdout, narrow.stdout, int(width))


def test_run_summary_never_cuts_a_number_at_80_columns(tmp_path, fake_guc):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    run = gftpwb("run", "s.yaml", "--results", "out", cwd=tmp_path, env={"COLUMNS": "80"})
    assert run.returncode == 0, run.stderr
    wide = gftpwb("report", "out", env=WIDE, cwd=tmp_path)
    numbers = table_numbers(wide.stdout)
    assert "…" not in run.stdout and numbers
    lines = [line for line in run.stdout.splitlines() if line.startswith("│")]
    assert [n for n in sorted(numbers) if not any(f" {n} " in line for line in lines)] == []
