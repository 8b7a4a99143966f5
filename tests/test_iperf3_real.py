"""kind: iperf3 against the real iperf3 (Debian 12's 3.12): on this machine, and between the lab's
namespace hosts over SSH. Runs are 1-2 s each; the timeouts prove that nothing is left behind, in the
root namespace and in every lab namespace."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from support.labhosts import hosts_yaml, inventory, processes_in
from support.polling import eventually_async

from gftpwb.core.bus import EventBus
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.events import Progress, RunFinished
from gftpwb.core.plan import plan
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, TIMEOUT, parse_journal
from gftpwb.kinds.iperf3.run.runner import Iperf3Runner
from gftpwb.shell.executor import Executor
from gftpwb.shell.transports.hosts import HostTransports

pytestmark = pytest.mark.real
GFTPWB = [sys.executable, "-m", "gftpwb"]


def iperf3_processes(port: int) -> list[str]:
    """Command lines of live iperf3 processes on this machine (any namespace) using ``port``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and cmdline and cmdline[0].endswith(b"iperf3") and str(port).encode() in cmdline:
            found.append(b" ".join(cmdline).decode())
    return found


async def run_scenario(body: str, *, hosts: str = "", transports=None, runner: Iperf3Runner | None = None,
                       subscriber=None):
    """Plan and run a scenario in this process; (events, records by run id). ``subscriber(executor,
    event)`` hears every event too."""
    scenario = load_scenario_text(f"version: 1\nname: ip\n{hosts}tests:\n{body}", "ip.yaml")
    transports = transports or HostTransports(scenario.hosts)
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    executor = Executor(bus, transport_for=transports, kill_grace_s=1.0,
                        runners={"iperf3": runner} if runner else None)
    if subscriber is not None:
        bus.subscribe(lambda event: subscriber(executor, event))
    try:
        await executor.run(plan(scenario), results_dir="-", scenario="ip")
    finally:
        await transports.close()
    return events, {e.record.run_id: e.record for e in events if isinstance(e, RunFinished)}


def stream_channels(events, run_id: str) -> set[str | None]:
    return {e.channel for e in events if isinstance(e, Progress) and e.run_id == run_id}


# --- on this machine ----------------------------------------------------------------------------------


async def test_local_runs_report_streams_live_and_per_stream_results():
    events, records = await run_scenario("""\
  - id: fwd
    kind: iperf3
    streams: 2
    duration: 2s
    omit: 1s
  - id: rev
    kind: iperf3
    reverse: true
    bytes: 64M
    window: 1M
""")
    fwd, rev = records["fwd/0"], records["rev/0"]
    assert (fwd.status, rev.status) == (PASSED, PASSED), (fwd.error, rev.error)
    info = fwd.details["iperf3"]
    assert len(info["streams"]) == 2 and sum(s["received_bytes"] for s in info["streams"]) == fwd.bytes
    assert info["omitted_bytes"] > 0 and fwd.rate_guc_avg_mib_s > 0 and fwd.rate_incl_setup_mib_s > 0
    assert info["server_argv"][:3] == ["iperf3", "-s", "-p"] and "-1" in info["server_argv"]
    assert info["client_argv"][info["client_argv"].index("-p") + 1] == str(info["port"])
    # Live progress came from the server's interval reports, per stream and in total.
    assert stream_channels(events, "fwd/0") == {"stream 1", "stream 2", None}
    # A reverse run: the server sends; -n counts the bytes; the window was asked for on both ends.
    assert rev.details["iperf3"]["received"]["bytes"] >= 64 << 20
    assert rev.details["iperf3"]["socket_buffer_requested"] == 1 << 20
    assert "-R" in rev.details["iperf3"]["client_argv"]
    assert iperf3_processes(info["port"]) == [] and iperf3_processes(rev.details["iperf3"]["port"]) == []


