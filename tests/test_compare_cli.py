"""``gftpwb compare A B``: the change of each case's median with its bootstrap CI, the Mann-Whitney U
test and the verdict, --threshold, --fail-on-regression (exit 1), --json against
schemas/compare.schema.json, and the warning when the environments differ."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft7Validator
from scipy.stats import mannwhitneyu
from support.clihelp import gftpwb
from support.report_fixture import write_mixed

from gftpwb.core.compare import compare_summaries
from gftpwb.shell.results_index import read_directory

SCHEMA = json.loads((Path(__file__).resolve().parent.parent / "schemas" / "compare.schema.json").read_text())
WIDE = {"COLUMNS": "220"}


def scaled(directory: Path, factors: dict[str, float]) -> None:
    """Multiply the rates of the named tests' runs in ``directory``'s journal (a changed B)."""
    journal = directory / "results.jsonl"
    lines = []
    for line in journal.read_text().splitlines():
        record = json.loads(line)
        factor = factors.get(record["test_id"])
        if factor and record.get("rate_incl_setup_mib_s") is not None:
            record["rate_incl_setup_mib_s"] *= factor
        lines.append(json.dumps(record))
    journal.write_text("\n".join(lines) + "\n")


@pytest.fixture
def pair(tmp_path):
    write_mixed(tmp_path / "a")
    b = write_mixed(tmp_path / "b")
    scaled(b, {"sweep": 0.3, "stream": 1.3})  # sweep much slower; stream faster but only 2 runs a side
    return tmp_path


def values(directory: Path, run_prefix: str) -> list[float]:
    out = []
    for line in (directory / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        if (r["run_id"].startswith(run_prefix) and r["status"] == "passed" and r.get("rate_incl_setup_mib_s")
                and not (r.get("details") or {}).get("warmup")):
            out.append(r["rate_incl_setup_mib_s"])
    return out


def test_verdicts_follow_the_test_and_the_threshold(pair):
    c = compare_summaries(read_directory(str(pair / "a")), read_directory(str(pair / "b")))
    by_case = {(x.test_id, x.case_b): x for x in c.changes}
    sweep = by_case[("sweep", 0)]
    expected_p = mannwhitneyu(values(pair / "a", "sweep[0]"), values(pair / "b", "sweep[0]"),
                              alternative="two-sided").pvalue
    assert sweep.p_value == pytest.approx(expected_p) and sweep.p_value < 0.05
    assert sweep.change_pct == pytest.approx(-70.0) and sweep.verdict == "slower"
    assert sweep.ci_low_pct is not None and sweep.ci_low_pct <= -70.0 <= sweep.ci_high_pct  # type: ignore[operator]
    assert (sweep.basis, sweep.runs_needed) == ("test", None)
    stream = by_case[("stream", 2)]  # +30 %, but two runs a side cannot reach p < 0.05, nor give a CI
    assert stream.change_pct == pytest.approx(30.0) and stream.p_value > 0.05
    assert (stream.verdict, stream.basis, stream.runs_needed, stream.ci_low_pct) == ("too few runs", None, (4, 4),
                                                                                      None)
    assert by_case[("files", 5)].verdict == "too few runs"  # 3 runs a side: no verdict either way
    assert by_case[("slow", 3)].verdict == "no data"
    assert by_case[("sweep", 1)].verdict == "too few runs"  # -70 %, but two runs a side
    assert c.regressions == 1
    loose = compare_summaries(read_directory(str(pair / "a")), read_directory(str(pair / "b")), threshold_pct=80)
    assert loose.regressions == 0  # a 70 % change is below an 80 % threshold


def test_console_exit_codes_and_json(pair):
    out = gftpwb("compare", "a", "b", env=WIDE, cwd=pair)
    assert out.returncode == 0, out.stderr
    row = next(line for line in out.stdout.splitlines() if "│ sweep" in line and "│ 000" in line)
    assert "-70.0 %" in row and "slower" in row and "701.2 (n=5)" in row and "210.4 (n=5)" in row and "0.008" in row
    assert "5 compared: 0 faster, 1 slower, 1 without a significant change, 3 with too few runs to say" in out.stdout
    assert "3 of 5 case(s) have too few runs for Mann-Whitney U (two-sided) to reach p < 0.05 at all: no verdict " \
           "and no CI of the change for them. It needs 4 runs a side" in " ".join(out.stdout.split())
    assert "Mann-Whitney U (two-sided)" in out.stdout
    gate = gftpwb("compare", "a", "b", "--fail-on-regression", cwd=pair)
    assert gate.returncode == 1
    assert gftpwb("compare", "a", "a", "--fail-on-regression", cwd=pair).returncode == 0
    assert gftpwb("compare", "a", "b", "--fail-on-regression", "--threshold", "80", cwd=pair).returncode == 0
    doc = json.loads(gftpwb("compare", "a", "b", "--json", cwd=pair).stdout)
    Draft7Validator(SCHEMA).validate(doc)
    assert doc["regressions"] == 1 and doc["environment_differences"] == []
    sweep = next(x for x in doc["cases"] if x["test_id"] == "sweep" and x["case_b"] == 0)
    assert sweep["verdict"] == "slower" and sweep["a"]["n"] == 5 and sweep["change_ci_pct"]["low"] <= -70


def test_environment_differences_warn_and_user_errors(pair, tmp_path):
    meta = json.loads((pair / "b" / "meta.json").read_text())
    meta["environment"]["hosts"]["local"]["kernel"] = "6.12.0-other"
    (pair / "b" / "meta.json").write_text(json.dumps(meta))
    out = gftpwb("compare", "a", "b", "--json", cwd=pair)
    assert json.loads(out.stdout)["environment_differences"] == [
        {"host": "local", "what": "kernel", "a": "6.1.0-test", "b": "6.12.0-other"}]
    assert "gftpwb: warning: environments differ: local: kernel: A '6.1.0-test', B '6.12.0-other'" in out.stderr
    bad = gftpwb("compare", "a", "b", "--threshold", "-1", cwd=pair)
    assert bad.returncode == 2 and "--threshold must be" in bad.stderr
    missing = gftpwb("compare", "a", "nowhere", cwd=pair)
    assert missing.returncode == 2 and "nowhere" in missing.stderr and "Traceback" not in missing.stderr
    help_text = gftpwb("compare", "--help").stdout
    assert "examples:" in help_text and "--fail-on-regression" in help_text


THREE_AND_FOUR = """\
version: 1
name: few
defaults:
  source: ftp://127.0.0.1:2811/dev/zero
  target: ftp://127.0.0.1:2811/dev/null
  engine: simulated
  link: {{bandwidth: {bandwidth}, rtt: 10ms, noise: 10%}}
  options: {{length: 1G}}
