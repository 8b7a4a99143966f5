"""Scenario loading: valid files become typed models; every mistake is reported at file:line:col."""

import subprocess
import sys
import textwrap

import pytest

from gftpwb.core.dsl.loader import load_scenario, load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.registry import registry
from gftpwb.core.units import GIB, MIB

GOOD = textwrap.dedent("""\
    version: 1
    name: demo
    defaults:
      timeout: 30s
      source: ftp://127.0.0.1:2811/dev/zero
      target: ftp://127.0.0.1:2811/dev/null
      options: {length: 1G, tcp_buffer: 4M}
    tests:
      - id: one
        kind: guc
        options: {parallel: 4}
        extra_args: [-nodcau]
        repeat: 3
      - id: two
        kind: guc
        timeout: 0
        options: {length: 2g, fast: true}
        matrix: {parallel: [1, 2]}
""")


def errors_of(text: str) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(textwrap.dedent(text), "s.yaml")
    return [str(d) for d in info.value.diagnostics]


def test_good_scenario_merges_defaults():
    scenario = load_scenario_text(GOOD, "s.yaml")
    one, two = scenario.tests
    assert one.options.parallel == 4
    assert one.options.length == GIB and one.options.tcp_buffer == 4 * MIB  # from defaults, merged key by key
    assert one.timeout_s == 30 and one.repeat == 3 and one.extra_args == ("-nodcau",)
    assert two.options.length == 2 * GIB and two.options.fast is True and two.options.tcp_buffer == 4 * MIB
    assert two.timeout_s is None  # 0 means no limit
    assert two.matrix == (("parallel", (1, 2)),)


def test_duplicate_key_reported_at_second_occurrence():
    errs = errors_of("""\
        version: 1
        name: d
        tests:
          - id: a
            kind: guc
            source: x
            target: y
            source: z
    """)
    assert errs == ['s.yaml:8:5: duplicate key "source" (first defined at line 6)']


def test_unknown_key_with_suggestion_at_key_position():
    errs = errors_of("""\
        version: 1
        name: d
        tests:
          - id: a
            kind: guc
            source: x
            target: y
            options: {paralel: 4}
    """)
    assert errs == ["s.yaml:8:15: unknown key 'paralel' in tests[0].options; did you mean 'parallel'?"]


def test_unknown_top_level_key_lists_allowed():
    errs = errors_of("""\
        version: 1
        name: d
        zzz: 1
        tests: [{id: a, kind: guc, source: x, target: y}]
    """)
    assert len(errs) == 1
    assert errs[0].startswith("s.yaml:3:1: unknown key 'zzz' in scenario; allowed: concurrent_tests, defaults, "
                              "description")


def test_wrong_types_are_named():
    errs = errors_of("""\
        version: 1
        name: d
        tests:
          - id: a
            kind: guc
            source: x
            target: y
            repeat: many
            options:
              fast: "yes"
              parallel: 2.5
    """)
    assert errs == [
        "s.yaml:8:13: tests[0].repeat: expected a whole number, got text 'many'",
        "s.yaml:10:13: tests[0].options.fast: expected true or false, got text 'yes'",
        "s.yaml:11:17: tests[0].options.parallel: expected a whole number, got number 2.5",
    ]


def test_bad_sizes_and_durations():
    errs = errors_of("""\
        version: 1
        name: d
        defaults: {timeout: 30 seconds}
        tests:
          - id: a
            kind: guc
            source: x
            target: y
            options: {length: 4X, tcp_buffer: 1.5M}
    """)
    assert errs == [
        "s.yaml:3:21: defaults.timeout: bad duration '30 seconds' (use seconds or e.g. 30s, 5m, 1m30s, 250ms; at most "
        "10 digits before a point)",
        "s.yaml:9:23: tests[0].options.length: bad size '4X' (use a whole number with an optional K, M, G or B "
        "suffix, e.g. 4M; at most 18 digits, 15 with K, 12 with M, 9 with G)",
        "s.yaml:9:39: tests[0].options.tcp_buffer: bad size '1.5M' (use a whole number with an optional K, M, G or "
        "B suffix, e.g. 4M; at most 18 digits, 15 with K, 12 with M, 9 with G)",
    ]


