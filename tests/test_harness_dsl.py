"""The harness in the DSL and the plan: variables and includes, needs and their cycles, delays,
loops and copies in run ids and tag log names, --only test[case] and --where."""

from __future__ import annotations

import json
import os
import re
import textwrap
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from support.clihelp import gftpwb

from gftpwb.core.dsl.loader import load_scenario, load_scenario_text
from gftpwb.core.dsl.variables import VariableProblem, expand, references
from gftpwb.core.errors import ScenarioError, UsageError
from gftpwb.core.harness.delays import Delay, parse_delay
from gftpwb.core.harness.needs import find_cycle, find_cycles
from gftpwb.core.plan import plan, plan_fingerprint
from gftpwb.shell.frontend import parse_assignments, repeat_command

ENDS = 'defaults: {source: "ftp://h/dev/zero", target: "ftp://h/dev/null", options: {length: 1M}}\n'


def load(text: str, **kwargs):
    return load_scenario_text(textwrap.dedent(text), "s.yaml", **kwargs)


def errors_of(text: str, **kwargs) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load(text, **kwargs)
    return [str(d) for d in info.value.diagnostics]


# --- variables ------------------------------------------------------------------------------------

VARS = """\
    version: 1
    name: v
    vars:
      server: ftp://127.0.0.1:2811
      zero: ${server}/dev/zero
      p: 4
      sizes: [1M, 2M]
      host: null
    defaults:
      source: ${zero}
      target: ${server}/dev/null
    tests:
      - id: a
        kind: guc
        options: {parallel: "${p}"}
        matrix: {tcp_buffer: "${sizes}"}
        comment: p is ${p}, home is $${HOME}
        pre: {run: "echo $${HOME}", shell: true}
"""


def test_variables_expand_everywhere_with_types_and_escapes():
    scenario = load(VARS)
    (test,) = scenario.tests
    assert test.source == "ftp://127.0.0.1:2811/dev/zero" and test.target == "ftp://127.0.0.1:2811/dev/null"
    assert test.options.parallel == 4  # a value that is one reference takes the variable's type
    assert test.matrix == (("tcp_buffer", ("1M", "2M")),)
    assert test.comment == "p is 4, home is ${HOME}"
    assert test.pre.script == "echo ${HOME}"
    assert scenario.vars == {"server": "ftp://127.0.0.1:2811", "zero": "ftp://127.0.0.1:2811/dev/zero", "p": 4,
                             "sizes": ["1M", "2M"], "host": None}


def test_set_beats_the_environment_which_beats_the_default():
    scenario = load(VARS, overrides={"p": "16"}, environ={"GFTPWB_VAR_p": "8", "GFTPWB_VAR_server": "ftp://e:1"})
    (test,) = scenario.tests
    assert test.options.parallel == 16 and test.source == "ftp://e:1/dev/zero"
    assert load(VARS, environ={"GFTPWB_VAR_p": "8"}).tests[0].options.parallel == 8
    assert load(VARS, environ={"GFTPWB_VAR_nosuch": "x"}).tests[0].options.parallel == 4  # others' vars: ignored


def test_the_stored_scenario_is_the_expanded_one_and_reads_back_the_same():
    scenario = load(VARS, overrides={"p": "2", "sizes": "[8M]"})
    assert "${server}" not in scenario.text and "parallel: 2" in scenario.text
    assert "$${HOME}" in scenario.text  # a literal ${ stays escaped, so the stored file means the same
    again = load_scenario_text(scenario.text, "stored.yaml")
    assert again.tests == scenario.tests and again.vars == scenario.vars


def test_a_scenario_without_vars_keeps_its_text_and_its_dollar_braces():
    text = "version: 1\nname: n\n" + ENDS + "tests:\n  - {id: a, kind: guc, comment: 'x ${HOME}'}\n"
    scenario = load_scenario_text(text, "n.yaml")
    assert scenario.text == text and scenario.tests[0].comment == "x ${HOME}"
    with pytest.raises(UsageError, match="declares no vars"):
        load_scenario_text(text, "n.yaml", overrides={"a": "1"})