tests:
  - id: three
    kind: guc
    repeat: 3
  - id: four
    kind: guc
    repeat: 4
"""


@pytest.fixture
def few_runs(tmp_path):
    """Two runs of one scenario (simulated engine: seeded, the same numbers everywhere), B on a link 40 %
    slower: 3 runs a side in test ``three``, 4 in ``four``."""
    for side, bandwidth in (("a", "1Gbit/s"), ("b", "600Mbit/s")):
        scenario = tmp_path / f"{side}.yaml"
        scenario.write_text(THREE_AND_FOUR.format(bandwidth=bandwidth))
        run = gftpwb("run", str(scenario), "--results", str(tmp_path / side), "--progress", "never")
        assert run.returncode == 0, run.stderr
    return tmp_path


def test_three_runs_a_side_get_no_verdict_only_the_runs_the_test_needs(few_runs):
    """3 runs a side, B on a link 40 % slower: Mann-Whitney's p cannot go under 0.100, and every run of B
    below every run of A happens by chance 1 time in 10, so compare gives no verdict and no interval, only
    the runs the test needs; with 4 a side it decides."""
    c = compare_summaries(read_directory(str(few_runs / "a")), read_directory(str(few_runs / "b")))
    three, four = c.changes
    assert three.p_value == pytest.approx(0.1) and three.change_pct < -30
    assert (three.verdict, three.basis, three.runs_needed, three.significant) == ("too few runs", None, (4, 4), False)
    assert (three.ci_low_pct, three.ci_high_pct) == (None, None)
    assert (four.verdict, four.basis, four.runs_needed, four.significant) == ("slower", "test", None, True)
    assert four.ci_high_pct is not None and four.ci_high_pct < 0  # every B run slower than every A run
    out = gftpwb("compare", "a", "b", env=WIDE, cwd=few_runs)
    assert out.returncode == 0, out.stderr
    row = next(line for line in out.stdout.splitlines() if "│ three" in line)
    assert "too few runs" in row and "0.100" in row and "slower" not in row
    assert "no significant change" not in out.stdout
    text = " ".join(out.stdout.split())
    assert ("1 of 2 case(s) have too few runs for Mann-Whitney U (two-sided) to reach p < 0.05 at all: no verdict and "
            "no CI of the change for them. It needs 4 runs a side") in text
    assert "2 compared: 0 faster, 1 slower, 0 without a significant change, 1 with too few runs to say" in text
    assert gftpwb("compare", "a", "b", "--fail-on-regression", cwd=few_runs).returncode == 1
    doc = json.loads(gftpwb("compare", "a", "b", "--json", cwd=few_runs).stdout)
    Draft7Validator(SCHEMA).validate(doc)
    assert doc["version"] == 2 and doc["regressions"] == 1
    assert [(x["verdict"], x["basis"], x["runs_needed"]) for x in doc["cases"]] == [
        ("too few runs", None, {"a": 4, "b": 4}), ("slower", "test", None)]


@pytest.mark.real
def test_cases_that_differ_in_what_was_varied_line_up_when_told_to(tmp_path):
    """Did 16 threads help? Two runs of one small-file test with 4 and then 16 threads have no case in common
    until compare is told to ignore the threads (or to match only some parameters); a parameter no case has
    and two cases one side cannot tell apart are errors that say so."""
    def run(threads: int, name: str, extra: str = "") -> Path:
        scenario = tmp_path / f"{name}.yaml"
        scenario.write_text(f"version: 1\nname: sf\ntests:\n  - id: create\n    kind: gfapi\n"
                            f"    directory: {tmp_path / 'data'}\n    threads: {threads}\n    files: 50\n"
                            f"    file_size: 4K\n    repeat: 2\n{extra}")
        out = gftpwb("run", str(scenario), "--results", str(tmp_path / name), "--progress", "never", timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr
        return tmp_path / name

    four, sixteen = run(4, "four"), run(16, "sixteen")
    plain = gftpwb("compare", str(four), str(sixteen), env=WIDE)
    assert plain.returncode == 2 and "have no case in common" in plain.stderr and "--ignore" in plain.stderr
    ignored = gftpwb("compare", str(four), str(sixteen), "--ignore", "threads", env=WIDE)
    assert ignored.returncode == 0, ignored.stderr
    assert "1 compared" in ignored.stdout and "(B: threads=16)" in ignored.stdout, ignored.stdout
    data = json.loads(gftpwb("compare", str(four), str(sixteen), "--match", "workload,files", "--json").stdout)
    Draft7Validator(SCHEMA).validate(data)
    (case,) = data["cases"]
    assert case["varied"] == [{"parameter": "threads", "a": "4", "b": "16"}] and case["measured_differently"] == []
    assert data["matched_by"] == {"ignore": [], "only": ["workload", "files"]}
    typo = gftpwb("compare", str(four), str(sixteen), "--ignore", "thread")
    assert typo.returncode == 2 and "no case has the parameter thread (they have: " in typo.stderr
    assert "Traceback" not in typo.stderr
    both = run(4, "both", "    matrix: {threads: [4, 16]}\n")
    ambiguous = gftpwb("compare", str(four), str(both), "--ignore", "threads")
    assert ambiguous.returncode == 2 and "B has two cases that match as one" in ambiguous.stderr
    assert "threads 4 and 16" in ambiguous.stderr and "Traceback" not in ambiguous.stderr
