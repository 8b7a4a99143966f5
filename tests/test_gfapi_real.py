"""gfapi end to end: the real worker against the real GlusterFS volume of the lab (libgfapi), and in
POSIX mode on a local directory. Never skipped: `make test` installs glusterfs-server and
libglusterfs-dev, and the lab fixture starts glusterd and the volume.

Several worker processes on this machine stand in for several hosts here (host names h1, h2 with
the local transport); the same runner drives SSH hosts once the SSH transport exists.
"""

import asyncio
import csv
import dataclasses
import io
import json
import os
import signal
import textwrap
import uuid
from pathlib import Path

import pytest
from support.clihelp import gftpwb
from support.gfapi_helpers import worker_pids
from support.results import records

from gftpwb.core.bus import EventBus
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.events import RunFinished, WorkerProgress
from gftpwb.core.plan import plan
from gftpwb.kinds.gfapi.csvfiles import result_csv
from gftpwb.kinds.gfapi.job import GfapiJob
from gftpwb.kinds.gfapi.run.runner import GfapiRunner
from gftpwb.shell.executor import Executor

pytestmark = [pytest.mark.real, pytest.mark.slow]


def write_scenario(tmp_path: Path, body: str, name: str = "gf") -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"version: 1\nname: {name}\ntests:\n" + textwrap.dedent(body))
    return str(path)


def volume_block(gluster) -> str:
    return f"{{name: {gluster.volume}, server: {gluster.address}}}"


def brick_files(gluster, directory: str) -> dict[str, int]:
    root = Path(gluster.brick) / directory.lstrip("/")
    return {str(p.relative_to(root)): p.stat().st_size for p in sorted(root.rglob("f*")) if p.is_file()}


