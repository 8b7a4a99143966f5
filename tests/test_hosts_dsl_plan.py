"""The host inventory and ``on:`` in the DSL (errors at file:line:col), and how the planner expands
a test on several hosts: one spec per host, ids and tag logs with ``@host``, one start group."""

from __future__ import annotations

import os
import textwrap

import pytest

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.plan import plan, plan_fingerprint

BASE = """\
version: 1
name: mh
hosts:
  c1: {address: 10.0.0.2, user: bench, identity: keys/id_c1, known_hosts: lab/known_hosts, env: {TZ: UTC}}
  c2: {address: c2.example.org, port: 2222, jump: c1, workdir: /srv/bench, connect_timeout: 3s}
defaults: {source: "ftp://h/dev/zero", target: "ftp://h/dev/null", options: {length: 1M}}
tests:
"""


def load(tests: str, base: str = BASE, filename: str = "/work/scn/mh.yaml"):
    return load_scenario_text(base + textwrap.dedent(tests), filename)


def errors_of(text: str) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(textwrap.dedent(text), "s.yaml")
    return [str(d) for d in info.value.diagnostics]


def test_inventory_becomes_typed_hosts_with_paths_relative_to_the_scenario():
    s = load("  - {id: t, kind: guc}\n")
    c1, c2 = s.hosts
    assert (c1.name, c1.address, c1.port, c1.user, c1.env) == ("c1", "10.0.0.2", 22, "bench", (("TZ", "UTC"),))
    assert c1.identity == "/work/scn/keys/id_c1" and c1.known_hosts == "/work/scn/lab/known_hosts"
    assert (c2.port, c2.jump, c2.workdir, c2.connect_timeout_s, c2.user) == (2222, "c1", "/srv/bench", 3.0, "")
    assert s.host("c2") is c2 and s.host("local") is None
    assert c1.label == "host c1 (bench@10.0.0.2:22)"
    assert s.tests[0].on == ("local",)


def test_home_and_absolute_paths_are_kept():
    s = load("  - {id: t, kind: guc}\n", BASE.replace("keys/id_c1", "~/.ssh/id").replace("lab/known_hosts", "/k"))
    assert (s.hosts[0].identity, s.hosts[0].known_hosts) == ("~/.ssh/id", "/k")
    assert os.path.isabs(load("  - {id: t, kind: guc}\n").hosts[0].identity)


def test_a_test_on_several_hosts_plans_one_spec_per_host_in_one_start_group():
    specs = plan(load("""\
          - {id: fan, kind: guc, on: [c1, c2], repeat: 2, matrix: {parallel: [1, 4]}}
          - {id: solo, kind: guc, on: c2}
          - {id: here, kind: guc}
          - {id: both, kind: guc, on: [local, c1]}
        """))
    assert [s.run_id for s in specs] == [
        "fan[0]/0@c1", "fan[0]/0@c2", "fan[0]/1@c1", "fan[0]/1@c2",
        "fan[1]/0@c1", "fan[1]/0@c2", "fan[1]/1@c1", "fan[1]/1@c2",
        "solo/0@c2", "here/0", "both/0@local", "both/0@c1"]
    assert [s.group for s in specs[:4]] == ["fan[0]/0", "fan[0]/0", "fan[0]/1", "fan[0]/1"]
    assert [s.group for s in specs[8:10]] == ["", ""]
    assert [s.host for s in specs[8:]] == ["c2", "local", "local", "c1"]
    assert specs[0].taglog_name == "mh_#000_000@c1.log" and specs[9].taglog_name == "mh_#003_000.log"
    assert specs[8].taglog_name == "mh_#002_000@c2.log"
    assert specs[0].argv == specs[1].argv  # the same run, on two hosts


def test_defaults_on_applies_to_tests_without_their_own():
    s = load("  - {id: a, kind: guc}\n  - {id: b, kind: guc, on: local}\n",
             BASE.replace("defaults: {", "defaults: {on: [c1, c2], "))
    assert [t.on for t in s.tests] == [("c1", "c2"), ("local",)]


def test_moving_a_test_to_another_host_changes_the_plan_fingerprint():
    one = plan(load("  - {id: a, kind: guc, on: c1}\n"))
    other = plan(load("  - {id: a, kind: guc, on: c2}\n"))
    assert plan_fingerprint(one) != plan_fingerprint(other)
    here = plan(load("  - {id: a, kind: guc}\n"))
    assert here[0].run_id == "a/0" and here[0].group == "" and here[0].host == "local"


def test_unknown_hosts_in_on_are_reported_where_they_are_written():
    assert errors_of("""\
        version: 1
        name: x
        hosts:
          client1: {address: 10.0.0.2}
        defaults: {source: ftp://a/b, target: ftp://a/c, on: clinet1}
        tests:
          - {id: a, kind: guc, on: [local, client2]}
          - {id: b, kind: guc, on: nowhere}
        """) == [
        "s.yaml:5:54: unknown host 'clinet1' (not in hosts, and not 'local'); did you mean 'client1'?",
        "s.yaml:7:36: unknown host 'client2' (not in hosts, and not 'local'); did you mean 'client1'?",
        "s.yaml:8:28: unknown host 'nowhere' (not in hosts, and not 'local'); known: local, client1",
    ]


def test_bad_inventories_are_reported_at_the_offending_key_or_value():
    assert errors_of("""\
        version: 1
        name: x
        hosts:
          local: {address: 10.0.0.1}
          "two words": {address: 10.0.0.2}
          a: {address: 10.0.0.3, jump: b, env: {"1BAD": x}}
          b: {address: 10.0.0.4, jump: a, port: 70000}
          c: {address: 10.0.0.5, jump: zz, user: ""}
          d: {adress: 10.0.0.6}
        tests:
          - {id: t, kind: guc, source: ftp://a/b, target: ftp://a/c, on: [a, a]}
          - {id: u, kind: guc, source: ftp://a/b, target: ftp://a/c, on: 7}
        """) == [
        "s.yaml:5:3: hosts: bad name 'two words' (letters, digits, '.', '_' and '-', starting with a letter or digit)",
        "s.yaml:6:41: hosts.a.env: bad name '1BAD' (letters, digits and '_', not starting with a digit)",
        "s.yaml:7:41: hosts.b.port: must be at most 65535, got 70000",
        "s.yaml:8:42: hosts.c.user: must not be empty",
        "s.yaml:9:6: hosts.d: missing required key 'address'",
        "s.yaml:9:7: unknown key 'adress' in hosts.d; did you mean 'address'?",
        "s.yaml:11:66: tests[0].on: expected a host name or a list of different host names, got a list",
        "s.yaml:12:66: tests[1].on: expected a host name or a list of different host names, got number 7",
    ]
    assert errors_of("""\
        version: 1
        name: x
        hosts:
          local: {address: 10.0.0.1}
          a: {address: 10.0.0.3, jump: b}
          b: {address: 10.0.0.4, jump: a}
          c: {address: 10.0.0.5, jump: zz}
          d: {address: 10.0.0.5, jump: d}
        tests:
          - {id: t, kind: guc, source: ftp://a/b, target: ftp://a/c}
        """) == [
        "s.yaml:4:3: host name 'local' is reserved for this machine (no SSH); give the host another name",
        "s.yaml:5:32: jump hosts loop: a -> b -> a",
        "s.yaml:6:32: jump hosts loop: b -> a -> b",
        "s.yaml:7:32: jump host 'zz' of 'c' is not in hosts; known: a, b, c, d",
        "s.yaml:8:32: host 'd' cannot be its own jump host",
    ]
