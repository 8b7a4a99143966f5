"""The figures for Prometheus: names and units by its conventions (promtool's linter agrees), the live
figures of a run from its events, a finished directory's the same, the endpoint's and the pusher's
errors as clear messages. tests/test_live_results_real.py scrapes and pushes with the real servers."""

from __future__ import annotations

import json
import socket
import subprocess
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.exposition import generate_latest
from prometheus_client.parser import text_string_to_metric_families
from support.clihelp import gftpwb

from gftpwb.core.checks import Check
from gftpwb.core.errors import EnvironmentProblem, UsageError
from gftpwb.core.events import (
    ExpectationsChecked,
    MonitorSample,
    Progress,
    RunFinished,
    RunStarted,
    SamplerEnded,
    ScenarioFinished,
    ScenarioStarted,
)
from gftpwb.core.metrics.families import directory_families
from gftpwb.core.metrics.live import LiveMetrics
from gftpwb.core.metrics.names import figure_metric, monitor_metric
from gftpwb.core.records import ResultRecord, Summary
from gftpwb.core.specs import RunSpec
from gftpwb.shell.metrics import MetricsSink, Pusher, check_gateway_url, registry_of, serve

MIB = 1048576


@pytest.mark.parametrize(("kind", "key", "unit", "name", "factor"), [
    ("guc", "rate_incl_setup_mib_s", "MiB/s", "gftpwb_guc_rate_incl_setup_bytes_per_second", MIB),
    ("guc", "rate_guc_avg_mib_s", "MiB/s", "gftpwb_guc_rate_guc_avg_bytes_per_second", MIB),
    ("gfapi", "files_s", "files/s", "gftpwb_gfapi_files_per_second", 1),
    ("gfapi", "mib_s", "MiB/s", "gftpwb_gfapi_bytes_per_second", MIB),
    ("gfapi", "iops", "IOPS", "gftpwb_gfapi_operations_per_second", 1),
    ("connection-test", "setup_s", "s", "gftpwb_connection_test_setup_seconds", 1),
])
def test_a_kinds_figures_in_base_units(kind, key, unit, name, factor):
    assert figure_metric(kind, key, unit) == (name, factor)


@pytest.mark.parametrize(("type_", "figure", "name", "device", "factor"), [
    ("cpu", "busy_pct", "gftpwb_monitor_cpu_busy_ratio", "", 0.01),
    ("cpu", "load1", "gftpwb_monitor_cpu_load1", "", 1),
    ("net", "eth0.rx_mib_s", "gftpwb_monitor_net_rx_bytes_per_second", "eth0", MIB),
    ("net", "lo.rx_packets_s", "gftpwb_monitor_net_rx_packets_per_second", "lo", 1),
    ("memory", "used_mib", "gftpwb_monitor_memory_used_bytes", "", MIB),
    ("tcp", "rtt_ms_mean", "gftpwb_monitor_tcp_rtt_mean_seconds", "", 0.001),
    ("tcp", "delivery_mbit_s", "gftpwb_monitor_tcp_delivery_bytes_per_second", "", 125000),
    ("disk", "sda.util_pct", "gftpwb_monitor_disk_util_ratio", "sda", 0.01),
    ("command", "Queue-Depth", "gftpwb_monitor_command_queue_depth", "", 1),
])
def test_a_monitors_figures_in_base_units(type_, figure, name, device, factor):
    assert monitor_metric(type_, figure) == (name, device, factor)


def spec(run_id: str, case: int = 0, host: str = "local") -> RunSpec:
    return RunSpec(run_id=run_id, scenario="s", test_id="t", case=case, repeat=0, kind="guc", host=host,
                   argv=("globus-url-copy",), params={"parallel": 4})


def record(run_id: str, status: str = "passed", *, case: int = 0, rate: float = 100.0, ended: str = "",
           warmup: bool = False) -> ResultRecord:
    return ResultRecord(scenario="s", test_id="t", run_id=run_id, case=case, repeat=0, kind="guc", host="local",
                        argv=["globus-url-copy"], status=status, params={"parallel": 4}, seconds=2.0,
                        bytes=200 * MIB if status == "passed" else None,
                        rate_incl_setup_mib_s=rate if status == "passed" else None,
                        ended_at=ended or "2026-11-27T12:00:00+00:00", details={"warmup": True} if warmup else {})


def by_name(families) -> dict[str, dict[tuple[str, ...], float]]:
    return {f.exposed_name: dict(f.samples) for f in families}


BASE = ("s", "t", "000", "local")


