"""kind: autotune and engine/link in the DSL: defaults as tgftp, inheritance, and every mistake at
file:line:col."""

import textwrap

import pytest

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.plan import plan, plan_fingerprint
from gftpwb.core.units import GIB, MIB
from gftpwb.kinds.autotune.model import AutotuneTest
from gftpwb.kinds.guc.model import GucOptions
from gftpwb.kinds.simulated.link import LinkModel


def load(body: str, defaults: str = ""):
    text = "version: 1\nname: s\n" + textwrap.dedent(defaults) + "tests:\n" + textwrap.dedent(body)
    return load_scenario_text(text, "s.yaml")


def errors_of(body: str, defaults: str = "") -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load(body, defaults)
    return [str(d) for d in info.value.diagnostics]


def test_defaults_are_tgftps():
    (test,) = load("  - {id: tune, kind: autotune, source: gsiftp://a/x, target: gsiftp://b/y}\n").tests
    assert isinstance(test, AutotuneTest)
    assert test.candidate_set == "tgftp-37" and len(test.candidates) == 37
    assert (test.strategy, test.repetitions, test.length, test.timeout_s, test.margin_mib_s) == (
        "exhaustive", 10, 4 * GIB, 30.0, 20.0)
    assert test.memory_to_memory and test.engine == "real" and test.link is None


def test_inherits_source_target_and_timeout_but_not_guc_options_or_repeat():
    scenario = load("""\
          - id: tune
            kind: autotune
            strategy: adaptive
            budget: 60
            margin: 10MB/s
            length: 1G
            candidates: {parallel: [null, 4], tcp_buffer: [2M]}
        """, defaults="""\
        defaults:
          source: ftp://127.0.0.1:2811/a
          target: ftp://127.0.0.1:2811/b
          timeout: 45s
          repeat: 3
          options: {length: 8G, parallel: 2}
          engine: simulated
          link: {bandwidth: 10Gbit/s, seed: 3}
        """)
    (test,) = scenario.tests
    assert test.source == "ftp://127.0.0.1:2811/a" and test.timeout_s == 45.0
    assert test.length == GIB and test.margin_mib_s == 10.0 and test.budget == 60
    assert test.candidates == ({"tcp_buffer": 2 * MIB}, {"parallel": 4, "tcp_buffer": 2 * MIB})
    assert test.engine == "simulated" and test.link.seed == 3
    assert test.link.bandwidth_mib_s == pytest.approx(1e10 / 8 / MIB)


def test_link_mappings_merge_with_the_defaults_key_by_key():
    scenario = load("""\
          - {id: g, kind: guc, link: {seed: 9}}
        """, defaults="""\
        defaults:
          source: ftp://h/dev/zero
          target: ftp://h/dev/null
          options: {length: 1G}
          engine: simulated
          link: {bandwidth: 2GB/s, noise: 5%}
        """)
    (test,) = scenario.tests
    assert test.link == LinkModel(bandwidth_mib_s=2048, noise=0.05, seed=9)
    (spec,) = plan(scenario)
    assert spec.engine == "simulated" and spec.link == test.link


def test_plan_of_an_autotune_is_one_spec_and_its_cases_are_its_candidates():
    scenario = load("""\
          - {id: before, kind: guc, matrix: {parallel: [1, 2]}}
          - {id: tune, kind: autotune, candidates: [{}, {parallel: 4}, {parallel: 8, tcp_buffer: 8M}]}
          - {id: after, kind: guc}
        """, defaults="""\
        defaults: {source: "ftp://h:2811/data/f", target: "ftp://h:2811/out", options: {length: 1M}}
        """)
    specs = plan(scenario)
    assert [(s.run_id, s.case) for s in specs] == [("before[0]/0", 0), ("before[1]/0", 1), ("tune", 2),
                                                   ("after/0", 5)]
    tune = specs[2]
    assert tune.kind == "autotune" and tune.argv == ()
    assert (tune.source, tune.target) == ("ftp://h:2811/dev/zero", "ftp://h:2811/dev/null")
    assert tune.params["candidates"] == [{}, {"parallel": 4}, {"parallel": 8, "tcp_buffer": 8 * MIB}]
    assert [s.run_id for s in plan(scenario, ["after"])] == ["after/0"] and plan(scenario, ["after"])[0].case == 5


def test_the_fingerprint_covers_the_tune_settings():
    base = "  - {id: tune, kind: autotune, source: ftp://h/a, target: ftp://h/b%s}\n"
    fingerprints = {plan_fingerprint(plan(load(base % extra))) for extra in
                    ("", ", margin: 10MB/s", ", repetitions: 3", ", engine: simulated", ", length: 1G")}
    assert len(fingerprints) == 5


def test_memory_to_memory_false_keeps_the_urls():
    (spec,) = plan(load("  - {id: t, kind: autotune, source: ftp://h/a, target: ftp://h/b, "
                        "memory_to_memory: false}\n"))
    assert (spec.source, spec.target) == ("ftp://h/a", "ftp://h/b")