def test_a_lab_variable_is_used_where_declared_and_ignored_elsewhere():
    # lab status --vars prints --lab-var for every part of the lab: a scenario takes what it declares
    with_vars = "version: 1\nname: n\nvars: {src: x}\n" + ENDS + "tests:\n  - {id: a, kind: guc, comment: '${src}'}\n"
    without = "version: 1\nname: n\n" + ENDS + "tests:\n  - {id: a, kind: guc}\n"
    offered = parse_assignments([], ["src=10.1.2.3", "slurm_nodes=8"])
    assert load_scenario_text(with_vars, "v.yaml", overrides=offered).tests[0].comment == "10.1.2.3"
    assert load_scenario_text(without, "n.yaml", overrides=offered).text == without
    # --set of the same undeclared name is still a typo, and --set wins over --lab-var
    with pytest.raises(UsageError, match="declares no variable 'slurm_nodes'"):
        load_scenario_text(with_vars, "v.yaml", overrides=parse_assignments(["slurm_nodes=8"], ["src=a"]))
    both = parse_assignments(["src=given"], ["src=lab"])
    assert load_scenario_text(with_vars, "v.yaml", overrides=both).tests[0].comment == "given"
    assert repeat_command("s.yaml", "r", overrides=offered)[3:7] == ["--lab-var", "src=10.1.2.3", "--lab-var",
                                                                     "slurm_nodes=8"]


def test_variable_mistakes_are_reported_where_they_are():
    errs = errors_of("""\
        version: 1
        name: v
        vars: {src: x, a: "${b}", b: "${a}", none: null}
        defaults:
          source: ${srx}
          target: ${none}
        tests:
          - id: t
            kind: guc
            comment: ${src} and ${sizes}
            description: "${bad name}"
            extra_args: ["${a}"]
    """)
    assert errs == [
        "s.yaml:3:19: vars.a: variables refer to each other in a circle: a -> b -> a",
        "s.yaml:3:30: vars.b: variables refer to each other in a circle: a -> b -> a",
        "s.yaml:5:11: undefined variable 'srx'; did you mean 'src'?",
        "s.yaml:6:11: variable 'none' has no value: give it one with --set none=VALUE or GFTPWB_VAR_none",
        "s.yaml:10:14: undefined variable 'sizes'; declared: src, a, b, none",
        "s.yaml:11:18: bad variable reference ${bad name} (names: letters, digits and '_', not starting with a "
        "digit; write $${ for a literal ${)",
        "s.yaml:12:18: variable 'a' has no value (see the error at its declaration)",
    ]


def test_a_list_cannot_be_part_of_a_text_and_set_needs_a_declared_name():
    errs = errors_of("version: 1\nname: v\nvars: {l: [1]}\n" + ENDS + "tests:\n  - id: t\n    kind: guc\n"
                     "    comment: x${l}\n")
    assert errs == ["s.yaml:8:14: variable 'l' is a list and cannot be part of a text; use it as the whole value"]
    with pytest.raises(UsageError, match="declares no variable 'pp'; did you mean 'p'"):
        load(VARS, overrides={"pp": "1"})


NAMES = st.sampled_from(["a", "b", "srv", "x_1"])
LITERAL = st.text(st.characters(blacklist_characters="${}", blacklist_categories=("Cs",)), max_size=6)
VALUE = st.one_of(st.text(st.characters(blacklist_characters="${}\x00", blacklist_categories=("Cs",)), max_size=8),
                  st.integers(-5, 10**6), st.booleans())


@given(st.lists(st.one_of(LITERAL, NAMES.map(lambda n: ("ref", n)), st.just(("esc",))), max_size=8),
       st.dictionaries(NAMES, VALUE, min_size=4, max_size=4))
def test_expansion_replaces_every_reference_and_keeps_escapes(parts, values):
    text = "".join(p if isinstance(p, str) else ("${" + p[1] + "}" if p[0] == "ref" else "$${") for p in parts)
    result = expand(text, values.__getitem__)
    refs = [p for p in parts if not isinstance(p, str) and p[0] == "ref"]
    if len(refs) == 1 and text == "${" + refs[0][1] + "}":  # one reference alone: the value with its type
        assert result.value == values[refs[0][1]]
        return
    want = "".join(p if isinstance(p, str) else
                   (("true" if values[p[1]] else "false") if isinstance(values[p[1]], bool) else str(values[p[1]]))
                   if p[0] == "ref" else "${" for p in parts)
    assert result.value == want
    assert references(text) == [p[1] for p in refs]
    # The stored form reads back to the same value, and has no reference left.
    assert expand(result.stored, lambda n: pytest.fail(f"stored text still refers to {n}")).value == want