def test_live_figures_follow_the_runs():
    live = LiveMetrics()
    live(ScenarioStarted(scenario="s", results_dir="r", plan=(spec("t/0"), spec("t/1"), spec("t/2"))))
    live(RunStarted(spec=spec("t/0"), argv=(), started_at=""))
    live(RunStarted(spec=spec("t/1"), argv=(), started_at=""))  # copies of a run: same labels, they add up
    live(Progress(run_id="t/0", bytes=10 * MIB, rate_avg_mib_s=5.0, rate_inst_mib_s=7.0, elapsed_s=1.0))
    live(Progress(run_id="t/1", bytes=20 * MIB, rate_avg_mib_s=3.0, rate_inst_mib_s=None, elapsed_s=1.0))
    live(Progress(run_id="t/1", bytes=MIB, rate_avg_mib_s=1.0, rate_inst_mib_s=1.0, elapsed_s=1.0, channel="x"))
    live(MonitorSample(monitor="load", type="cpu", host="h1", sampled_t=1.0, utc="", span_s=1.0,
                       values={"busy_pct": 50.0}))
    now = by_name(live.families())
    assert now["gftpwb_transfer_rate_bytes_per_second"] == {BASE: 10.0 * MIB}  # 7 (inst) + 3 (avg)
    assert now["gftpwb_transferred_bytes_total"] == {BASE: 30.0 * MIB}
    assert now["gftpwb_runs_in_flight"] == {("s",): 2}
    assert now["gftpwb_scenario_runs_planned"] == {("s",): 3}
    assert now["gftpwb_monitor_cpu_busy_ratio"] == {("s", "load", "h1", ""): 0.5}
    assert "gftpwb_runs_total" not in now
    live(RunFinished(record=record("t/0", rate=100.0)))
    live(RunFinished(record=record("t/1", "failed")))  # no bytes in the record: the 20 MiB seen count
    live(ExpectationsChecked(test_id="t", checks=(Check("t", 0, "#000", "median_rate", ">= 1", 1.0, "1", False),)))
    live(SamplerEnded(host="h1"))
    live(ScenarioFinished(summary=Summary.of([], planned=3, interrupted=False, results_dir="r")))
    end = by_name(live.families())
    assert end["gftpwb_runs_total"] == {(*BASE, "failed"): 1, (*BASE, "passed"): 1}
    assert end["gftpwb_transferred_bytes_total"] == {BASE: 220.0 * MIB}  # never less than during the run
    assert end["gftpwb_guc_rate_incl_setup_bytes_per_second"] == {BASE: 100.0 * MIB}
    assert end["gftpwb_last_run_passed"] == {BASE: 0.0}
    assert end["gftpwb_threshold_violated"] == {("s", "t", "000", "median_rate"): 1.0}
    assert end["gftpwb_case_info"] == {("s", "t", "000", "guc", "-p 4"): 1.0}
    assert "gftpwb_transfer_rate_bytes_per_second" not in end and "gftpwb_monitor_cpu_busy_ratio" not in end


def test_a_directory_says_what_the_live_figures_said_at_the_end():
    records = [record("t/0", rate=50.0), record("t/1", rate=70.0, ended="2026-11-27T12:00:05+00:00"),
               record("t/2", rate=1.0, warmup=True), record("t/3", "timeout")]
    live = LiveMetrics()
    live(ScenarioStarted(scenario="s", results_dir="r", plan=tuple(spec(r.run_id) for r in records)))
    for r in records:
        live(RunFinished(record=r))
    live(ScenarioFinished(summary=Summary.of(records, planned=4, interrupted=False, results_dir="r")))
    finished = by_name(directory_families("s", records, [], planned=4))
    at_end = by_name(live.families())
    assert at_end.pop("gftpwb_runs_in_flight") == {("s",): 0}  # the only figure of a run in progress left
    assert at_end == finished
    assert finished["gftpwb_guc_rate_incl_setup_bytes_per_second"] == {BASE: 70.0 * MIB}  # the latest counted
    assert finished["gftpwb_last_run_end_timestamp_seconds"] == {BASE: 1795780800.0}  # t/3: 12:00:00 UTC


def exposition(families) -> str:
    return generate_latest(registry_of(lambda: families)).decode()


