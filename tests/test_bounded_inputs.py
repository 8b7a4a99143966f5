"""Bounded, positioned input errors : what fuzzing found in the scenario loader
is a file:line[:col] error with exit 2, never a traceback or a run-away; caps have a clear error and
a documented way up; and a fuzz suite over the loader keeps it so (seeded per run, seed printed)."""

from __future__ import annotations

import functools
import subprocess
import sys
import time

import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from support.clihelp import gftpwb
from support.fuzzseed import FUZZ_SEED, say_seed

from gftpwb.core.dsl.loader import load_scenario, load_scenario_text, semantic_diagnostics
from gftpwb.core.errors import ScenarioError
from gftpwb.core.masking import mask, mask_text
from gftpwb.core.plan import plan
from gftpwb.core.scenario.fastyaml import fast_load
from gftpwb.core.scenario.yamlpos import MAX_NESTING, MIN_VALUE_BUDGET, load_yaml_with_positions, ruamel_load
from gftpwb.tgftp.model import read_batch

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


def test_the_tests_share_one_inventory_and_one_list_of_the_tests():
    """What a kind's check sees of the other tests and of the hosts is one object for every test: a copy
    per test made validation's memory and time grow with the square of the tests (20,000 one-line
    tests: 3.2 GB and 26 s; bench/validate_scale.py runs the command)."""
    text = ("version: 1\nname: s\nhosts: {h: {address: 10.0.0.1}}\ndefaults: {source: ftp://127.0.0.1:2811/dev/zero, "
            "target: ftp://127.0.0.1:2811/dev/null}\ntests:\n"
            + "".join(f"  - {{id: t{i}, kind: guc, options: {{length: 1M}}}}\n" for i in range(50)))
    data, pos, _ = load_yaml_with_positions(text, "s.yaml")
    inputs, errors, _ = semantic_diagnostics(data, pos, "s.yaml")
    assert errors == [] and len(inputs) == 50
    assert len({id(test.tests) for test in inputs}) == 1 and len(inputs[0].tests) == 50
    assert len({id(test.inventory) for test in inputs}) == 1 and list(inputs[0].inventory) == ["h"]


BATCH = "#%tgftp%v0.7.0\nftp://127.0.0.1:2811/dev/zero;ftp://127.0.0.1:2811/dev/null;-len 1M;no;;;;;;{execs}\n"


def test_a_batchfile_lines_execs_has_the_cap_and_the_message_of_repeat(tmp_path, monkeypatch):
    """execs 99999999999999999999 (bash reads 7766279631452241919) kept validate busy until it was killed;
    now it is the error repeat gives, at the execs field, for validate, import and run alike."""
    batch = tmp_path / "big.csv"
    batch.write_text(BATCH.format(execs="99999999999999999999"))
    expected = (f"{batch}:2:77: test 'test-000' plans 7,766,279,631,452,241,919 runs (execs 99999999999999999999), "
                "more than the limit of 100,000; run fewer, or raise the limit: GFTPWB_MAX_RUNS=7766279631452241919")
    for command in (["validate", str(batch)], ["import", str(batch)], ["run", str(batch), "--dry-run"]):
        out = gftpwb(*command, timeout=60)
        assert (out.returncode, out.stderr.strip()) == (2, expected), command
    # the same words as a scenario's repeat over the cap
    batch.write_text(BATCH.format(execs="100001"))
    scenario = tmp_path / "s.yaml"
    scenario.write_text(GUC.replace("name: f", "name: s") + "    repeat: 100001\n")
    from_batch = gftpwb("validate", str(batch)).stderr.strip().split(": ", 1)[1]
    from_repeat = gftpwb("validate", str(scenario)).stderr.strip().split(": ", 1)[1]
    assert from_batch.replace("(execs 100001)", "(FACTORS)").replace("test-000", "t") == \
        from_repeat.replace("(repeat x copies x matrix cases x hosts x loops)", "(FACTORS)")
    monkeypatch.setenv("GFTPWB_MAX_RUNS", "100001")
    assert gftpwb("validate", str(batch)).returncode == 0  # raised for one command, as for repeat


def test_a_batchfile_lines_executions_are_made_as_they_are_asked_for():
    """The drop-in runs them one after another as tgftp did; none is worked out before it is needed."""
    (entry,) = [e for e in read_batch(BATCH.format(execs="99999999999999999999"), "big.csv", "tgftp", {}).lines
                if e.test is not None]
    assert len(entry.executions) == 7766279631452241919
    first, second = (execution for execution, _ in zip(entry.executions, range(2), strict=False))
    assert (first.number, second.number) == (0, 1)
    assert first.argv is not None and "--log-filename" in first.argv
    assert first.argv[first.argv.index("--log-filename") + 1] == "big.csv_#000_000.log"
    assert entry.executions[1].argv[entry.executions[1].argv.index("--log-filename") + 1] == "big.csv_#000_001.log"
    assert entry.executions[-1].number == 7766279631452241918