@given(st.text(alphabet="ab{}$_ 1", max_size=12))
def test_expansion_never_fails_other_than_with_a_variable_problem(text):
    try:
        expand(text, lambda name: "v")
    except VariableProblem as exc:
        assert str(exc)


YAML_TEXT = st.text(st.characters(whitelist_categories=("L", "N", "P", "S", "Zs"), blacklist_characters="${}"),
                    max_size=8)


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(["p", "q", "label"]), st.one_of(YAML_TEXT, st.integers(-5, 10**6)),
                       min_size=3, max_size=3))
@example({"p": "", "q": "", "label": "?0"})  # ruamel writes ?0 unquoted in a flow mapping, which reads back wrong
def test_a_scenario_reads_its_values_and_its_stored_text_reads_the_same(values):
    comment = f"{values['label']}" if isinstance(values["label"], int) else values["label"]
    text = ("version: 1\nname: v\nvars: " + json.dumps(values, ensure_ascii=False) + "\n" + ENDS +
            "tests:\n  - id: t\n    kind: guc\n    comment: \"${label}!\"\n    description: \"${p}/${q}\"\n")
    scenario = load_scenario_text(text, "v.yaml")
    assert scenario.tests[0].comment == f"{comment}!"
    assert scenario.tests[0].description == f"{values['p']}/{values['q']}"
    assert load_scenario_text(scenario.text, "stored.yaml").tests == scenario.tests


# --- include ------------------------------------------------------------------------------------------


LAB_HOSTS = """\
# The lab's namespace hosts, for a scenario's hosts: block (written by gftpwb lab up).
hosts:
  h1: {address: 10.9.0.2, user: root, identity: "/lab/id_ed25519", known_hosts: "/lab/known_hosts"}
  h2: {address: 10.9.0.3, user: root, identity: "id_rel", known_hosts: "/lab/known_hosts"}
"""


def test_hosts_include_reads_the_labs_hosts_yaml_as_it_is(tmp_path):
    lab = tmp_path / "lab"
    lab.mkdir()
    (lab / "hosts.yaml").write_text(LAB_HOSTS)
    path = tmp_path / "s.yaml"
    path.write_text("version: 1\nname: i\nvars: {lab: lab}\nhosts:\n  include: ${lab}/hosts.yaml\n"
                    "  mine: {address: 127.0.0.1, port: 2222}\n" + ENDS +
                    "tests:\n  - {id: a, kind: guc, on: [h1, mine]}\n")
    scenario = load_scenario(str(path))
    assert [h.name for h in scenario.hosts] == ["h1", "h2", "mine"]
    h2 = scenario.host("h2")
    assert h2.identity == str(lab / "id_rel")  # relative to the included file
    assert "include:" not in scenario.text and "10.9.0.3" in scenario.text  # the stored scenario has them
    assert [h.name for h in load_scenario_text(scenario.text, str(tmp_path / "stored.yaml")).hosts] == \
        ["h1", "h2", "mine"]


def test_include_problems_point_into_the_right_file(tmp_path):
    (tmp_path / "bad.yaml").write_text("hosts:\n  h1: {address: 10.0.0.1, port: 99999}\n  h2: {adress: x}\n")
    path = tmp_path / "s.yaml"
    path.write_text("version: 1\nname: i\nhosts:\n  include: [bad.yaml, missing.yaml]\n"
                    "  h1: {address: 10.0.0.9}\n" + ENDS + "tests:\n  - {id: a, kind: guc}\n")
    with pytest.raises(ScenarioError) as info:
        load_scenario(str(path))
    messages = [str(d) for d in info.value.diagnostics]
    bad, scenario = str(tmp_path / "bad.yaml"), str(path)
    assert f"{scenario}:4:23: hosts.include: cannot read {tmp_path / 'missing.yaml'}: No such file or directory" \
        in messages
    assert f"{scenario}:5:3: host 'h1' is also defined in {bad}" in messages
    path.write_text("version: 1\nname: i\nhosts: {include: bad.yaml}\n" + ENDS + "tests:\n  - {id: a, kind: guc}\n")
    with pytest.raises(ScenarioError) as info:
        load_scenario(str(path))
    messages = [str(d) for d in info.value.diagnostics]
    assert f"{bad}:2:33: hosts.h1.port: must be at most 65535, got 99999" in messages
    assert any(m.startswith(f"{bad}:3:8: unknown key 'adress' in hosts.h2") for m in messages), messages


