"""Fuzz suites over what gftpwb reads back: results directories (journal, samples,
meta.json, plan.json) as every report reads them, and scenarios whose values are of the wrong type
(the schema's and the kinds' errors). No traceback, every problem or error with its line; seeded per
run, the seed printed (GFTPWB_FUZZ_SEED=N repeats a run), bounded by the number of examples."""

from __future__ import annotations

import copy
import io
import json
import random
from pathlib import Path

import pytest
import yaml
from conftest import ROOT
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from rich.console import Console
from support.fuzzseed import FUZZ_SEED, say_seed
from support.report_fixture import records, write_mixed

from gftpwb.cli.report import print_directory
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import GftpwbError, ScenarioError, UsageError
from gftpwb.core.junit import junit_xml
from gftpwb.core.masking import mask
from gftpwb.core.plan import plan
from gftpwb.core.recordcheck import unreadable
from gftpwb.core.records import RecordError, ResultRecord, parse_journal
from gftpwb.core.report_csv import report_csv
from gftpwb.core.report_json import report_json
from gftpwb.core.samples import parse_samples
from gftpwb.shell.results_index import list_results, load_records, read_directory

# Values of every JSON type, and the awkward ones: huge, negative, not finite, paths, URLs with passwords.
VALUES = [None, True, False, 0, -1, 1.5, float("nan"), 1e308, 10**30, "", "x", "../../x", "ftp://u:pw@h/", [],
          [1, "a"], {}, {"a": 1}, {"x": [None]}]
KEYS = ["a", "mode", "files", "gfapi", "cluster", "last_done", "warmup", "stripes", "ranking", "x"]


def any_value(rng: random.Random, depth: int = 0):
    if depth < 2 and rng.random() < 0.2:
        return {rng.choice(KEYS): any_value(rng, depth + 1)}
    return rng.choice(VALUES)


def mutate(rng: random.Random, obj, depth: int = 0):
    """``obj`` with one value somewhere in it replaced by a value of another type (or a new key)."""
    if isinstance(obj, dict) and obj:
        key = rng.choice(list(obj)) if rng.random() < 0.9 else rng.choice(KEYS)
        obj[key] = any_value(rng) if rng.random() < 0.5 or depth > 4 else mutate(rng, obj.get(key), depth + 1)
        return obj
    if isinstance(obj, list) and obj:
        i = rng.randrange(len(obj))
        obj[i] = any_value(rng) if rng.random() < 0.5 else mutate(rng, obj[i], depth + 1)
        return obj
    return any_value(rng)


def mutate_lines(rng: random.Random, text: str, edits: int) -> str:
    lines = text.splitlines()
    for _ in range(edits):
        i = rng.randrange(len(lines))
        lines[i] = json.dumps(mutate(rng, json.loads(lines[i])))
    return "\n".join(lines) + "\n"


# The monitors' files of a run with a cpu monitor, as shell/sinks/monitors.py writes them.
MONITOR_LINES = [
    {"event": "sampler-started", "host": "local", "utc": "2026-11-22T10:00:00Z", "monitors": ["cpu"],
     "clock_offset_s": 0.0, "clock_uncertainty_s": 0.001},
    {"event": "sample", "monitor": "cpu", "type": "cpu", "host": "local", "utc": "2026-11-22T10:00:01Z", "t": 1.0,
     "span_s": 1.0, "values": {"busy_pct": 50.0, "iowait_pct": 1.5}},
    {"event": "sample", "monitor": "cpu", "type": "cpu", "host": "local", "utc": "2026-11-22T10:00:02Z", "t": 2.0,
     "span_s": 1.0, "error": "cannot read /proc/stat"},
    {"event": "sampler-ended", "host": "local", "utc": "2026-11-22T10:00:03Z"},
]
MONITOR_SUMMARIES = [{"run_id": "sweep[0]/1", "started_at": "2026-11-22T10:00:00Z", "ended_at": "2026-11-22T10:00:04Z",
                      "monitors": {"cpu": {"local": {"busy_pct": {"mean": 50.0, "min": 40.0, "max": 60.0, "n": 3}}}}}]


