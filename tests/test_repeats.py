"""warmup and order (gftpwb.core.dsl.repeats, gftpwb.core.plan.order_runs): which runs are marked, in
which order runs go, and that groups (one run on several hosts) stay together."""

import pytest

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.plan import plan, plan_fingerprint

BASE = """\
version: 1
name: rep
hosts: {h1: {address: 10.0.0.2}, h2: {address: 10.0.0.3}}
defaults: {source: "ftp://a/x", target: "file:///dev/null", options: {length: 1M}}
tests:
"""


def specs(test: str):
    return plan(load_scenario_text(BASE + f"  - {test}\n", "rep.yaml"))


def test_sequential_is_tgftps_order_and_warmups_are_marked_per_case():
    got = specs("{id: s, kind: guc, matrix: {parallel: [1, 2]}, repeat: 3, warmup: 1}")
    assert [s.run_id for s in got] == ["s[0]/0", "s[0]/1", "s[0]/2", "s[1]/0", "s[1]/1", "s[1]/2"]
    assert [bool(s.details.get("warmup")) for s in got] == [True, False, False, True, False, False]


def test_interleaved_keeps_the_hosts_of_a_run_together():
    got = specs("{id: i, kind: guc, on: [h1, h2], matrix: {parallel: [1, 2]}, repeat: 2, order: interleaved}")
    assert [s.run_id for s in got] == ["i[0]/0@h1", "i[0]/0@h2", "i[1]/0@h1", "i[1]/0@h2",
                                       "i[0]/1@h1", "i[0]/1@h2", "i[1]/1@h1", "i[1]/1@h2"]
    assert [s.group for s in got][::2] == ["i[0]/0", "i[1]/0", "i[0]/1", "i[1]/1"]


def test_random_is_a_seeded_permutation_that_keeps_groups():
    text = "{id: r, kind: guc, on: [h1, h2], matrix: {parallel: [1, 2, 4]}, repeat: 3, order: random%s}"
    a, again, other = specs(text % ""), specs(text % ""), specs(text % ", order_seed: 7")
    sequential = specs(text.replace(", order: random", "") % "")
    assert [s.run_id for s in a] == [s.run_id for s in again]  # the same order every time (resume works)
    assert sorted(s.run_id for s in a) == sorted(s.run_id for s in sequential)
    assert [s.run_id for s in a] != [s.run_id for s in sequential] != [s.run_id for s in other]
    assert all(a[i].group == a[i + 1].group for i in range(0, len(a), 2))
    assert plan_fingerprint(a) != plan_fingerprint(sequential)  # --resume refuses another order


def test_gfapi_takes_warmup_and_order_too():
    got = specs("{id: g, kind: gfapi, directory: /tmp/x, matrix: {threads: [1, 2]}, repeat: 2, warmup: 1, "
                "order: interleaved}")
    assert [(s.run_id, bool(s.details.get("warmup"))) for s in got] == [
        ("g[0]/0", True), ("g[1]/0", True), ("g[0]/1", False), ("g[1]/1", False)]


def test_bad_values_are_reported_at_their_key():
    with pytest.raises(ScenarioError) as bad:
        specs("{id: b, kind: guc, order: shuffled}")
    assert "order" in str(bad.value) and "rep.yaml:6:" in str(bad.value)
    warned = load_scenario_text(BASE + "  - {id: w, kind: guc, repeat: 2, order_seed: 3}\n", "rep.yaml")
    assert [str(w) for w in warned.warnings] == [
        "rep.yaml:6:35: warning: order_seed has no effect without order: random"]