# --- needs ------------------------------------------------------------------------------------------


def test_needs_mistakes_and_cycles_are_reported_at_the_needs_entry():
    errs = errors_of("version: 1\nname: n\n" + ENDS + """\
tests:
  - {id: a, kind: guc, needs: [c]}
  - {id: b, kind: guc, needs: [a, warmup]}
  - {id: c, kind: guc, needs: [b]}
  - {id: d, kind: guc, needs: d}
""")
    assert errs == [
        "s.yaml:5:32: tests need each other in a circle: a -> c -> b -> a; none of them could ever start",
        "s.yaml:6:35: test 'b' needs 'warmup', which is not a test of this scenario; its tests: a, b, c, d",
        "s.yaml:8:31: test 'd' needs itself (d -> d); it could never start",
    ]


def _has_cycle(graph: dict[int, set[int]]) -> bool:
    """Kahn's algorithm as the oracle: a graph is acyclic if removing nodes nothing needs empties it."""
    graph = {n: set(e) for n, e in graph.items()}
    while graph:
        free = [n for n in graph if not any(n in e for e in graph.values())]
        if not free:
            return True
        for n in free:
            del graph[n]
    return False


GRAPHS = st.integers(1, 7).flatmap(lambda n: st.dictionaries(
    st.integers(0, n - 1), st.sets(st.integers(0, n - 1), max_size=3), min_size=n, max_size=n))


@given(GRAPHS)
def test_a_cycle_is_found_exactly_when_there_is_one_and_is_a_real_cycle(graph):
    cycle = find_cycle(graph)
    assert (cycle is not None) == _has_cycle(graph)
    if cycle is not None:
        assert cycle[0] == cycle[-1] and len(set(cycle)) == len(cycle) - 1
        assert all(cycle[i + 1] in graph[cycle[i]] for i in range(len(cycle) - 1))  # each needs the next
    cycles = find_cycles(graph)
    assert (cycles == []) == (cycle is None)
    nodes = [n for c in cycles for n in c[:-1]]
    assert len(nodes) == len(set(nodes))  # separate circles


@settings(max_examples=60, deadline=None)
@given(GRAPHS)
def test_the_loader_refuses_exactly_the_scenarios_whose_needs_form_a_circle(graph):
    lines = [f"  - {{id: t{n}, kind: guc, needs: [{', '.join(f't{m}' for m in sorted(needs))}]}}" if needs
             else f"  - {{id: t{n}, kind: guc}}" for n, needs in sorted(graph.items())]
    text = "version: 1\nname: n\n" + ENDS + "tests:\n" + "\n".join(lines) + "\n"
    if not _has_cycle(graph):
        load_scenario_text(text, "n.yaml")
        return
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(text, "n.yaml")
    for diagnostic in info.value.diagnostics:
        numbers = [int(n) for n in re.search(r"t\d+( -> t\d+)+", diagnostic.message).group(0)[1:].split(" -> t")]
        assert all(numbers[i + 1] in graph[numbers[i]] for i in range(len(numbers) - 1)), diagnostic


# --- delays, loops, copies ----------------------------------------------------------------------------