def test_seq_wr_then_seq_rd_then_unlink_through_libgfapi(tmp_path, gluster):
    directory = f"/gftpwb-test-{uuid.uuid4().hex[:8]}"
    common = f"""\
        kind: gfapi
        volume: {volume_block(gluster)}
        directory: {directory}
        processes: 2
        threads: 4
        files: 40
        file_size: 64K
        record_size: 16K
        timeout: 2m
    """
    body = "".join(f"  - id: {tid}\n    workload: {wl}\n" + textwrap.indent(textwrap.dedent(common), "    ")
                   for tid, wl in (("write", "seq-wr"), ("read", "seq-rd"), ("clean", "unlink")))
    scenario = write_scenario(tmp_path, body)
    results = tmp_path / "results"
    out = gftpwb("run", scenario, "--results", str(results), "--only", "write,read", "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    # What libgfapi wrote is on the brick: 2 processes x 4 threads x 40 files of 64 KiB.
    on_brick = brick_files(gluster, directory)
    assert len(on_brick) == 320 and set(on_brick.values()) == {65536}
    assert "local/t000/f0000000" in on_brick and "local/t007/f0000039" in on_brick
    out = gftpwb("run", scenario, "--results", str(tmp_path / "cleaned"), "--only", "clean", "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    assert brick_files(gluster, directory) == {}

    (write, read), (clean,) = records(results), records(tmp_path / "cleaned")
    for record, nbytes in ((write, 320 * 65536), (read, 320 * 65536), (clean, 0)):
        g = record["details"]["gfapi"]
        assert record["status"] == "passed" and record["kind"] == "gfapi" and record["host"] == "local"
        assert g["mode"] == "gfapi" and g["cluster"]["files"] == 320 and g["cluster"]["bytes"] == nbytes
        assert len(g["threads"]) == 8 and {t["status"] for t in g["threads"]} == {"ok"}
        assert g["cluster"]["last_done"]["files_s"] > 0 and g["start_skew_ms"] is not None
        assert 0 < g["cluster"]["first_done"]["pct_done"] <= 100
    assert set(write["details"]["gfapi"]["cluster"]["latency"]) == {"open", "write", "close", "file"}
    assert set(read["details"]["gfapi"]["cluster"]["latency"]) == {"open", "read", "close", "file"}
    assert set(clean["details"]["gfapi"]["cluster"]["latency"]) == {"unlink", "file"}
    assert write["details"]["gfapi"]["cluster"]["ios"] == 320 * 4
    # the files each thread found before its start, as the worker saw them; unlink moves no data: files/s only
    assert [r["details"]["gfapi"]["found_file_sizes"] for r in (write, read, clean)] == [[], [65536], [65536]]
    last = clean["details"]["gfapi"]["cluster"]["last_done"]
    assert last["mib_s"] is None and last["iops"] is None and last["files_s"] > 0
    assert "unlink 1x2x4 40 files of 64K" in out.stdout and clean["rate_incl_setup_mib_s"] is None
    run_dir = results / "gf_#000_000"
    rows = (run_dir / "result.csv").read_text().splitlines()
    assert rows[0] == "elapsed-sec MBps Files-per-sec I/O-rq-per-sec" and len(rows) == 3  # one row per process
    threads = list(csv.DictReader(io.StringIO((run_dir / "threads.csv").read_text())))
    assert [(t["host"], t["process"], t["thread"]) for t in threads] == [("local", str(i // 4), str(i))
                                                                         for i in range(8)]
    assert "gfapi results" in out.stdout and "first done" in out.stdout


def run_specs(specs, runner, subscriber=None, tmp_path=Path("/tmp")):
    bus, events = EventBus(), []
    bus.subscribe(events.append)
    executor = Executor(bus, runners={"gfapi": runner})
    if subscriber is not None:
        bus.subscribe(lambda event: subscriber(executor, event))
    summary = asyncio.run(executor.run(specs, results_dir=str(tmp_path), scenario="gf"))
    return summary, events, [e.record for e in events if isinstance(e, RunFinished)]


def specs_for(body: str, hosts=None, timeout=None):
    scenario = load_scenario_text("version: 1\nname: gf\ntests:\n" + textwrap.dedent(body), "gf.yaml")
    specs = plan(scenario)
    if hosts:
        specs = [dataclasses.replace(s, params=GfapiJob.from_params({**s.params, "hosts": hosts}).to_params(),
                                     host=",".join(hosts)) for s in specs]  # as the planner does
    if timeout:
        specs = [dataclasses.replace(s, timeout_s=timeout) for s in specs]
    return specs


def test_two_hosts_x_4_threads_seq_wr_seq_rd_unlink_on_their_own_clocks(tmp_path, gluster):
    # The shape of the multi-host test: two hosts x 4 threads. Until the SSH transport exists the two
    # hosts are worker processes on this machine under their own names (local transport).
    directory = f"/gftpwb-test-{uuid.uuid4().hex[:8]}"
    common = f"""\
        kind: gfapi
        volume: {volume_block(gluster)}
        directory: {directory}
        threads: 4
        files: 20
        file_size: 16K
        start_lead: 200ms
    """
    body = "".join(f"  - id: {tid}\n    workload: {wl}\n" + textwrap.indent(textwrap.dedent(common), "    ")
                   for tid, wl in (("write", "seq-wr"), ("read", "seq-rd"), ("clean", "unlink")))
    specs = specs_for(body, hosts=["h1", "h2"])
    # h2's clock runs 0.3 s ahead of the controller's: it must start at target + 0.3 s of its own clock.
    after_write: dict[str, int] = {}

    def look_at_the_brick(executor, event):
        if isinstance(event, RunFinished) and event.record.test_id == "write":
            after_write.update(brick_files(gluster, directory))

    summary, events, records = run_specs(specs, GfapiRunner(clock_offsets={"h2": 0.3}), look_at_the_brick)
    assert summary.all_passed, [r.error for r in records]
    assert len(after_write) == 2 * 4 * 20 and set(after_write.values()) == {16384}
    assert {"h1/t000/f0000000", "h2/t003/f0000019"} <= set(after_write)
    assert brick_files(gluster, directory) == {}
    for record, nbytes in zip(records, (16384, 16384, 0), strict=True):
        g = record.details["gfapi"]
        assert record.host == "h1,h2" and set(g["hosts"]) == {"h1", "h2"}
        assert [g["hosts"][h]["files"] for h in ("h1", "h2")] == [80, 80]
        assert g["cluster"]["bytes"] == 160 * nbytes and len(g["threads"]) == 8
        target = g["start_target_unix_ns"]
        for row in g["threads"]:
            offset = 300_000_000 if row["host"] == "h2" else 0
            assert row["host_start_unix_ns"] >= target + offset
            assert row["start_unix_ns"] == row["host_start_unix_ns"] - offset
        assert g["clock_offsets_s"] == {"h1": 0.0, "h2": 0.3}
    states: dict[tuple[str, str, int], list[str]] = {}
    for e in events:
        if isinstance(e, WorkerProgress):
            seq = states.setdefault((e.run_id, e.host, e.thread), [])
            if not seq or seq[-1] != e.state:
                seq.append(e.state)
    assert len(states) == 3 * 8
    assert all(seq[0] == "preparing" and "ready" in seq and seq[-1] == "done" for seq in states.values())


def test_a_missing_volume_is_a_clear_failure(tmp_path, gluster):
    scenario = write_scenario(tmp_path, f"""\
      - id: w
        kind: gfapi
        volume: {{name: nosuch-{uuid.uuid4().hex[:6]}, server: {gluster.address}}}
        threads: 2
    """)
    results = tmp_path / "results"
    out = gftpwb("run", scenario, "--results", str(results), "--progress", "never")
    assert out.returncode == 1
    (record,) = records(results)
    assert record["status"] == "failed"
    assert record["error"].startswith("local p0: cannot connect to volume 'nosuch-")
    assert "glfs_init failed" in record["error"] and "does the volume exist and is it started?" in record["error"]
    assert "failed to get the volume file" in record["output"]  # libgfapi's own log, kept
    assert "FAIL local" not in out.stdout and "cannot connect to volume" in out.stdout
    assert {t["status"] for t in record["details"]["gfapi"]["threads"]} == {"not-started"}
    # no process finished: its directory says what each thread did, and holds no result.csv (a header
    # alone reads as a run whose results are there)
    assert sorted(p.name for p in (results / "gf_#000_000").iterdir()) == ["hosts.csv", "threads.csv"]


def test_a_worker_killed_mid_run_fails_its_threads_and_keeps_the_others(tmp_path, gluster):
    directory = f"/gftpwb-test-{uuid.uuid4().hex[:8]}"
    specs = specs_for(f"""\
      - id: w
        kind: gfapi
        volume: {volume_block(gluster)}
        directory: {directory}
        workload: seq-wr
        processes: 2
        threads: 2
        files: 3000
        file_size: 4K
    """)
    killed: list[int] = []

    def kill_process_1(executor, event):
        if isinstance(event, WorkerProgress) and event.state == "running" and event.thread >= 2 and not killed:
            for pid in _pids_of_process_1(directory):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

    summary, _events, (record,) = run_specs(specs, GfapiRunner(), kill_process_1)
    assert killed and not summary.all_passed and record.status == "failed"
    g = record.details["gfapi"]
    by_thread = {t["thread"]: t for t in g["threads"]}
    assert [by_thread[i]["status"] for i in (0, 1)] == ["ok", "ok"]
    assert [by_thread[i]["files"] for i in (0, 1)] == [3000, 3000]
    assert by_thread[2]["status"] in ("failed", "not-started") and by_thread[3]["status"] in ("failed", "not-started")
    assert "local p1: worker (pid" in record.error and "was killed by SIGKILL" in record.error
    assert result_csv(g).count("\n") == 2  # header and process 0 only
    assert worker_pids(f"{directory}/local") == []


def _pids_of_process_1(directory: str) -> list[int]:
    return [pid for pid in worker_pids(f"{directory}/local") if _argv_has(pid, ["--thread-base", "2"])]


def _argv_has(pid: int, pair: list[str]) -> bool:
    with open(f"/proc/{pid}/cmdline", "rb") as handle:
        argv = handle.read().decode().split("\0")
    return any(argv[i:i + 2] == pair for i in range(len(argv) - 1))


def test_timeout_stops_the_workers_and_keeps_partial_results(tmp_path):
    data = tmp_path / "data"
    specs = specs_for(f"""\
      - id: w
        kind: gfapi
        directory: {data}
        workload: seq-wr
        threads: 2
        files: 10000000
        files_per_dir: 10000000
        file_size: 4K
    """, timeout=2.0)
    _summary, _events, (record,) = run_specs(specs, GfapiRunner())
    assert record.status == "timeout" and record.error.startswith("timed out after 2s; the workers were stopped")
    threads = record.details["gfapi"]["threads"]
    assert {t["status"] for t in threads} == {"stopped"} and all(t["files"] > 0 for t in threads)
    assert record.bytes == sum(t["bytes"] for t in threads) > 0
    assert worker_pids(str(data)) == []


def test_ctrl_c_records_the_run_as_interrupted_with_what_was_done(tmp_path):
    data = tmp_path / "data"
    specs = specs_for(f"""\
      - id: w
        kind: gfapi
        directory: {data}
        workload: seq-wr
        threads: 2
        files: 10000000
        files_per_dir: 10000000
        file_size: 4K
    """)

    def stop_when_busy(executor, event):  # Ctrl-C, pressed twice: the second press changes nothing
        if isinstance(event, WorkerProgress) and event.files > 100 and not executor.stopping:
            executor.stop()
            executor.stop()

    summary, _events, (record,) = run_specs(specs, GfapiRunner(), stop_when_busy)
    assert summary.interrupted and record.status == "interrupted"
    assert record.details["gfapi"]["cluster"]["files"] > 100
    assert worker_pids(str(data)) == []


def test_posix_mode_on_a_local_directory_through_the_cli(tmp_path):
    data = tmp_path / "data"
    common = f"""\
        kind: gfapi
        directory: {data}
        processes: 2
        threads: 2
        files: 300
        file_size: 8K
        record_size: 4K
        files_per_dir: 50
    """
    body = "".join(f"  - id: {tid}\n    workload: {wl}\n" + textwrap.indent(textwrap.dedent(common), "    ")
                   for tid, wl in (("write", "seq-wr"), ("read", "seq-rd"), ("mix", "rw-mix"), ("clean", "unlink")))
    results = tmp_path / "results"
    out = gftpwb("run", write_scenario(tmp_path, body, "px"), "--results", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    recs = records(results)
    assert [r["status"] for r in recs] == ["passed"] * 4
    assert [r["details"]["gfapi"]["cluster"]["files"] for r in recs] == [1200] * 4
    assert recs[0]["details"]["gfapi"]["mode"] == "posix"
    assert list(data.rglob("f*")) == []
    assert sorted(p.name for p in (results / "px_#001_000").iterdir()) == ["hosts.csv", "result.csv", "threads.csv"]
    exported = gftpwb("export", "taglogs", str(results), "-o", str(tmp_path / "logs"))
    assert exported.returncode == 0 and exported.stdout.startswith("0 tag log(s) written")  # guc's format only


def test_many_workers_create_one_deep_tree_at_once(tmp_path, gluster):
    # Threads and processes race to create the same parents; GlusterFS can answer EEXIST to one mkdir
    # before another's is complete, and the workers must ride that out.
    directory = f"/gftpwb-test-{uuid.uuid4().hex[:8]}/deep/er/still"
    specs = specs_for(f"""\
      - id: w
        kind: gfapi
        volume: {volume_block(gluster)}
        directory: {directory}
        workload: seq-wr
        processes: 4
        threads: 4
        files: 30
        file_size: 1K
        files_per_dir: 4
        dirs_per_dir: 3
    """)
    summary, _events, (record,) = run_specs(specs, GfapiRunner())
    assert summary.all_passed, record.error
    on_brick = brick_files(gluster, directory)
    assert len(on_brick) == 16 * 30 and "local/t015/d2/d1/f0000029" in on_brick  # leaf 7 of 8: two levels


def test_each_figure_says_what_it_spans_and_the_live_line_ends_on_the_result(tmp_path):
    # A run of a few hundred milliseconds: the controller's clock since the starting gun also counts the
    # time the last reports take to arrive, so the live average alone would end below the result.
    data = tmp_path / "data"
    body = f"""\
      - id: write
        kind: gfapi
        directory: {data}
        workload: seq-wr
        processes: 2
        threads: 2
        files: 200
        file_size: 16K
      - id: clean
        kind: gfapi
        directory: {data}
        workload: unlink
        processes: 2
        threads: 2
        files: 200
    """
    results = tmp_path / "results"
    out = gftpwb("run", write_scenario(tmp_path, body, "sp"), "--results", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    for record in records(results):
        g = record["details"]["gfapi"]
        last = g["cluster"]["last_done"]
        live = [line for line in lines if line.startswith(f"    {record['run_id']}: ")]
        result = next(line for line in lines if line.startswith(f"ok   {record['run_id']}  "))
        # the last live sample is the result's own window and says so; the result names its window too
        assert live[-1].endswith(f"(last done: first thread start to last thread end)  - MiB/s inst  "
                                 f"({last['seconds']:.3f}s)"), live[-1]
        assert f"(last done: first thread start to last thread end, {last['seconds']:.3f}s)" in result
        assert all("(since the starting gun)" in line for line in live[:-1])
        if record["test_id"] == "write":
            assert f"{last['mib_s']:.2f} MiB/s avg" in live[-1] and f"{last['mib_s']:.1f} MiB/s," in result
        else:  # an unlink moves no data: no MiB/s, live or in the result
            assert " - MiB/s avg" in live[-1] and "MiB/s" not in result.split("(last done")[0]
        # whether the run is long enough for its skew is judged by the stated rule, and said where it is
        verdict = g["timing"]["last_done"]
        assert verdict["too_short"] == (verdict["share_pct"] > g["timing"]["limit_pct"])
        assert ("too short to publish:" in result) == verdict["too_short"]  # the last done's own words
        first = g["timing"]["first_done"]
        assert ("first done too short to publish" in result) == (first["too_short"] and not verdict["too_short"])
    report = gftpwb("report", str(results), "--json")
    assert report.returncode == 0, report.stderr
    runs = [run for d in json.loads(report.stdout)["directories"] for case in d["cases"] for run in case["runs"]]
    assert {run["facts"]["too_short"] for run in runs} <= {True, False} and len(runs) == 2
