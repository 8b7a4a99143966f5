"""Bounded, positioned input errors : what fuzzing found in the scenario loader
is a file:line[:col] error with exit 2, never a traceback or a run-away; caps have a clear error and
a documented way up; and a fuzz suite over the loader keeps it so (seeded per run, seed printed)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from support.clihelp import gftpwb
from support.fuzzseed import FUZZ_SEED, say_seed

from gftpwb.core.dsl.loader import load_scenario, load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.masking import mask, mask_text
from gftpwb.core.plan import plan
from gftpwb.core.scenario.fastyaml import fast_load
from gftpwb.core.scenario.yamlpos import MAX_NESTING, MIN_VALUE_BUDGET, ruamel_load

GUC = """\
version: 1
name: f
tests:
  - id: t
    kind: guc
    source: ftp://127.0.0.1:2811/dev/zero
    target: file:///dev/null
"""


def errors_of(text: str) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        load_scenario_text(text, "f.yaml")
    return [str(d) for d in caught.value.diagnostics]


def test_an_alias_bomb_stops_at_its_budget():
    lines = ["version: 1", "name: bomb", "a0: &a0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 9)]
    lines.append("tests: [{id: t, kind: guc, source: file:///a, target: file:///b, comment: *a8}]")
    started = time.monotonic()
    (error,) = errors_of("\n".join(lines) + "\n")
    assert time.monotonic() - started < 30  # 9^9 values unbounded: never finishes
    assert error.startswith("f.yaml:3:") and "too many values" in error


@pytest.mark.parametrize("depth", [MAX_NESTING + 5, 5000])
def test_deep_nesting_is_a_positioned_error(depth):
    (error,) = errors_of("version: 1\nname: deep\ntests: " + "[" * depth + "]" * depth + "\n")
    assert error.startswith("f.yaml:3:") and f"nested more than {MAX_NESTING} levels deep" in error


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf"])
def test_non_finite_numbers_are_errors(value):
    (error,) = errors_of(GUC + f"    timeout: {value}\n")
    assert error.startswith("f.yaml:8:14: tests[0].timeout:") and "not a finite number" in error


def test_control_characters_and_bad_bytes_have_a_line_and_column(tmp_path):
    (error,) = errors_of("version: 1\nname: f\x01\ntests: []\n")
    assert error == ("f.yaml:2:8: control character U+0001 is not allowed in YAML (use an escape such as \\t "
                     "inside double quotes)")
    path = tmp_path / "latin1.yaml"
    path.write_bytes(b"version: 1\nname: f\ncomment: caf\xe9\ntests: []\n")
    out = gftpwb("validate", str(path))
    assert out.returncode == 2 and out.stderr.strip() == f"{path}:3:13: not UTF-8 text: byte 0xe9 (invalid " \
                                                         "continuation byte)"


def test_validate_dev_zero_is_refused_not_read_to_the_end():
    out = subprocess.run(["sh", "-c", f"ulimit -v 1500000; exec {sys.executable} -m gftpwb validate /dev/zero"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stderr.strip() == "/dev/zero: larger than 64 MiB: not a scenario"


@pytest.mark.parametrize(("length", "expected"), [("4096.0", 4096), ("1e3", 1000)])
def test_whole_number_floats_are_sizes(length, expected):
    scenario = load_scenario_text(GUC + f"    options: {{length: {length}}}\n", "f.yaml")
    assert plan(scenario)[0].length_bytes == expected


@pytest.mark.parametrize("key", ["bandwidth", "rtt", "window"])
def test_a_zero_simulated_link_is_an_error(key):
    text = GUC + f"    engine: simulated\n    options: {{length: 1M}}\n    link: {{{key}: 0}}\n"
    (error,) = errors_of(text)
    assert error.startswith("f.yaml:10:") and error.endswith(f"link.{key} must be more than 0")


@pytest.mark.parametrize("name", ['"bench\\n"', '"bench\\nx"'])
def test_a_name_with_a_newline_is_refused(name):
    errors = errors_of(GUC.replace("name: f", f"name: {name}"))
    assert errors[0].startswith("f.yaml:2:7: name: bad name")


def test_run_caps_have_a_clear_error_and_a_way_up(monkeypatch):
    started = time.monotonic()
    (error,) = errors_of(GUC + "    repeat: 30000000\n")
    assert time.monotonic() - started < 10
    assert error == ("f.yaml:8:13: test 't' plans 30,000,000 runs (repeat x copies x matrix cases x hosts x loops), "
                     "more than the "
                     "limit of 100,000; run fewer, or raise the limit: GFTPWB_MAX_RUNS=30000000")
    (error,) = errors_of(GUC + "    matrix: {parallel: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}\n    repeat: 20000\n")
    assert "plans 200,000 runs" in error
    monkeypatch.setenv("GFTPWB_MAX_RUNS", "200000")
    assert len(plan(load_scenario_text(GUC + "    matrix: {parallel: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]}\n"
                                             "    repeat: 20000\n", "f.yaml"))) == 200_000


def test_a_scenario_over_the_cap_in_total_is_an_error(monkeypatch):
    monkeypatch.setenv("GFTPWB_MAX_RUNS", "50")
    text = GUC + "    repeat: 30\n" + GUC.split("tests:\n", 1)[1].replace("id: t", "id: u") + "    repeat: 30\n"
    (error,) = errors_of(text)
    assert error == ("f.yaml:3:1: the scenario plans 60 runs, more than the limit of 50; run fewer, or raise the "
                     "limit: GFTPWB_MAX_RUNS=60")


@pytest.mark.parametrize("sweep", ["threads: 1000000000", "processes: 100000", "matrix: {threads: [4, 100000]}"])
def test_gfapi_worker_caps(sweep):
    text = f"version: 1\nname: g\ntests:\n  - id: g\n    kind: gfapi\n    volume: {{name: v, server: 1.2.3.4}}\n" \
           f"    {sweep}\n"
    (error,) = errors_of(text)
    assert error.startswith("f.yaml:7:") and "worker threads per host (processes x threads), more than the limit " \
                                             "of 4,096; use fewer, or raise the limit: GFTPWB_MAX_WORKERS=" in error


def test_masking_keeps_the_user_and_hides_the_password():
    assert mask_text("ftp://u:pw@h:21/x and gsiftp://a:b:c@h/ and file:///dev/null") == \
        "ftp://u:***@h:21/x and gsiftp://a:***@h/ and file:///dev/null"
    assert mask_text("ftp://h/x@y") == "ftp://h/x@y"
    value = {"argv": ("guc", "ftp://u:pw@h/"), "n": 1}
    assert mask(value) == {"argv": ("guc", "ftp://u:***@h/"), "n": 1} and value["argv"][1] == "ftp://u:pw@h/"


# --- the fuzz suite over the scenario loader ------------------------------------------------------------

SEEDS = [GUC + "    options: {length: 1M, parallel: 4}\n    repeat: 2\n    timeout: 30s\n",
         GUC + "    engine: simulated\n    link: {bandwidth: 1GB/s, rtt: 20ms}\n    matrix: {parallel: [1, 2]}\n",
         "version: 1\nname: g\ntests:\n  - id: g\n    kind: gfapi\n    volume: {name: v, server: 1.2.3.4}\n"
         "    threads: 4\n    files: 10\n",
         "version: 1\nname: a\ndefaults: &d {source: 'ftp://h/dev/zero', target: 'file:///dev/null'}\n"
         "tests:\n  - {id: x, kind: guc, <<: *d}\n"]
PIECES = ["\x00", "\x01", "\t", "\n", " ", "  ", "- ", ": ", "[", "]", "{", "}", "&a ", "*a", "*b", "!!str ",
          "!!int ", "!!float ", ".nan", ".inf", "1e308", "-1", "0", "4096.0", "99999999999999999999", "'", '"', "#",
          "%YAML 1.2\n", "%YAML 1.1\n---\n", "%TAG !e! tag:e,2000:\n",
          "---\n", "...\n", "<<: ", "\xe9", "\ufeff", "\u2028", "ftp://u:p@h/", "\\", "|\n", ">\n",
          "? ", "\r\n", "on", "yes", "0o17", "0x1F", "1_000", "~", "null", "true", "1", "2024-01-01", ",", "%"]


def mutate(text: str, edits: list[tuple[int, int, int]]) -> str:
    for where, what, cut in edits:
        at = where % (len(text) + 1)
        text = text[:at] + PIECES[what % len(PIECES)] + text[at + cut % 4:]
    return text


@seed(FUZZ_SEED)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(SEEDS),
       edits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 1_000), st.integers(0, 3)), max_size=6))
def test_fuzzed_scenarios_load_or_fail_with_a_position(base, edits):
    say_seed()
    text = mutate(base, edits)
    try:
        scenario = load_scenario_text(text, "f.yaml")
    except ScenarioError as exc:
        assert exc.diagnostics
        for diagnostic in exc.diagnostics:
            assert diagnostic.file == "f.yaml" and diagnostic.line >= 1, (text, str(diagnostic))
        return
    assert len(plan(scenario)) >= 1


@seed(FUZZ_SEED)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(base=st.sampled_from(SEEDS),
       edits=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 1_000), st.integers(0, 3)), max_size=6))
def test_the_fast_yaml_path_reads_what_ruamel_reads(base, edits):
    """libyaml's path (fastyaml) takes a file only if ruamel reads it to the same data and positions."""
    say_seed()
    text = mutate(base, edits)
    fast = fast_load(text, MIN_VALUE_BUDGET, MAX_NESTING)
    if fast is None:
        return
    data, values, keys = fast
    slow, pos, _ = ruamel_load(text, "f.yaml", MIN_VALUE_BUDGET)  # raises if ruamel refuses what libyaml took
    assert data == slow and type(data) is type(slow)
    assert {k: v for k, v in pos.values.items() if k} == values and pos.keys == keys


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "scenarios").glob("*.yaml")))
def test_the_fast_yaml_path_reads_the_example_scenarios_as_ruamel_does(name):
    text = (ROOT / "scenarios" / name).read_text()
    fast = fast_load(text, MIN_VALUE_BUDGET, MAX_NESTING)
    slow, pos, _ = ruamel_load(text, name, MIN_VALUE_BUDGET)
    if fast is not None:
        assert fast[0] == slow and fast[1] == {k: v for k, v in pos.values.items() if k} and fast[2] == pos.keys