async def test_bdp_window_from_a_measured_rtt():
    _, records = await run_scenario("""\
  - id: bdp
    kind: iperf3
    window: bdp
    bandwidth: 10Gbit/s
    streams: 2
    duration: 1s
""")
    record = records["bdp/0"]
    assert record.status == PASSED, record.error
    info = record.details["iperf3"]
    assert info["rtt_from"] == "measured" and info["rtt_ms"] > 0 and info["window_from"] == "bdp"
    expected = -(-10e9 / 8 * info["rtt_ms"] / 1000 // 2)  # ceil(bandwidth x RTT / 2 streams)
    assert abs(info["window_bytes"] - expected) <= 1  # rtt_ms is rounded to a microsecond in the record
    assert info["client_argv"][info["client_argv"].index("-w") + 1] == str(info["window_bytes"])
    assert "RTT probe: " in record.output and "-1" not in info["server_argv"]  # the server served the probe too


async def test_a_port_in_use_is_skipped_and_a_fixed_busy_port_fails_clearly():
    with socket.socket() as busy:
        busy.bind(("0.0.0.0", 0))
        busy.listen(1)
        taken = busy.getsockname()[1]
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            free = probe.getsockname()[1]
        ports = iter([taken, free])
        _, records = await run_scenario("  - id: a\n    kind: iperf3\n    duration: 1s\n",
                                        runner=Iperf3Runner(pick_port=lambda: next(ports)))
        assert records["a/0"].status == PASSED, records["a/0"].error
        assert records["a/0"].details["iperf3"]["ports_tried"] == [taken, free]
        assert f"port {taken} is in use on local; trying another" in records["a/0"].output
        _, records = await run_scenario(f"  - id: b\n    kind: iperf3\n    duration: 1s\n    port: {taken}\n")
    record = records["b/0"]
    assert record.status == FAILED
    assert record.error == (f"the iperf3 server on local did not start on port {taken}: unable to start listener "
                            "for connections: Address already in use")


async def test_a_server_host_that_cannot_be_reached_fails_the_run_with_the_reason():
    _, records = await run_scenario("  - id: g\n    kind: iperf3\n    server: ghost\n    duration: 1s\n",
                                    hosts="hosts:\n  ghost: {address: 127.0.0.1, port: 1, user: root}\n")
    record = records["g/0"]
    assert record.status == FAILED
    assert record.error.startswith("host ghost (root@127.0.0.1:1): ") and "refused" in record.error.lower()


async def test_a_timeout_stops_client_and_server():
    _, records = await run_scenario("  - id: t\n    kind: iperf3\n    duration: 60s\n    timeout: 2s\n")
    record = records["t/0"]
    assert record.status == TIMEOUT
    assert record.error == "timed out after 2s; the iperf3 client and server were stopped"
    assert record.seconds < 30
    assert iperf3_processes(record.details["iperf3"]["port"]) == []


async def test_ctrl_c_records_the_run_as_interrupted_and_stops_both_ends():
    def stop_at_first_progress(executor, event):
        if isinstance(event, Progress):
            executor.stop()

    _, records = await run_scenario("  - id: i\n    kind: iperf3\n    duration: 60s\n  - id: never\n    kind: iperf3\n",
                                    subscriber=stop_at_first_progress)
    assert list(records) == ["i/0"]  # nothing starts after a stop
    record = records["i/0"]
    assert record.status == INTERRUPTED and "the iperf3 client and server were stopped" in record.error
    assert iperf3_processes(record.details["iperf3"]["port"]) == []


def test_cli_run_and_resume(tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text("version: 1\nname: ipr\ntests:\n"
                        "  - id: a\n    kind: iperf3\n    duration: 1s\n    matrix: {streams: [1, 2]}\n")
    results = tmp_path / "r"
    env = {**os.environ, "COLUMNS": "200"}
    first = subprocess.run([*GFTPWB, "run", str(scenario), "--results", str(results)], capture_output=True,
                           text=True, timeout=120, env=env)
    assert first.returncode == 0, first.stderr
    assert "iperf3 baselines" in first.stdout and "local -> local -P 2 -t 1" in first.stdout
    journal = results / "results.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    journal.write_text(lines[0])  # as if the run had stopped after its first record
    again = subprocess.run([*GFTPWB, "run", str(scenario), "--resume", str(results)], capture_output=True,
                           text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    records, problems = parse_journal(journal.read_text())
    assert problems == [] and [r.run_id for r in records] == ["a[0]/0", "a[1]/0"]
    assert json.loads(lines[0])["run_id"] == "a[0]/0" and records[0].to_json() + "\n" == lines[0]


# --- between namespace hosts ------------------------------------------------------------------------


def lab_transports(netlab) -> HostTransports:
    return HostTransports(list(inventory(netlab).values()))


async def test_between_namespace_hosts_and_to_and_from_this_machine(netlab):
    status = netlab.status()
    events, records = await run_scenario(f"""\
  - id: h1-h2
    kind: iperf3
    client: h1
    server: h2
    streams: 2
    duration: 1s
  - id: here-h3
    kind: iperf3
    server: h3
    duration: 1s
    reverse: true
  - id: h1-here
    kind: iperf3
    client: h1
    server_address: {status['controller_address']}
    duration: 1s
""", hosts=hosts_yaml(netlab), transports=lab_transports(netlab))
    for run_id in ("h1-h2/0", "here-h3/0", "h1-here/0"):
        assert records[run_id].status == PASSED, (run_id, records[run_id].error)
    addresses = {h["name"]: h["address"] for h in status["hosts"]}
    info = records["h1-h2/0"].details["iperf3"]
    assert (records["h1-h2/0"].host, info["server"], info["server_address"]) == ("h1", "h2", addresses["h2"])
    assert stream_channels(events, "h1-h2/0") == {"stream 1", "stream 2", None}
    # The client on h1 connected from h1's address: the server's log says so.
    assert f"connected to {addresses['h1']} port" in records["h1-h2/0"].output
    assert records["h1-here/0"].details["iperf3"]["server_address"] == status["controller_address"]


async def test_a_timeout_between_namespaces_leaves_no_iperf3_anywhere(netlab):
    _, records = await run_scenario("""\
  - id: long
    kind: iperf3
    client: h1
    server: h2
    duration: 60s
    timeout: 3s
""", hosts=hosts_yaml(netlab), transports=lab_transports(netlab))
    record = records["long/0"]
    assert record.status == TIMEOUT, record.error
    port = record.details["iperf3"]["port"]
    namespaces = [h["netns"] for h in netlab.status()["hosts"]]

    def left() -> list:
        in_namespaces = [(ns, cmd) for ns in namespaces for _, cmd in processes_in(ns) if "iperf3" in cmd]
        return in_namespaces + iperf3_processes(port)

    # the remote kill is asynchronous to the SSH channel's close: allow a moment
    await eventually_async(lambda: left() == [], "every iperf3 process gone", detail=left)