def test_delays_are_seeded_per_run_and_recorded_in_the_plan():
    text = "version: 1\nname: d\nseed: 3\n" + ENDS + textwrap.dedent("""\
        tests:
          - {id: e, kind: guc, delay: 1.5s}
          - {id: u, kind: guc, repeat: 4, delay: {uniform: [1s, 2s]}}
          - {id: x, kind: guc, repeat: 200, delay: {exponential: 0.5s}}
          - {id: n, kind: guc}
    """)
    specs = list(plan(load_scenario_text(text, "d.yaml")))
    by_test: dict[str, list[float]] = {}
    for spec in specs:
        by_test.setdefault(spec.test_id, []).append(spec.delay_s)
    assert by_test["e"] == [1.5] and by_test["n"] == [0.0]
    assert all(1 <= d <= 2 for d in by_test["u"]) and len(set(by_test["u"])) == 4
    assert 0.3 < sum(by_test["x"]) / 200 < 0.7
    assert specs[0].harness.seed == 3 and specs[-1].harness.delay_s == 0.0
    assert [s.run_id for s in specs[:2]] == ["e/0", "u/0"]  # delays alone change no run id
    # Replayable: the same seed gives the same delays, whatever --only selects; another seed others.
    again = {s.run_id: s.delay_s for s in plan(load_scenario_text(text, "d.yaml"), ["u"])}
    assert again == {s.run_id: s.delay_s for s in specs if s.test_id == "u"}
    other = plan(load_scenario_text(text.replace("seed: 3", "seed: 4"), "d.yaml"), ["u"])
    assert [s.delay_s for s in other] != by_test["u"]
    assert parse_delay({"uniform": ["0s", "5s"]}) == Delay("uniform", 0.0, 5.0)
    assert errors_of("version: 1\nname: d\n" + ENDS + "tests:\n  - {id: a, kind: guc, delay: {uniform: [3s, 1s]}}"
                     "\n") == ["s.yaml:5:31: delay: uniform range runs backwards (3s > 1s)"]
    assert errors_of("version: 1\nname: d\n" + ENDS + "tests:\n  - {id: b, kind: guc, delay: {normal: 1s}}\n") == [
        "s.yaml:5:32: unknown key 'normal' in tests[0].delay; did you mean 'uniform'?"]
    assert errors_of("version: 1\nname: d\n" + ENDS + "tests:\n  - {id: b, kind: guc, delay: [1s]}\n") == [
        "s.yaml:5:31: tests[0].delay: expected a duration such as 2s, {uniform: [0s, 5s]} or {exponential: 1s}, "
        "got a list"]


def test_loops_and_copies_name_runs_and_tag_logs_and_group_the_copies():
    text = "version: 1\nname: c\nloops: 2\n" + ENDS + textwrap.dedent("""\
        hosts: {h1: {address: 10.0.0.1}, h2: {address: 10.0.0.2}}
        tests:
          - {id: one, kind: guc}
          - {id: s, kind: guc, concurrency: 2, on: [h1, h2], log_filename: s.log}
    """)
    specs = plan(load_scenario_text(text, "c.yaml"))
    assert len(specs) == 10
    assert [(s.run_id, s.group, s.taglog_name) for s in specs[:5]] == [
        ("loop0/one/0", "", "c_#000_000.loop0.log"),
        ("loop0/s/0#0@h1", "loop0/s/0", "s_000.loop0#0@h1.log"),
        ("loop0/s/0#1@h1", "loop0/s/0", "s_000.loop0#1@h1.log"),
        ("loop0/s/0#0@h2", "loop0/s/0", "s_000.loop0#0@h2.log"),
        ("loop0/s/0#1@h2", "loop0/s/0", "s_000.loop0#1@h2.log"),
    ]
    assert specs[5].run_id == "loop1/one/0" and specs[9].harness.loop == 1 and specs[9].harness.copies == 2
    assert len({s.run_id for s in specs}) == len({s.taglog_name for s in specs}) == 10


def test_a_scenario_without_harness_features_plans_exactly_as_before():
    text = "version: 1\nname: p\n" + ENDS + "tests:\n  - {id: a, kind: guc, repeat: 2, on: local}\n"
    specs = plan(load_scenario_text(text, "p.yaml"))
    assert [s.harness for s in specs] == [None, None] and [s.run_id for s in specs] == ["a/0", "a/1"]
    # concurrency 1 and loops 1 written out change nothing either (but seed: is recorded in records).
    same = plan(load_scenario_text(text.replace("repeat: 2", "repeat: 2, concurrency: 1") + "loops: 1\n", "p.yaml"))
    assert plan_fingerprint(same) == plan_fingerprint(specs)