@pytest.mark.real
def test_promtool_finds_nothing_to_lint_in_every_family(tmp_path):
    live = LiveMetrics()
    live(ScenarioStarted(scenario="s", results_dir="r", plan=(spec("t/0"), spec("t/1"))))
    live(RunStarted(spec=spec("t/1"), argv=(), started_at=""))
    live(Progress(run_id="t/1", bytes=MIB, rate_avg_mib_s=5.0, rate_inst_mib_s=7.0, elapsed_s=1.0))
    live(RunFinished(record=record("t/0")))
    live(ExpectationsChecked(test_id="t", checks=(Check("t", 0, "#000", "median_rate", ">= 1", 1.0, "1", True),)))
    figures = {"cpu": ["busy_pct", "user_pct", "load1", "running"],
               "memory": ["used_mib", "swap_used_mib"],
               "net": ["eth0.rx_mib_s", "eth0.tx_packets_s", "eth0.rx_drops_s"],
               "disk": ["sda.reads_s", "sda.read_mib_s", "sda.util_pct", "sda.queue"],
               "tcp": ["connections", "cwnd_mean", "rtt_ms_mean", "rtt_ms_max", "delivery_mbit_s", "retrans_s"]}
    for type_, names in figures.items():
        live(MonitorSample(monitor=type_, type=type_, host="local", sampled_t=1.0, utc="", span_s=1.0,
                           values=dict.fromkeys(names, 1.0)))
    text = exposition(live.families())
    out = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout == "" and out.stderr == "", out.stdout + out.stderr
    parsed = {f.name for f in text_string_to_metric_families(text)}
    assert {"gftpwb_runs", "gftpwb_transferred_bytes", "gftpwb_monitor_tcp_rtt_mean_seconds"} <= parsed


def test_the_endpoint_serves_and_refuses_a_port_in_use():
    sink = MetricsSink()
    sink(ScenarioStarted(scenario="s", results_dir="r", plan=(spec("t/0"),)))
    server = serve("127.0.0.1:0", sink.registry)
    try:
        body = urllib.request.urlopen(server.url, timeout=10).read().decode()
        assert 'gftpwb_scenario_runs_planned{scenario="s"} 1.0' in body
        with pytest.raises(EnvironmentProblem, match=rf"--metrics 127.0.0.1:{server.port}: cannot listen: the port "
                                                     "is in use .*; nothing was run"):
            serve(f"127.0.0.1:{server.port}", sink.registry)
    finally:
        server.close()


def low_port() -> tuple[int, bool]:
    """A port below 1024 nobody listens on, and whether the system lets this process listen there."""
    for port in range(1023, 512, -1):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except PermissionError:
                return port, False
            except OSError:
                continue  # in use
            return port, True
    raise AssertionError("every port from 513 to 1023 is in use")


def test_a_port_below_1024_is_served_where_the_system_allows_it_refused_where_not():
    """The port as given, as Prometheus' exporters take it: gftpwb adds no rule of its own, and its docs
    say so (they said a port below 1024 was refused, and as root gftpwb served it)."""
    port, allowed = low_port()
    if allowed:
        server = serve(f"127.0.0.1:{port}", MetricsSink().registry)
        try:
            assert server.port == port
            assert urllib.request.urlopen(server.url, timeout=10).status == 200
        finally:
            server.close()
    else:
        with pytest.raises(EnvironmentProblem, match=rf"--metrics 127.0.0.1:{port}: cannot listen: the system does "
                                                     "not let this user listen on that port"):
            serve(f"127.0.0.1:{port}", MetricsSink().registry)
    doc = (Path(__file__).resolve().parent.parent / "docs" / "live-results.md").read_text()
    assert "port below 1024 |" not in doc and "A port below 1024 works where the system lets the user" in doc


@pytest.mark.parametrize("address", ["9464", "localhost:http", "127.0.0.1:70000", ""])
def test_a_metrics_address_must_be_host_and_port(address):
    with pytest.raises(UsageError, match="write HOST:PORT"):
        serve(address, MetricsSink().registry)


def test_an_unknown_metrics_host_is_a_clear_problem():
    with pytest.raises(EnvironmentProblem, match=r"unknown host 'no-such-host\.invalid'"):
        serve("no-such-host.invalid:0", MetricsSink().registry)


@pytest.mark.parametrize("url", ["ftp://x:1", "http://", "://"])
def test_a_pushgateway_url_must_be_http(url):
    with pytest.raises(UsageError, match="--pushgateway"):
        check_gateway_url(url)


def test_a_push_to_nowhere_warns_once_and_says_why_at_the_end():
    with socket.socket() as held:  # a port nobody listens on: bound, never listening
        held.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{held.getsockname()[1]}"
        warnings: list[str] = []
        sink = MetricsSink()
        sink.pusher = Pusher(url, sink.registry, "s", warn=warnings.append)
        sink(RunFinished(record=record("t/0")))
        error = sink.pusher.finish()
    assert error == f"cannot reach the pushgateway at {url}: Connection refused"
    assert 1 <= len(warnings) <= 2 and all(w.startswith(error) for w in warnings[:1])
    assert sink.pusher.failures == sink.pusher.pushes >= 1