def test_whole_number_floats_are_the_integers_they_are():
    """JSON Schema's integers include 2.0: `repeat: 2.0` passed the schema and was a traceback when
    planned (range(2.0)), `parallel: [4.0]` reached guc as -p 4.0 (found by bench/reliability.py)."""
    specs = plan(load_scenario_text(GUC + "    repeat: 2.0\n    matrix: {parallel: [4.0]}\n    timeout: 2.0\n",
                                    "f.yaml"))
    assert [s.run_id for s in specs] == ["t[0]/0", "t[0]/1"]
    assert specs[0].argv[1:4] == ("-vb", "-p", "4") and specs[0].params["parallel"] == 4
    assert specs[0].timeout_s == 2


# --- every number a scenario gives has a largest value ---------------------------------------------------

HUGE = 10**400  # a number of 401 digits: valid YAML and a JSON-Schema integer, and no value any key means


def _number_places() -> dict[tuple[str | None, tuple], list[dict]]:
    from support.number_bases import number_keys

    from gftpwb.core.dsl.schema import scenario_schema

    places: dict[tuple[str | None, tuple], list[dict]] = {}
    for path, kind, node in number_keys(scenario_schema()):
        places.setdefault((kind, path), []).append(node)
    return places


def _with_value(base: dict, path: tuple, value: object) -> tuple[str, int] | None:
    """The scenario ``base`` with ``value`` at ``path`` (``"*"``: the mapping's first key) as YAML, and the
    line the value is on; None when the base does not hold the place (its parent is missing)."""
    import copy

    import yaml

    doc = copy.deepcopy(base)
    node = doc
    for key in path[:-1]:
        key = next(iter(node)) if key == "*" and isinstance(node, dict) and node else key
        held = isinstance(node, list) and len(node) > key if isinstance(key, int) else \
            isinstance(node, dict) and key in node
        if not held:
            return None
        node = node[key]
    last = path[-1]
    if not isinstance(node, list if isinstance(last, int) else dict):
        return None
    sentinel = 7_654_321_987_654_321
    node[next(iter(node)) if last == "*" else last] = sentinel
    text = yaml.dump(doc, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False)
    line = next(n for n, row in enumerate(text.splitlines(), start=1) if str(sentinel) in row)
    return text.replace(str(sentinel), str(value)), line


@functools.cache
def _bases() -> tuple[dict, ...]:
    from ruamel.yaml import YAML
    from support.number_bases import BASES

    return tuple(YAML(typ="safe").load(base) for base in BASES)


def _place_in_a_base(kind: str | None, path: tuple) -> dict | None:
    for base in _bases():
        if (kind is None) == (path[:1] == ("tests",)) or (kind is not None and base["tests"][0]["kind"] != kind):
            continue
        if _with_value(base, path, 0) is not None:
            return base
    return None


def test_every_number_of_the_schema_has_a_largest_value():
    places = _number_places()
    assert len(places) > 150  # the walk found the schema's numbers
    unbounded = sorted({f"{kind or 'scenario'}: {'.'.join(map(str, path))}" for (kind, path), nodes in places.items()
                        for node in nodes if node.get("maximum") is None})
    assert not unbounded, unbounded


def test_a_scenario_base_holds_every_number_of_the_schema():
    """So the walk below reaches every key: a number in a new place needs a base in support/number_bases.py."""
    from support.number_bases import BASES

    for n, base in enumerate(BASES):
        load_scenario_text(base, f"base{n}.yaml")  # each base is valid as it is
    missing = sorted(f"{kind or 'scenario'}: {'.'.join(map(str, path))}" for kind, path in _number_places()
                     if _place_in_a_base(kind, path) is None)
    assert not missing, missing


def test_every_number_of_the_schema_is_bounded_where_it_is_written(tmp_path):
    """Each place a number can go, with a huge, zero, negative and its largest value, through ``gftpwb run
    --dry-run``: out of its range an error at its file:line (exit 2), never a traceback; in its range
    nothing that breaks either (an auto-tune's budget of 400 digits was an OverflowError)."""
    import contextlib
    import io

    from gftpwb.cli.main import main

    checked = 0
    for (kind, path), nodes in sorted(_number_places().items(), key=lambda item: str(item[0])):
        base = _place_in_a_base(kind, path)
        assert base is not None, (kind, path)
        largest = {node["maximum"] for node in nodes if "maximum" in node}
        top = max(largest, default=HUGE - 1)  # no maximum: still no number of 401 digits means anything
        smallest = min(node.get("minimum", 0) for node in nodes)
        for value in (HUGE, 0, -1, *largest):
            text, line = _with_value(base, path, value)
            scenario = tmp_path / "s.yaml"
            scenario.write_text(text)
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["run", str(scenario), "--dry-run"])
            where = f"{kind or 'scenario'} {'.'.join(map(str, path))} = {str(value)[:20]}"
            if value > top or value < smallest:
                assert code == 2 and f"{scenario}:{line}:" in err.getvalue(), (where, code, err.getvalue(), text)
            else:
                assert code in (0, 2) and "Traceback" not in err.getvalue(), (where, code, err.getvalue())
            checked += 1
    assert checked > 600