def test_a_plain_merge_sign_as_a_value_is_text():
    """`a: <<` resolves to the merge tag, which has no constructor: found by the fuzz suite (a traceback)."""
    assert fast_load("a: <<\n", MIN_VALUE_BUDGET, MAX_NESTING) is None
    assert ruamel_load("a: <<\n", "f.yaml", MIN_VALUE_BUDGET)[0] == {"a": "<<"}


@pytest.mark.parametrize("text", ["%YAML 1.1\n---\nx: yes\ny: 010\n", "%TAG !e! tag:e,2000:\n---\nx: 1\n"])
def test_documents_with_directives_take_the_ruamel_path(text):
    """%YAML 1.1 makes ruamel read `yes` as true and 010 as 8: the fast path must not read it as 1.2."""
    assert fast_load(text, MIN_VALUE_BUDGET, MAX_NESTING) is None


def test_copies_and_loops_count_against_the_cap(monkeypatch):
    monkeypatch.setenv("GFTPWB_MAX_RUNS", "1000")
    (error,) = errors_of(GUC.replace("tests:", "loops: 100\ntests:") + "    concurrency: 4\n    repeat: 3\n")
    assert "plans 1,200 runs" in error and "GFTPWB_MAX_RUNS=1200" in error


def test_an_included_hosts_file_is_bounded_and_positioned(tmp_path):
    """`hosts: {include: /dev/zero}` read without end before; a non-UTF-8 include points into it."""
    (tmp_path / "latin1.yaml").write_bytes(b"hosts:\n  h1: {address: 10.0.0.1, comment: caf\xe9}\n")
    head = "version: 1\nname: i\nhosts: {include: %s}\n" + GUC.split("\n", 2)[2]
    path = tmp_path / "s.yaml"
    path.write_text(head % "/dev/zero")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(str(path))
    assert [str(d) for d in caught.value.diagnostics] == [
        f"{path}:3:18: hosts.include: cannot read /dev/zero: larger than 64 MiB"]
    path.write_text(head % "latin1.yaml")
    with pytest.raises(ScenarioError) as caught:
        load_scenario(str(path))
    assert str(caught.value.diagnostics[0]).startswith(f"{tmp_path / 'latin1.yaml'}:2:39: not UTF-8 text: byte 0xe9")