def test_bad_size_inside_matrix():
    errs = errors_of("""\
        version: 1
        name: d
        tests:
          - {id: a, kind: guc, source: x, target: y, matrix: {tcp_buffer: [1M, 2Q]}}
    """)
    assert errs == ["s.yaml:4:72: tests[0].matrix.tcp_buffer[1]: bad size '2Q' (use a whole number with an "
                    "optional K, M, G or B suffix, e.g. 4M; at most 18 digits, 15 with K, 12 with M, 9 with G)"]


def test_duplicate_test_ids():
    errs = errors_of("""\
        version: 1
        name: d
        defaults: {source: x, target: y}
        tests:
          - id: a
            kind: guc
          - id: b
            kind: guc
          - id: a
            kind: guc
    """)
    assert errs == ["s.yaml:9:9: duplicate test id 'a' (first used at line 5)"]


def test_missing_source_after_merging_defaults():
    errs = errors_of("""\
        version: 1
        name: d
        defaults: {target: y}
        tests:
          - id: a
            kind: guc
    """)
    assert errs == ["s.yaml:5:5: test 'a' has no source (set it on the test or in defaults)"]


def test_missing_required_and_bad_kind_and_version():
    errs = errors_of("""\
        version: 2
        name: "bad name"
        tests:
          - id: a
            kind: scp
          - kind: guc
            source: x
            target: y
    """)
    assert errs == [
        "s.yaml:1:10: unsupported scenario version 2; this gftpwb reads version 1",
        "s.yaml:2:7: name: bad name 'bad name' (letters, digits, '.', '_' and '-', starting with a letter or digit)",
        f"s.yaml:5:11: tests[0].kind: 'scp' is not one of: {', '.join(registry().kind_names())}",
        "s.yaml:6:5: tests[1]: missing required key 'id'",
    ]


def test_a_value_not_among_the_choices_gets_the_one_it_most_likely_meant():
    """As an unknown key does: ``kind: gcu`` is a typo of guc; a value like none of them lists them only."""
    errs = errors_of("""\
        version: 1
        name: k
        tests:
          - {id: a, kind: gcu, source: /dev/zero, target: /dev/null}
          - {id: b, kind: guc, source: /dev/zero, target: /dev/null, order: interleave}
    """)
    assert errs == [
        f"s.yaml:4:19: tests[0].kind: 'gcu' is not one of: {', '.join(registry().kind_names())}; did you mean 'guc'?",
        "s.yaml:5:69: tests[1].order: 'interleave' is not one of: sequential, interleaved, random; did you mean "
        "'interleaved'?",
    ]


def test_yaml_syntax_error_has_position():
    errs = errors_of("""\
        version: 1
        name: [unclosed
        tests: []
    """)
    assert len(errs) == 1 and errs[0].startswith("s.yaml:3:")
    assert "YAML syntax error" in errs[0]


def test_not_a_mapping_and_empty_tests():
    assert errors_of("- just\n- a list\n") == ["s.yaml:1:1: a scenario must be a YAML mapping (version, name, tests)"]
    assert errors_of("version: 1\nname: d\ntests: []\n") == ["s.yaml:3:8: tests: must not be empty"]


def test_warning_for_endless_dev_zero():
    scenario = load_scenario_text("version: 1\nname: d\ntests:\n  - {id: a, kind: guc, source: ftp://h/dev/zero, "
                                  "target: ftp://h/dev/null}\n", "s.yaml")
    assert [str(w) for w in scenario.warnings] == [
        "s.yaml:4:5: warning: test 'a' reads /dev/zero with no length and no timeout: guc never stops; set "
        "options.length or timeout"]


def test_unreadable_file(tmp_path):
    with pytest.raises(ScenarioError) as info:
        load_scenario(str(tmp_path / "nope.yaml"))
    assert str(info.value).startswith(f"{tmp_path / 'nope.yaml'}: cannot read scenario")


def test_validate_cli_prints_positions_and_exits_2(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("version: 1\nname: d\ntests:\n  - {id: a, kind: guc, source: x, target: y, repeat: 0}\n")
    good = tmp_path / "good.yaml"
    good.write_text(GOOD)
    proc = subprocess.run([sys.executable, "-m", "gftpwb", "validate", str(good), str(bad)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert f"{good}: ok (2 test(s), 5 run(s))" in proc.stdout
    assert proc.stderr.strip() == f"{bad}:4:54: tests[0].repeat: must be at least 1, got 0"
    assert "Traceback" not in proc.stderr
