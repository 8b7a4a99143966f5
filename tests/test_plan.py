"""Planning: matrix cross product (order kept), repeats, stable ids and case numbers, --only."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError, UsageError
from gftpwb.core.plan import plan, plan_fingerprint

BASE = """\
version: 1
name: p
defaults: {source: "ftp://h/dev/zero", target: "ftp://h/dev/null", options: {length: 1M}}
tests:
"""


def scenario(tests: str):
    return load_scenario_text(BASE + tests, "p.yaml")


def test_matrix_is_a_cross_product_first_key_outermost():
    s = scenario("  - {id: m, kind: guc, matrix: {parallel: [1, 4], tcp_buffer: [1M, 2M, 4M]}}\n")
    specs = plan(s)
    assert [(r.params["parallel"], r.params["tcp_buffer"] >> 20) for r in specs] == [
        (1, 1), (1, 2), (1, 4), (4, 1), (4, 2), (4, 4)]
    assert [r.case for r in specs] == [0, 1, 2, 3, 4, 5]
    assert specs[0].argv == ("globus-url-copy", "-vb", "-p", "1", "-tcp-bs", "1M", "-len", "1M",
                             "ftp://h/dev/zero", "ftp://h/dev/null")


def test_repeats_follow_their_case_and_name_tag_logs_like_tgftp():
    s = scenario("  - {id: a, kind: guc, repeat: 2}\n  - {id: b, kind: guc, matrix: {parallel: [2, 8]}, repeat: 2}\n")
    specs = plan(s)
    assert [r.run_id for r in specs] == ["a/0", "a/1", "b[1]/0", "b[1]/1", "b[2]/0", "b[2]/1"]
    assert [r.taglog_name for r in specs] == ["p_#000_000.log", "p_#000_001.log", "p_#001_000.log",
                                              "p_#001_001.log", "p_#002_000.log", "p_#002_001.log"]


def test_matrix_value_overrides_options_and_extra_args_stay_last():
    s = scenario("  - {id: a, kind: guc, options: {parallel: 2}, extra_args: [-nodcau], matrix: {parallel: [16]}}\n")
    (spec,) = plan(s)
    assert spec.argv[:4] == ("globus-url-copy", "-vb", "-p", "16")
    assert spec.argv[-3:] == ("-nodcau", "ftp://h/dev/zero", "ftp://h/dev/null")


def test_vb_is_not_doubled():
    s = scenario("  - {id: a, kind: guc, extra_args: [-vb]}\n")
    assert plan(s)[0].argv.count("-vb") == 1


def test_only_keeps_case_numbers_and_rejects_unknown_ids():
    s = scenario("  - {id: a, kind: guc}\n  - {id: b, kind: guc}\n")
    (spec,) = plan(s, ["b"])
    assert spec.case == 1 and spec.taglog_name == "p_#001_000.log"
    with pytest.raises(UsageError, match="unknown test id 'zz'; p has: a, b"):
        plan(s, ["zz"])


def test_fingerprint_changes_with_the_plan_only():
    a = scenario("  - {id: a, kind: guc}\n")
    b = load_scenario_text(BASE + "# a comment changes nothing\n  - {id: a, kind: guc}\n", "p.yaml")
    c = scenario("  - {id: a, kind: guc, options: {parallel: 2}}\n")
    assert plan_fingerprint(plan(a)) == plan_fingerprint(plan(b)) != plan_fingerprint(plan(c))
    with_pre = scenario("  - {id: a, kind: guc, pre: [sysctl, net.ipv4.tcp_congestion_control]}\n")
    other_pre = scenario("  - {id: a, kind: guc, pre: [sysctl, net.core.rmem_max]}\n")
    assert len({plan_fingerprint(plan(x)) for x in (a, with_pre, other_pre)}) == 3


@given(
    st.lists(st.integers(min_value=1, max_value=64), min_size=1, max_size=4, unique=True),
    st.lists(st.sampled_from(["1M", "2M", "4M", "8M", "16M"]), min_size=1, max_size=3, unique=True),
    st.integers(min_value=1, max_value=3),
)
def test_matrix_expansion_property(streams, buffers, repeat):
    s = scenario(f"  - {{id: m, kind: guc, repeat: {repeat}, matrix: {{parallel: {streams}, "
                 f"tcp_buffer: [{', '.join(buffers)}]}}}}\n")
    specs = plan(s)
    assert len(specs) == len(streams) * len(buffers) * repeat
    combos = [(r.params["parallel"], r.params["tcp_buffer"]) for r in specs if r.repeat == 0]
    expected = [(p, int(b[:-1]) << 20) for p, b in itertools.product(streams, buffers)]
    assert combos == expected
    assert len({r.run_id for r in specs}) == len(specs)


def test_connection_tests_move_one_byte_and_default_to_30_seconds():
    s = scenario("  - {id: c, kind: connection-test, extra_args: [-nodcau]}\n"
                 "  - {id: d, kind: connection-test, timeout: 5s}\n")
    c, d = plan(s)
    assert c.argv == ("globus-url-copy", "-dbg", "-vb", "-len", "1", "-nodcau", "ftp://h/dev/zero", "ftp://h/dev/null")
    assert (c.kind, c.length_bytes, c.params, c.timeout_s, d.timeout_s) == ("connection-test", 1, {}, 30, 5)


def test_log_filename_follows_tgftps_rule():
    s = scenario("  - {id: a, kind: guc, log_filename: run.log, repeat: 2}\n"
                 "  - {id: b, kind: guc, log_filename: once}\n"
                 "  - {id: c, kind: guc, log_filename: many, repeat: 2}\n"
                 "  - {id: d, kind: guc, log_filename: m.log, matrix: {parallel: [1, 2]}}\n")
    assert [r.taglog_name for r in plan(s)] == ["run_000.log", "run_001.log", "once", "many_000", "many_001",
                                                "m_#003_000.log", "m_#004_000.log"]  # d's cases are #003, #004


def test_two_tests_cannot_share_a_log_filename():
    with pytest.raises(ScenarioError) as info:
        scenario("  - {id: a, kind: guc, log_filename: x.log}\n  - {id: b, kind: guc, log_filename: x}\n")
    assert "log_filename 'x' is also used by the test at line 5" in str(info.value)


def test_exact_args_reach_guc_as_given_and_the_record_says_whether_gftpwb_added_vb():
    s = load_scenario_text("version: 1\nname: p\ntests:\n"
                           "  - {id: exact, kind: guc, source: ftp://a/x, target: ftp://b/y, "
                           "args: [-len, 1024M, -p, '4', -tcp-bs, 4M]}\n"
                           "  - {id: progress, kind: guc, source: ftp://a/x, target: ftp://b/y, args: [-p, '2'], "
                           "add_vb: true}\n"
                           "  - {id: typed, kind: guc, source: ftp://a/x, target: ftp://b/y, options: {parallel: 2}}\n"
                           "  - {id: quiet, kind: guc, source: ftp://a/x, target: ftp://b/y, options: {parallel: 2}, "
                           "add_vb: false}\n", "p.yaml")
    exact, progress, typed, quiet = plan(s)
    assert exact.argv == ("globus-url-copy", "-len", "1024M", "-p", "4", "-tcp-bs", "4M", "ftp://a/x", "ftp://b/y")
    assert exact.params == {"parallel": 4, "tcp_buffer": 4 << 20, "length": 1 << 30} and exact.length_bytes == 1 << 30
    assert [spec.details["vb_added"] for spec in (exact, progress, typed, quiet)] == [False, True, True, False]
    assert progress.argv[:3] == ("globus-url-copy", "-vb", "-p") and "-vb" not in quiet.argv


def test_args_cannot_be_combined_with_typed_options():
    with pytest.raises(ScenarioError) as info:
        load_scenario_text("version: 1\nname: p\ndefaults: {options: {parallel: 2}}\ntests:\n"
                           "  - {id: a, kind: guc, source: ftp://a/x, target: ftp://b/y, args: [-p, '4']}\n", "p.yaml")
    assert "args gives guc's parameters exactly, so it cannot be combined with options (from defaults)" in \
        str(info.value.diagnostics[0])