SCENARIO = """\
version: 1
name: fake
tests:
  - id: a
    kind: guc
    source: ftp://127.0.0.1:1/dev/zero
    target: file:///dev/null
    options: {length: 3M}
    repeat: 2
"""


def test_run_with_a_metrics_port_in_use_is_refused_before_anything_runs(tmp_path, fake_guc):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        out = gftpwb("run", str(tmp_path / "s.yaml"), "--results", str(tmp_path / "r"),
                     "--metrics", f"127.0.0.1:{port}")
    assert out.returncode == 3, out.stderr
    assert out.stderr == (f"gftpwb: --metrics 127.0.0.1:{port}: cannot listen: the port is in use (another program "
                          "listens there); pick another or 0 for any; nothing was run\n")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(("option", "code"), [
    (["--metrics", "9464"], 2), (["--metrics", "127.0.0.1:{held}"], 3), (["--pushgateway", "ftp://x"], 2),
    (["--events-file", "{tmp}/no-such-dir/events.jsonl"], 2), (["--events-file", "{tmp}"], 2)])
def test_a_dry_run_refuses_what_the_run_would_refuse(tmp_path, fake_guc, option, code):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        given = [part.format(held=held.getsockname()[1], tmp=tmp_path) for part in option]
        dry = gftpwb("run", str(tmp_path / "s.yaml"), "--dry-run", *given)
        real = gftpwb("run", str(tmp_path / "s.yaml"), "--results", str(tmp_path / "r"), *given)
    assert (dry.returncode, real.returncode) == (code, code), dry.stderr + real.stderr
    assert dry.stderr == real.stderr and dry.stdout == ""
    assert not (tmp_path / "r").exists() and not (tmp_path / "no-such-dir").exists()


def test_a_dry_run_opens_the_endpoint_only_to_check_it(tmp_path, fake_guc):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = gftpwb("run", str(tmp_path / "s.yaml"), "--dry-run", "--metrics", f"127.0.0.1:{port}")
    assert out.returncode == 0 and out.stderr == "" and out.stdout.startswith("a/0: globus-url-copy")
    with socket.socket() as again:  # closed again: the port is free
        again.bind(("127.0.0.1", port))


def test_a_pushgateway_that_cannot_be_reached_loses_no_result(tmp_path, fake_guc):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{held.getsockname()[1]}"
        out = gftpwb("run", str(tmp_path / "s.yaml"), "--results", str(tmp_path / "r"), "--pushgateway", url)
        failed = gftpwb("run", str(tmp_path / "s.yaml"), "--results", str(tmp_path / "f"), "--pushgateway", url,
                        env={"FAKE_GUC_MODE": "fail"})
        report = gftpwb("report", str(tmp_path / "r"), "--pushgateway", url)
    assert out.returncode == 9 and "Traceback" not in out.stderr
    assert f"gftpwb: cannot reach the pushgateway at {url}: Connection refused; the run goes on" in out.stderr
    assert (f"gftpwb: warning: cannot reach the pushgateway at {url}: Connection refused: the figures of this run "
            "were not pushed; every result is in the results directory, and `gftpwb report DIR --pushgateway URL` "
            "pushes them") in out.stderr
    assert "2 passed of 2 planned" in out.stdout
    assert [json.loads(line)["status"] for line in (tmp_path / "r" / "results.jsonl").read_text().splitlines()] == [
        "passed", "passed"]
    assert failed.returncode == 1  # the runs' own outcome comes first
    assert report.returncode == 9 and "fake was not pushed" in report.stderr and "fake" in report.stdout


def test_report_openmetrics_of_several_directories_adds_their_runs_up(tmp_path, fake_guc):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    for name in ("one", "two"):
        assert gftpwb("run", str(tmp_path / "s.yaml"), "--results", str(tmp_path / name)).returncode == 0
    out = gftpwb("report", str(tmp_path / "one"), str(tmp_path / "two"), "--openmetrics", str(tmp_path / "m.prom"))
    assert out.returncode == 0, out.stderr
    text = (tmp_path / "m.prom").read_text()
    assert 'gftpwb_runs_total{case="000",host="local",scenario="fake",status="passed",test="a"} 4.0' in text
    bad = gftpwb("report", str(tmp_path / "one"), "--openmetrics", str(tmp_path / "no" / "m.prom"))
    assert bad.returncode == 2 and "cannot write the OpenMetrics figures" in bad.stderr