def damage(rng: random.Random, directory: Path) -> None:
    """Type changes in records, samples and monitor lines, byte edits (torn lines, NULs, bad UTF-8),
    other meta/plan."""
    (directory / "monitors.jsonl").write_text("".join(json.dumps(line) + "\n" for line in MONITOR_LINES))
    (directory / "monitor-summaries.jsonl").write_text("".join(json.dumps(line) + "\n" for line in MONITOR_SUMMARIES))
    for name in ("monitors.jsonl", "monitor-summaries.jsonl"):
        if rng.random() < 0.5:
            path = directory / name
            path.write_text(mutate_lines(rng, path.read_text(), rng.randrange(1, 4)))
    for name in ("results.jsonl", "samples.jsonl"):
        path = directory / name
        if rng.random() < 0.8:
            path.write_text(mutate_lines(rng, path.read_text(), rng.randrange(1, 6)))
        if rng.random() < 0.15:
            data = path.read_bytes()
            at = rng.randrange(len(data))
            path.write_bytes(data[:at] + rng.choice([b"\x00", b"}", b"\n", b"\xff\xfe", b""]) +
                             data[at + rng.randrange(3):])
    for name in ("meta.json", "plan.json"):
        path = directory / name
        if rng.random() < 0.4:
            path.write_text(json.dumps(mutate(rng, json.loads(path.read_text()))))


@seed(FUZZ_SEED)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(rng=st.randoms(use_true_random=False))
def test_damaged_results_directories_are_reported_never_a_traceback(tmp_path_factory, rng):
    """Every reader of a results directory (gftpwb report's console, JSON, CSV and JUnit, the TUI's
    browser) gets through a damaged one; what it skipped is a problem line with the file and line."""
    say_seed()
    directory = tmp_path_factory.mktemp("r")
    write_mixed(directory)
    damage(rng, directory)
    summary = read_directory(str(directory))
    for problem in summary.problems:
        assert problem.startswith(("results.jsonl: line ", "samples.jsonl: line ")), problem
    report_csv([summary])
    junit_xml([summary])
    json.loads(report_json([summary], "gftpwb fuzz"))
    print_directory(Console(file=io.StringIO(), width=120), summary)
    load_records(str(directory))
    list_results(str(directory.parent))


def scenario_bases() -> list[dict]:
    loaded = [yaml.safe_load(p.read_text()) for p in sorted((ROOT / "scenarios").glob("*.yaml"))]
    return [data for data in loaded if isinstance(data, dict)]


BASES = scenario_bases()
SCENARIO_VALUES = [None, True, 0, -1, 1.5, 1e300, 10**30, "", "x", "1M", "-5", "30s", "0s", "nan", "../x",
                   "ftp://u:p@h/x", [], [1, "a"], {}, {"a": 1}]
SCENARIO_KEYS = ["repeat", "timeout", "matrix", "options", "on", "needs", "hosts", "copies", "loops", "delay", "x"]


def mutate_scenario(rng: random.Random, obj, depth: int = 0):
    if isinstance(obj, dict) and obj:
        key = rng.choice(list(obj)) if rng.random() < 0.9 else rng.choice(SCENARIO_KEYS)
        obj[key] = (rng.choice(SCENARIO_VALUES) if rng.random() < 0.4 or depth > 5
                    else mutate_scenario(rng, obj.get(key), depth + 1))
        return obj
    if isinstance(obj, list) and obj:
        i = rng.randrange(len(obj))
        obj[i] = rng.choice(SCENARIO_VALUES) if rng.random() < 0.4 else mutate_scenario(rng, obj[i], depth + 1)
        return obj
    return rng.choice(SCENARIO_VALUES)


@seed(FUZZ_SEED)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rng=st.randoms(use_true_random=False), base=st.sampled_from(BASES), edits=st.integers(1, 3))
def test_scenarios_with_values_of_the_wrong_type_fail_with_a_position(rng, base, edits):
    """The example scenarios with values changed to other types: the schema's and the kinds' checks
    answer with file:line:col errors (or the scenario is still valid and plans), never a traceback."""
    say_seed()
    data = copy.deepcopy(base)
    for _ in range(edits):
        data = mutate_scenario(rng, data)
    text = yaml.safe_dump(data, sort_keys=False)
    try:
        planned = plan(load_scenario_text(text, "f.yaml"))
    except ScenarioError as exc:
        assert exc.diagnostics
        for diagnostic in exc.diagnostics:
            assert diagnostic.file == "f.yaml" and diagnostic.line >= 1, (text, str(diagnostic))
        return
    except GftpwbError as exc:  # a documented error with its own exit code (hosts files, caps)
        assert exc.exit_code not in (0, 1), exc
        return
    assert len(planned) >= 1