def test_large_plans_are_counted_without_being_made(monkeypatch):
    monkeypatch.setenv("GFTPWB_MAX_RUNS", str(10**9))  # over the default cap, raised as documented
    text = "version: 1\nname: big\nloops: 100000\n" + ENDS + \
        "tests:\n  - {id: a, kind: guc, repeat: 100, concurrency: 100}\n"
    specs = plan(load_scenario_text(text, "big.yaml"))
    assert len(specs) == 10**9  # arithmetic: nothing is expanded
    first = next(iter(specs))
    assert first.run_id == "loop0/a/0#0"


# --- --only test[case] and --where ---------------------------------------------------------------------


SWEEP = "version: 1\nname: w\n" + ENDS + textwrap.dedent("""\
    tests:
      - {id: a, kind: guc, matrix: {parallel: [1, 4], tcp_buffer: [1M, 4M]}}
      - {id: b, kind: guc, options: {parallel: 4}}
""")


def test_only_picks_cases_and_where_picks_by_parameter_without_renumbering():
    scenario = load_scenario_text(SWEEP, "w.yaml")
    assert [s.run_id for s in plan(scenario, ["a[2]", "b"])] == ["a[2]/0", "b/0"]
    assert [s.taglog_name for s in plan(scenario, ["a[3]"])] == ["w_#003_000.log"]
    assert [s.run_id for s in plan(scenario, where=["parallel=4"])] == ["a[2]/0", "a[3]/0", "b/0"]
    assert [s.run_id for s in plan(scenario, ["a"], ["parallel=4,tcp_buffer=4M"])] == ["a[3]/0"]
    assert [s.run_id for s in plan(scenario, where=["tcp_buffer!=1M"])] == ["a[1]/0", "a[3]/0", "b/0"]
    for only, where, message in ((["a[4]"], [], r"--only a\[4\]: test 'a' has cases \[0\] to \[3\]"),
                                 (["b[1]"], [], r"--only b\[1\]: test 'b' has one case, \[0\]"),
                                 (["a[x]"], [], "write a test id, or a test id and a case number"),
                                 ([], ["paralel=4"], "no run of the selected tests has a parameter 'paralel'; "
                                                     "they have: length, parallel, tcp_buffer"),
                                 ([], ["parallel=3"], "--where parallel=3: no run matches"),
                                 ([], ["parallel"], "write parameter=value")):
        with pytest.raises(UsageError, match=message):
            plan(scenario, only, where)


def test_the_cli_takes_set_where_and_only_cases(tmp_path):
    path = tmp_path / "w.yaml"
    path.write_text(SWEEP.replace("version: 1\n", "version: 1\nvars: {p: 1}\n").replace(
        "  - {id: b, kind: guc, options: {parallel: 4}}", "  - id: b\n    kind: guc\n    options:\n"
                                                          "      parallel: ${p}"))
    out = gftpwb("run", str(path), "--dry-run", "--where", "parallel=2", "--set", "p=2")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["b/0: globus-url-copy -vb -p 2 -len 1M ftp://h/dev/zero ftp://h/dev/null"]
    out = gftpwb("run", str(path), "--dry-run", "--only", "a[1]")
    assert out.stdout.startswith("a[1]/0: globus-url-copy -vb -p 1 -tcp-bs 4M")
    out = gftpwb("validate", str(path), "--set", "q=1")
    assert out.returncode == 2 and out.stderr.strip().endswith("declares no variable 'q'; declared: p")
    assert "Traceback" not in out.stderr
    out = gftpwb("run", str(path), "--dry-run", env={"GFTPWB_VAR_p": "[1"})
    assert out.returncode == 2 and "w.yaml:" in out.stderr  # a bad value: reported at the test, no traceback
    assert "Traceback" not in out.stderr
    assert os.path.exists(path)


def test_validate_reports_a_needs_cycle_with_exit_code_2(tmp_path):
    path = Path(tmp_path / "c.yaml")
    path.write_text("version: 1\nname: c\n" + ENDS + "tests:\n  - {id: a, kind: guc, needs: b}\n"
                    "  - {id: b, kind: guc, needs: a}\n")
    out = gftpwb("validate", str(path))
    assert out.returncode == 2
    assert out.stderr == f"{path}:5:31: tests need each other in a circle: a -> b -> a; none of them could ever " \
                         "start\n"