def test_mistakes_are_reported_where_they_are():
    errs = errors_of("""\
          - id: a
            kind: autotune
            source: ftp://h/x
            target: ftp://h/y
            strategy: exhaustive
            budget: 50
          - id: b
            kind: autotune
            source: ftp://h/x
            target: ftp://h/y
            strategy: adaptive
            repetitions: 4
            margin: 0MB/s
            candidates: [{parallel: 4}, {parallel: 2}, {parallel: 4}]
        """)
    assert errs == [
        "s.yaml:9:3: budget applies to strategy: adaptive; the exhaustive strategy runs every candidate "
        "`repetitions` times",
        "s.yaml:15:3: repetitions applies to strategy: exhaustive; the adaptive strategy decides how often to "
        "run each candidate, up to `budget` transfers",
        "s.yaml:16:3: margin must be more than 0 (tgftp 0.7.0's code uses 10MB/s, its documentation 20MB/s)",
        "s.yaml:17:3: candidate 3 repeats candidate 1 (-vb -p 4)",
    ]


def test_schema_mistakes_in_the_new_keys():
    errs = errors_of("""\
          - id: a
            kind: autotune
            candidates: tgftp-38
            strategy: greedy
            margin: fast
            link: {bandwidth: 10 gigs}
          - id: b
            kind: autotune
            comment: "#2"
            description: grid
            candidates: {parallel: [1, 2], stripe: [true]}
            engine: virtual
          - id: c
            kind: autotune
            candidates: [{parallel: 2}, {parallel: 0}]
        """, defaults="defaults: {source: ftp://h/x, target: ftp://h/y}\n")
    assert errs == [
        "s.yaml:7:15: tests[0].candidates: expected tgftp-37, a mapping of option lists (a grid) or a list of "
        "option sets, got text 'tgftp-38'",
        "s.yaml:8:13: tests[0].strategy: 'greedy' is not one of: exhaustive, adaptive",
        "s.yaml:9:11: tests[0].margin: bad rate 'fast' (use MiB/s, or e.g. 20MB/s, 1GB/s, 10Gbit/s; at most 10 "
        "digits before a point)",
        "s.yaml:10:21: tests[0].link.bandwidth: bad rate '10 gigs' (use MiB/s, or e.g. 20MB/s, 1GB/s, 10Gbit/s; at "
        "most 10 digits before a point)",
        "s.yaml:15:34: unknown key 'stripe' in tests[1].candidates; did you mean 'streams'?",
        "s.yaml:16:11: tests[1].engine: 'virtual' is not one of: real, simulated",
        "s.yaml:19:42: tests[2].candidates[1].parallel: must be at least 1, got 0",
    ]


def test_a_link_on_the_real_engine_is_a_warning():
    scenario = load("""\
          - id: g
            kind: guc
            source: ftp://h/a
            target: ftp://h/b
            link: {seed: 1}
        """)
    assert [str(w) for w in scenario.warnings] == [
        "s.yaml:8:3: warning: test 'g' has a link but runs on the real engine; the link is used only with "
        "engine: simulated"]


HOSTS = """\
hosts:
  dtn1: {address: 10.9.0.2, user: root}
  dtn2: {address: dtn2.example.org}
"""


def test_an_autotune_on_a_host_runs_its_transfers_from_there():
    text = "version: 1\nname: s\n" + HOSTS + textwrap.dedent("""\
        tests:
          - id: tune
            kind: autotune
            on: dtn1
            source: ftp://127.0.0.1:2811/
            target: gsiftp://dtn2.example.org/
            candidates: [{}, {parallel: 4}]
        """)
    (spec,) = plan(load_scenario_text(text, "s.yaml"))
    assert spec.host == "dtn1" and spec.run_id == "tune@dtn1"
    assert spec.params["url_hosts"] == {"10.9.0.2": "dtn1", "dtn1": "dtn1", "dtn2.example.org": "dtn2",
                                        "dtn2": "dtn2"}
    from gftpwb.kinds.autotune.plan import TuneSettings, transfer_spec

    transfer = transfer_spec(spec, TuneSettings.of(spec).candidates[1], 3, MIB)
    assert transfer.run_id == "tune#2/3@dtn1" and transfer.host == "dtn1"
    assert transfer.taglog_name == "s_#001_003@dtn1.log"


def test_an_autotune_runs_from_one_host_only():
    text = "version: 1\nname: s\n" + HOSTS + textwrap.dedent("""\
        tests:
          - id: tune
            kind: autotune
            on: [dtn1, dtn2]
            source: ftp://a/
            target: ftp://b/
        """)
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(text, "s.yaml")
    assert [str(d) for d in info.value.diagnostics] == [
        "s.yaml:9:5: an auto-tune runs its transfers from one host; give on one host (or write one auto-tune "
        "test per host)"]


def test_defaults_on_reaches_an_autotune_and_connection_tests_keep_their_own_defaults():
    text = "version: 1\nname: s\n" + HOSTS + textwrap.dedent("""\
        defaults: {on: dtn1, source: ftp://a/x, target: ftp://b/y, timeout: 50s, options: {length: 1G}}
        tests:
          - {id: tune, kind: autotune}
          - {id: conn, kind: connection-test}
          - {id: g, kind: guc}
        """)
    tune, conn, guc = load_scenario_text(text, "s.yaml").tests
    assert tune.on == ("dtn1",) and tune.timeout_s == 50.0
    assert conn.on == ("dtn1",) and conn.timeout_s == 50.0 and conn.options == GucOptions()
    assert guc.options.length == GIB
