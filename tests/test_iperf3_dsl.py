"""kind: iperf3 in the DSL: loading, checks at file:line:col, the typed model against the schema,
planning (hosts, addresses, matrix) and --dry-run."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import fields

import pytest

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.dsl.schema import build_schema
from gftpwb.core.errors import ScenarioError
from gftpwb.core.plan import plan
from gftpwb.core.scenario.model import TestSchedule
from gftpwb.core.units import MIB
from gftpwb.kinds.iperf3.job import Iperf3Job
from gftpwb.kinds.iperf3.model import Iperf3Test

HEAD = ("version: 1\nname: b\n"
        "hosts:\n  h1: {address: 10.9.0.2}\n  h2: {address: 10.9.0.3}\n"
        "defaults: {timeout: 1m, source: ftp://h/x, options: {parallel: 4}}\n"
        "tests:\n")
FIRST = HEAD.count("\n") + 1  # line of the first test


def load(tests: str):
    return load_scenario_text(HEAD + textwrap.dedent(tests), "b.yaml")


def errors_of(tests: str) -> list[str]:
    with pytest.raises(ScenarioError) as info:
        load(tests)
    return [str(d) for d in info.value.diagnostics]


def test_model_and_schema_name_the_same_keys():
    keys = {f.metadata.get("key", f.name) for f in fields(Iperf3Test) if not f.metadata.get("derived")}
    harness = {f.name for f in fields(TestSchedule)}  # needs, concurrency, delay: every test's, the harness's
    assert keys | harness == set(build_schema()["definitions"]["iperf3_test"]["properties"])


def test_a_test_between_two_hosts_loads_with_its_defaults():
    scenario = load("""\
      - id: base
        kind: iperf3
        client: h1
        server: h2
        streams: 4
        window: 256K
        omit: 2s
    """)
    (test,) = scenario.tests
    assert isinstance(test, Iperf3Test)
    assert (test.client, test.server, test.streams, test.window, test.omit, test.duration) == (
        "h1", "h2", 4, 256 * 1024, 2.0, 10.0)
    assert test.timeout_s == 60  # inherited; the guc defaults (source, options) are not
    (spec,) = plan(scenario)
    job = Iperf3Job.from_params(spec.params)
    assert (spec.host, job.server_address, spec.run_id) == ("h1", "10.9.0.3", "base/0")
    assert spec.argv == ("iperf3", "-c", "10.9.0.3", "-p", "<port>", "-J", "-P", "4", "-w", "262144", "-t", "10",
                         "-O", "2")


def test_client_comes_from_on_when_it_names_one_host_and_local_ends_use_loopback():
    scenario = load("""\
      - id: from-on
        kind: iperf3
        on: h2
        server: h1
      - id: here
        kind: iperf3
        bytes: 1G
    """)
    first, second = plan(scenario)
    assert (first.host, Iperf3Job.from_params(first.params).server_address) == ("h2", "10.9.0.2")
    job = Iperf3Job.from_params(second.params)
    assert (second.host, job.server, job.server_address, job.bytes, job.duration_s) == (
        "local", "local", "127.0.0.1", 1 << 30, None)
    assert second.length_bytes == 1 << 30


def test_a_matrix_sweeps_streams_with_a_bdp_window():
    scenario = load("""\
      - id: sweep
        kind: iperf3
        client: h1
        server: h2
        window: bdp
        bandwidth: 400Mbit/s
        rtt: 60ms
        matrix: {streams: [1, 4]}
    """)
    one, four = plan(scenario)
    assert [s.run_id for s in (one, four)] == ["sweep[0]/0", "sweep[1]/0"]
    assert Iperf3Job.from_params(one.params).window_bytes() == 3_000_000
    assert "750000" in four.argv  # 400 Mbit/s x 60 ms / 4 streams, known at planning time
    assert Iperf3Job.from_params(four.params).bandwidth_mib_s == pytest.approx(400e6 / 8 / MIB)


def test_hosts_and_addresses_are_checked_at_their_keys():
    errs = errors_of("""\
      - id: a
        kind: iperf3
        client: h9
        server: nowhere
      - id: b
        kind: iperf3
        on: [h1, h2]
      - id: c
        kind: iperf3
        client: h1
    """)
    line = FIRST
    assert errs == [
        f"b.yaml:{line + 2}:11: test 'a': unknown host 'h9' for client (not in hosts, and not 'local'; known: "
        "local, h1, h2)",
        f"b.yaml:{line + 3}:11: test 'a': unknown host 'nowhere' for server (not in hosts, and not 'local'; known: "
        "local, h1, h2)",
        f"b.yaml:{line + 6}:7: test 'b': an iperf3 test runs one client, but on: names several hosts; set client: to "
        "the host the client runs on",
        f"b.yaml:{line + 7}:3: test 'c': the server runs on this machine and the client on 'h1'; set server_address: "
        "to the address at which 'h1' reaches this machine (for the lab: its controller_address)",
    ]


def test_lengths_windows_and_their_matrix_values_are_checked():
    errs = errors_of("""\
      - id: d
        kind: iperf3
        duration: 1.5s
        bytes: 1G
        window: 1G
      - id: m
        kind: iperf3
        window: bdp
        matrix: {omit: [0, 0.5]}
    """)
    line = FIRST
    assert errs == [
        f"b.yaml:{line + 2}:13: test 'd': iperf3 takes whole seconds for duration, got '1.5s'",
        f"b.yaml:{line + 3}:10: test 'd': set duration or bytes, not both (iperf3 -t or -n)",
        f"b.yaml:{line + 4}:11: test 'd': window 1G exceeds iperf3's limit of 512M",
        f"b.yaml:{line + 7}:11: test 'm': window bdp needs bandwidth: (e.g. 400Mbit/s); the window is bandwidth x "
        "RTT / streams",
        f"b.yaml:{line + 8}:18: test 'm': iperf3 takes whole seconds for omit, got 0.5",  # at the matrix's list
    ]


def test_bandwidth_without_a_bdp_window_is_a_warning():
    scenario = load("""\
      - id: w
        kind: iperf3
        bandwidth: 1Gbit/s
    """)
    assert [str(w) for w in scenario.warnings] == [
        f"b.yaml:{FIRST + 2}:14: warning: test 'w': bandwidth is only used with window: bdp"]


def test_dry_run_shows_server_client_and_window(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + textwrap.dedent("""\
      - id: base
        kind: iperf3
        client: h1
        server: h2
        window: bdp
        bandwidth: 1Gbit/s
        streams: 2
    """))
    out = subprocess.run([sys.executable, "-m", "gftpwb", "run", "--dry-run", str(path)], capture_output=True,
                         text=True, check=True).stdout
    assert "base/0: server on h2: iperf3 -s -p <port> --forceflush" in out
    assert "client on h1: iperf3 -c 10.9.0.3 -p <port> -J -P 2 -w <bdp> -t 10  # timeout 60s" in out
    assert "window = 119.209 MiB/s x RTT (measured by a 1 s probe before the run) / 2 stream(s)" in out
