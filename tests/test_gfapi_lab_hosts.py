"""gfapi on real hosts: two network-namespace hosts of the lab (own sshd, reached over SSH) x 4 threads
against the lab's real GlusterFS volume through libgfapi, seq-wr then seq-rd then unlink; a host
that drops out mid-run; a timeout; and the scenario path (hosts:, on:) through the command line."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path

import pytest
from support.labhosts import hosts_yaml, inventory, kill, netns_of, processes_in, sshd_pids
from support.polling import eventually

from gftpwb.core.bus import EventBus
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.events import RunFinished, WorkerProgress
from gftpwb.core.plan import plan
from gftpwb.kinds.gfapi.report import partial_headline, tables
from gftpwb.kinds.gfapi.run.runner import GfapiRunner
from gftpwb.shell.executor import Executor
from gftpwb.shell.transports.hosts import HostTransports

pytestmark = [pytest.mark.real, pytest.mark.slow]
GFTPWB = [sys.executable, "-m", "gftpwb"]


def brick_files(gluster, directory: str) -> dict[str, int]:
    root = Path(gluster.brick) / directory.lstrip("/")
    return {str(p.relative_to(root)): p.stat().st_size for p in sorted(root.rglob("f*")) if p.is_file()}


def workers_in(netns: str) -> list[tuple[int, str]]:
    return [(pid, cmd) for pid, cmd in processes_in(netns) if "gfapi-worker" in cmd]


def gfapi_tests(gluster, directory: str, workloads, **extra: object) -> str:
    lines = []
    for tid, workload in workloads:
        lines.append(f"  - id: {tid}\n    kind: gfapi\n    on: [h1, h2]\n    workload: {workload}\n"
                     f"    volume: {{name: {gluster.volume}, server: {gluster.address}}}\n"
                     f"    directory: {directory}\n    threads: 4\n    files: 30\n    file_size: 16K\n"
                     + "".join(f"    {k}: {v}\n" for k, v in extra.items()))
    return "tests:\n" + "".join(lines)


async def run_on_hosts(netlab, body: str, subscriber=None, **overrides):
    scenario = load_scenario_text("version: 1\nname: gl\n" + hosts_yaml(netlab) + body, "gl.yaml")
    transports = HostTransports(list(inventory(netlab, **overrides).values()))
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    executor = Executor(bus, transport_for=transports, runners={"gfapi": GfapiRunner()})
    if subscriber is not None:
        bus.subscribe(lambda event: subscriber(executor, event))
    try:
        await executor.run(plan(scenario), results_dir="-", scenario="gl")
    finally:
        await transports.close()
    return events, [e.record for e in events if isinstance(e, RunFinished)]


def test_two_namespace_hosts_x_4_threads_seq_wr_seq_rd_unlink(netlab, gluster, tmp_path, monkeypatch):
    # No shared worker directory: each host is asked for its $HOME (here a temporary one set through
    # the inventory's env), and the worker is uploaded and built there over SSH.
    monkeypatch.delenv("GFTPWB_WORKER_DIR")
    home = tmp_path / "home"
    home.mkdir()
    env = {"env": (("HOME", str(home)),)}
    directory = f"/gftpwb-test-{uuid.uuid4().hex[:8]}"
    seen_in: dict[str, list[str]] = {}
    after_write: dict[str, int] = {}

    def watch(executor, event):
        # Sampled on every worker event of a host until its worker is seen: under load a short
        # workload can end before the first "running" event reaches us.
        if isinstance(event, WorkerProgress) and not seen_in.get(event.host):
            seen_in[event.host] = [cmd for _, cmd in workers_in(netns_of(netlab, event.host))]
        if isinstance(event, RunFinished) and event.record.test_id == "write":
            after_write.update(brick_files(gluster, directory))

    body = gfapi_tests(gluster, directory, (("write", "seq-wr"), ("read", "seq-rd"), ("clean", "unlink")))
    _events, records = asyncio.run(run_on_hosts(netlab, body, watch, h1=env, h2=env))
    assert [(r.run_id, r.status) for r in records] == [("write/0", "passed"), ("read/0", "passed"),
                                                       ("clean/0", "passed")], [r.error for r in records]
    # The workers ran inside the namespaces, from the binary built in the hosts' own cache.
    for host in ("h1", "h2"):
        assert seen_in[host] and all(f"{home}/.cache/gftpwb/workers/" in cmd for cmd in seen_in[host])
        assert any(f"--dir {directory}/{host}" in cmd for cmd in seen_in[host])
    assert len(after_write) == 2 * 4 * 30 and set(after_write.values()) == {16384}
    assert {"h1/t000/f0000000", "h2/t003/f0000029"} <= set(after_write)
    assert brick_files(gluster, directory) == {}
    for record, nbytes in zip(records, (16384, 16384, 0), strict=True):
        g = record.details["gfapi"]
        assert record.host == "h1,h2" and sorted(g["hosts"]) == ["h1", "h2"]
        assert [g["hosts"][h]["files"] for h in ("h1", "h2")] == [120, 120]
        assert g["cluster"]["bytes"] == 240 * nbytes and g["start_skew_ms"] is not None
        for host in ("h1", "h2"):  # measured over SSH for this run, NTP-style
            clock = g["clocks"][host]
            assert clock["source"] == "measured" and clock["uncertainty_ms"] is not None
            assert abs(clock["offset_s"]) < 0.5  # namespaces share this machine's clock
        target = g["start_target_unix_ns"]
        assert all(t["host_start_unix_ns"] >= target + round(g["clock_offsets_s"][t["host"]] * 1e9)
                   for t in g["threads"])
    assert workers_in(netns_of(netlab, "h1")) == [] and workers_in(netns_of(netlab, "h2")) == []


def test_a_host_that_drops_out_fails_only_its_threads(netlab, gluster):
    directory = f"/gftpwb-test-{uuid.uuid4().hex[:8]}"
    h2_ns = netns_of(netlab, "h2")
    dropped: list[int] = []

    def drop_h2(executor, event):
        if isinstance(event, WorkerProgress) and event.host == "h2" and event.state == "running" and not dropped:
            sessions = sshd_pids(netlab, "h2")[1]
            kill(sessions)  # the per-connection sshd: h2's connection is gone
            dropped.extend(sessions)

    body = gfapi_tests(gluster, directory, (("w", "seq-wr"),)).replace("files: 30", "files: 3000")
    _events, (record,) = asyncio.run(run_on_hosts(netlab, body, drop_h2))
    assert dropped and record.status == "failed"
    g = record.details["gfapi"]
    h1 = [t for t in g["threads"] if t["host"] == "h1"]
    h2 = [t for t in g["threads"] if t["host"] == "h2"]
    assert {t["status"] for t in h1} == {"ok"} and sum(t["files"] for t in h1) == 4 * 3000
    assert {t["status"] for t in h2} <= {"failed", "not-started"}
    assert "h2 p0: " in record.error and ("lost" in record.error or "connection" in record.error), record.error
    # h1's figures are kept as a partial result of their own (its threads, its window), named as such in
    # the record, the report's table and the console's line
    part = g["partial"]
    assert part["spans"] == "4 of 8 threads: h1" and part["hosts_failed"] == ["h2"]
    assert part["failed_threads"] == {"h2": "0-3"} and part["survivors"]["files"] == 4 * 3000
    assert part["survivors"]["last_done"]["files_s"] > 0 and part["survivors"]["threads"] == 4
    (table,) = tables([record])
    survivors = dict(zip([name for name, _ in table.columns], table.rows[1][0], strict=True))
    assert survivors["workload hosts x procs x threads files"] == "partial: 4 of 8 threads: h1"
    assert survivors["files/s"] not in ("", "-") and "failed: h2 threads 0-3" in survivors["notes"]
    assert partial_headline(record).startswith("partial result, 4 of 8 threads: h1: 12000 files, ")
    # The wrapper's watchdog on h2 noticed the session was gone and killed the worker.
    eventually(lambda: workers_in(h2_ns) == [], "the watchdog on h2 killing the worker", timeout=10,
               detail=lambda: workers_in(h2_ns))


def test_timeout_leaves_no_worker_on_the_hosts(netlab, gluster):
    directory = f"/gftpwb-test-{uuid.uuid4().hex[:8]}"
    body = gfapi_tests(gluster, directory, (("w", "seq-wr"),), timeout="3s").replace("files: 30", "files: 1000000")
    body = body.replace("    threads: 4\n", "    threads: 4\n    files_per_dir: 1000000\n")
    _events, (record,) = asyncio.run(run_on_hosts(netlab, body))
    assert record.status == "timeout"
    threads = record.details["gfapi"]["threads"]
    assert {t["status"] for t in threads} == {"stopped"} and all(t["files"] > 0 for t in threads)
    for host in ("h1", "h2"):
        eventually(lambda host=host: workers_in(netns_of(netlab, host)) == [], f"no worker left on {host}", timeout=10,
                   detail=lambda host=host: workers_in(netns_of(netlab, host)))


def test_hosts_and_on_through_the_command_line(netlab, gluster, tmp_path):
    directory = f"/gftpwb-test-{uuid.uuid4().hex[:8]}"
    path = tmp_path / "gl.yaml"
    path.write_text("version: 1\nname: gl\n" + hosts_yaml(netlab) + gfapi_tests(
        gluster, directory, (("write", "seq-wr"), ("clean", "unlink"))))
    dry = subprocess.run([*GFTPWB, "run", str(path), "--dry-run"], capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0 and dry.stdout.startswith("write/0: gfapi-worker --gfapi --volume ")
    results = tmp_path / "results"
    out = subprocess.run([*GFTPWB, "run", str(path), "--results", str(results), "--progress", "never"],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    assert [(r["run_id"], r["host"], r["status"]) for r in records] == [("write/0", "h1,h2", "passed"),
                                                                        ("clean/0", "h1,h2", "passed")]
    rows = (results / "gl_#000_000" / "result.csv").read_text().splitlines()
    assert len(rows) == 3  # header, one process per host
    hosts = (results / "gl_#000_000" / "hosts.csv").read_text()
    assert hosts.splitlines()[1].startswith("host,h1,4,4,120,") and hosts.splitlines()[3].startswith("cluster,")
    assert textwrap.dedent("ok   write/0") in out.stdout