# --- what the fuzzing found, kept as plain tests ----------------------------------------------------


def good_record() -> dict:
    return dict(scenario="s", test_id="t", run_id="t/0", case=0, repeat=0, kind="guc", host="local",
                argv=["globus-url-copy"], status="passed")


@pytest.mark.parametrize(("field", "value", "said"), [
    ("case", "1", "case is a string (1), not a whole number of 0 or more"),
    ("bytes", 1.5, "bytes is a number (1.5), not a whole number of 0 or more"),
    ("details", "x", "details is a string (x), not an object"),
    ("params", [1], "params is an array ([1]), not an object"),
    ("seconds", float("nan"), "seconds is a number (nan), not a finite number"),
    ("argv", ["a", 1], "argv is an array (['a', 1]), not an array of strings"),
    ("status", None, "status is null, not a string"),
])
def test_a_record_field_of_the_wrong_type_is_a_record_error(field, value, said):
    with pytest.raises(RecordError) as caught:
        ResultRecord.from_dict({**good_record(), field: value})
    assert str(caught.value) == said
    assert isinstance(caught.value, TypeError) and isinstance(caught.value, ValueError)  # old readers catch it


def test_a_journal_skips_a_record_its_kind_cannot_read_and_says_which_line():
    fine = [r.to_json() for r in records()[:2]]
    damaged = json.loads(fine[1])
    damaged["details"]["stripes"] = "not an object"  # the guc report reads .get() of it
    text = "\n".join([fine[0], json.dumps(damaged), json.dumps({**good_record(), "case": "x"})]) + "\n"
    kept, problems = parse_journal(text, unreadable)
    assert [r.run_id for r in kept] == [records()[0].run_id]
    assert problems[0].startswith(f"line 2: record of {damaged['run_id']} skipped: the guc kind cannot read")
    assert problems[1] == "line 3: unreadable record skipped (case is a string (x), not a whole number of 0 or more)"


def test_a_passed_guc_record_without_its_time_has_a_headline():
    assert unreadable(ResultRecord.from_dict(good_record())) is None


def test_samples_whose_series_differ_in_length_are_skipped_with_their_line():
    line = json.dumps({"run_id": "a/0", "v": 1, "series": {"": {"t": [0, 1000], "b": [0]}}})
    found, problems = parse_samples(line + "\n")
    assert found == {} and problems == ["line 1: unreadable samples skipped (t, b and f are not of the same length)"]


def test_a_plan_entry_of_the_wrong_type_is_not_a_traceback(tmp_path):
    write_mixed(tmp_path)
    planned = json.loads((tmp_path / "plan.json").read_text())
    planned[0]["run_id"] = {"a": 1}
    (tmp_path / "plan.json").write_text(json.dumps(planned))
    assert "{'a': 1}" in read_directory(str(tmp_path)).not_run


def test_masking_reaches_dictionary_keys():
    """The environment in meta.json is keyed by server URL : the password goes there too."""
    assert mask({"ftp://u:pw@h/": {"banner": "ready"}}) == {"ftp://u:***@h/": {"banner": "ready"}}


def test_masking_passes_numbers_through_and_still_masks_the_text_beside_them():
    """Numbers skip the checks (a monitor summary holds hundreds); text next to them is masked."""
    value = {"tcp": {"ftp://u:pw@h/": {"rtt_ms_mean": {"mean": 1.5, "n": 3}}}, "ok": True, "none": None}
    assert mask(value) == {"tcp": {"ftp://u:***@h/": {"rtt_ms_mean": {"mean": 1.5, "n": 3}}}, "ok": True, "none": None}
    assert all(mask(x) is x for x in (1, 2.5, True, None))


def test_not_a_results_directory_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError):
        read_directory(str(tmp_path))
