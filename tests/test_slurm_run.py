"""`gftpwb run` of scenarios on the lab's real Slurm: guc, the gfapi worker, iperf3 and the monitors'
sampler on node slots; Ctrl-C, a timeout and kill -9 leave no task and no job; --resume; an allocation
that cannot be had is exit 10 with nothing made."""

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.clihelp import gftpwb, popen
from support.polling import eventually
from support.slurm import alive, jobs, tasks_of

from gftpwb.shell.lab.slurm import SlurmLab

pytestmark = [pytest.mark.real, pytest.mark.slow]


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def head(lab: SlurmLab, nodes: int, policy: str = "cancel", extra: str = "") -> str:
    """The scenario's start; ``extra``: more keys of the slurm: block, indented."""
    return f"""\
version: 1
name: onslurm
slurm:
  nodes: {nodes}
  on_failure: {policy}
  conf: {lab.conf}
{extra}"""


def records(directory: Path) -> list[dict]:
    return [json.loads(line) for line in (directory / "results.jsonl").read_text().splitlines()]


def test_guc_iperf3_and_monitors_on_every_node(slurm_lab, gridftp, tmp_path):
    text = head(slurm_lab, 3) + f"""\
monitors:
  - id: cpu
    type: cpu
    on: slurm
    interval: 0.5s
tests:
  - id: copy
    kind: guc
    on: slurm
    repeat: 2
    source: {gridftp.url}/dev/zero
    target: file:///dev/null
    options: {{length: 4M}}
  - id: net
    kind: iperf3
    client: node1
    server: node2
    server_address: 127.0.0.1
    duration: 1s
"""
    out = gftpwb("run", write(tmp_path, text), "--results", str(tmp_path / "r"), timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    # which 3 of the lab's 4 nodes Slurm grants is its choice; each slot has a node of its own
    granted = re.search(r"node1=(n\d), node2=(n\d), node3=(n\d)", out.stdout)
    assert "info: slurm: job" in out.stdout and granted and len(set(granted.groups())) == 3, out.stdout
    found = records(tmp_path / "r")
    copies = [r for r in found if r["kind"] == "guc"]
    assert sorted(r["run_id"] for r in copies) == sorted(f"copy/{k}@node{i}" for i in (1, 2, 3) for k in (0, 1))
    assert all(r["status"] == "passed" and r["bytes"] == 4 * 2**20 for r in copies)
    net = [r for r in found if r["kind"] == "iperf3"]
    assert [r["status"] for r in net] == ["passed"] and net[0]["host"] == "node1"
    meta = json.loads((tmp_path / "r" / "meta.json").read_text())
    assert meta["environment"]["slurm"]["nodes"] == {"node1": "n1", "node2": "n2", "node3": "n3"}
    assert set(meta["environment"]["hosts"]) >= {"node1", "node2", "node3"}
    samples = [json.loads(line) for line in (tmp_path / "r" / "monitors.jsonl").read_text().splitlines()]
    assert {s["host"] for s in samples if s.get("monitor") == "cpu"} == {"node1", "node2", "node3"}
    assert (tmp_path / "r" / "onslurm_#000_000@node2.log").exists()
    assert jobs(slurm_lab) == ""
    report = gftpwb("report", str(tmp_path / "r"))
    job = meta["environment"]["slurm"]["job"]
    assert f"slurm job {job}: node1=n1, node2=n2, node3=n3 (on_failure cancel)\n" in report.stdout
    assert all(f"│ cpu     │ node{i} │ busy_pct" in report.stdout for i in (1, 2, 3))  # per node, as per host


def test_gfapi_workers_on_four_nodes_start_together(slurm_lab, tmp_path):
    text = head(slurm_lab, 4) + f"""\
tests:
  - id: small
    kind: gfapi
    on: slurm
    processes: 2
    threads: 2
    directory: {tmp_path / "data"}
    files: 40
    file_size: 16K
    workload: seq-wr
"""
    out = gftpwb("run", write(tmp_path, text), "--results", str(tmp_path / "r"), timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    (record,) = records(tmp_path / "r")
    gfapi = record["details"]["gfapi"]
    assert record["status"] == "passed"
    assert sorted(gfapi["hosts"]) == ["node1", "node2", "node3", "node4"]
    assert gfapi["cluster"]["files"] == 4 * 2 * 2 * 40
    assert {h: c["source"] for h, c in gfapi["clocks"].items()} == {f"node{i}": "measured" for i in range(1, 5)}
    assert gfapi["start_skew_ms"] is not None and gfapi["start_target_unix_ns"]


def interrupt_when_started(proc: subprocess.Popen, pattern: str, sig: int = signal.SIGINT) -> tuple[str, str]:
    eventually(lambda: len(alive(pattern)) > 0 or proc.poll() is not None, f"a process matching {pattern}",
               timeout=120)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(sig)
    return proc.communicate(timeout=120)


def long_guc(lab: SlurmLab, gridftp, marker: int, nodes: int = 2, timeout: str = "") -> str:
    return head(lab, nodes) + f"""\
tests:
  - id: long
    kind: guc
    on: slurm
    source: {gridftp.url}/dev/zero
    target: file:///dev/null
    options: {{length: {marker}, fast: true}}
{f"    timeout: {timeout}" if timeout else ""}
"""


def test_ctrl_c_stops_every_task_and_releases_the_job(slurm_lab, gridftp, tmp_path):
    marker = 10**12 + os.getpid()  # guc's -len: finds this test's transfers among all processes
    proc = popen("run", write(tmp_path, long_guc(slurm_lab, gridftp, marker)), "--results", str(tmp_path / "r"))
    out, err = interrupt_when_started(proc, f"globus-url-copy.*-len {marker}")
    assert proc.returncode == 130, out + err
    assert {r["status"] for r in records(tmp_path / "r")} == {"interrupted"}
    eventually(lambda: alive(f"-len {marker}") == [], "the transfers to end")
    eventually(lambda: jobs(slurm_lab) == "", "the job to be released")
    eventually(lambda: tasks_of(slurm_lab) == [], "every task to end")


def test_a_timeout_stops_the_tasks_of_its_run(slurm_lab, gridftp, tmp_path):
    marker = 2 * 10**12 + os.getpid()
    out = gftpwb("run", write(tmp_path, long_guc(slurm_lab, gridftp, marker, timeout="3s")), "--results",
                 str(tmp_path / "r"), timeout=300)
    assert out.returncode == 1, out.stdout + out.stderr
    assert [r["status"] for r in records(tmp_path / "r")] == ["timeout", "timeout"]
    assert alive(f"-len {marker}") == []
    assert jobs(slurm_lab) == ""
    eventually(lambda: tasks_of(slurm_lab) == [], "every task to end")


def test_kill_9_of_gftpwb_leaves_no_task_and_no_job(slurm_lab, gridftp, tmp_path):
    marker = 3 * 10**12 + os.getpid()
    proc = popen("run", write(tmp_path, long_guc(slurm_lab, gridftp, marker)), "--results", str(tmp_path / "r"))
    interrupt_when_started(proc, f"globus-url-copy.*-len {marker}", signal.SIGKILL)
    eventually(lambda: alive(f"-len {marker}") == [], "the transfers to end")  # their wrappers saw gftpwb go
    eventually(lambda: jobs(slurm_lab) == "", "the reaper to cancel the job gftpwb had asked for")
    eventually(lambda: tasks_of(slurm_lab) == [], "every task to end")


def test_resume_runs_what_an_interrupted_run_left(slurm_lab, gridftp, tmp_path):
    gate = tmp_path / "go"
    pause = f"299.{os.getpid()}"  # how long the gate waits: finds this test's waiting pre commands
    text = head(slurm_lab, 2) + f"""\
tests:
  - id: first
    kind: guc
    on: slurm
    source: {gridftp.url}/dev/zero
    target: file:///dev/null
    options: {{length: 1M}}
  - id: second
    kind: guc
    on: slurm
    source: {gridftp.url}/dev/zero
    target: file:///dev/null
    options: {{length: 1M}}
    pre: {{run: "test -e {gate} || exec sleep {pause}", shell: true}}
"""
    path = write(tmp_path, text)
    proc = popen("run", path, "--results", str(tmp_path / "r"))
    out, err = interrupt_when_started(proc, f"sleep {pause}")
    assert proc.returncode == 130, out + err
    before = {r["run_id"]: r["status"] for r in records(tmp_path / "r")}
    assert before == {"first/0@node1": "passed", "first/0@node2": "passed", "second/0@node1": "interrupted",
                      "second/0@node2": "interrupted"}
    gate.write_text("")
    again = gftpwb("run", path, "--resume", str(tmp_path / "r"), timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    after = [r for r in records(tmp_path / "r") if r["status"] == "passed"]
    assert sorted(r["run_id"] for r in after) == ["first/0@node1", "first/0@node2", "second/0@node1",
                                                  "second/0@node2"]
    assert jobs(slurm_lab) == ""


def test_an_allocation_that_cannot_be_had_is_exit_10_before_anything_is_made(slurm_lab, gridftp, tmp_path):
    text = long_guc(slurm_lab, gridftp, 1, nodes=9)
    out = gftpwb("run", write(tmp_path, text), "--results", str(tmp_path / "r"))
    assert out.returncode == 10
    assert out.stderr == ("gftpwb: no Slurm allocation for the scenario: the scenario needs 9 nodes, and partition "
                          "lab has 4; nothing was run\n")
    assert not (tmp_path / "r").exists()
    dry = gftpwb("run", write(tmp_path, text), "--dry-run")
    assert dry.returncode == 0 and dry.stdout.startswith("slurm: 9 node(s); the enclosing allocation, else a new one; "
                                                         "on failure: cancel; slots node1..node9\n")


def test_libgfapi_workers_built_on_every_node(slurm_lab, gluster, tmp_path):
    """libgfapi against the lab's GlusterFS volume from two nodes, the worker built per node (build: per_node;
    the POSIX test above builds once for all nodes)."""
    text = head(slurm_lab, 2, extra="  build: per_node\n") + f"""\
tests:
  - id: gf
    kind: gfapi
    on: slurm
    volume: {{name: {gluster.volume}, server: {gluster.address}}}
    threads: 2
    files: 20
    file_size: 16K
    workload: seq-wr
    timeout: 5m
"""
    out = gftpwb("run", write(tmp_path, text), "--results", str(tmp_path / "r"),
                 env={"GFTPWB_WORKER_DIR": str(tmp_path / "workers")}, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    (record,) = records(tmp_path / "r")
    gfapi = record["details"]["gfapi"]
    assert gfapi["mode"] == "gfapi" and sorted(gfapi["hosts"]) == ["node1", "node2"]
    assert gfapi["cluster"]["files"] == 2 * 2 * 20
    assert {p["capability"] for p in gfapi["processes"]} == {"gfapi"}


def quick_guc(lab: SlurmLab, gridftp, nodes: int) -> str:
    return head(lab, nodes) + f"""\
tests:
  - id: copy
    kind: guc
    on: slurm
    source: {gridftp.url}/dev/zero
    target: file:///dev/null
    options: {{length: 1M}}
"""


def test_inside_salloc_the_enclosing_allocation_is_used(slurm_lab, gridftp, tmp_path):
    path = write(tmp_path, quick_guc(slurm_lab, gridftp, 2))
    out = subprocess.run(["salloc", "-N", "2", sys.executable, "-m", "gftpwb", "run", path, "--results",
                          str(tmp_path / "r")], capture_output=True, text=True, env=slurm_lab.client_env(),
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    granted = out.stderr.split("Granted job allocation ")[1].split()[0]
    meta = json.loads((tmp_path / "r" / "meta.json").read_text())
    assert meta["environment"]["slurm"]["job"] == granted
    assert "(the enclosing allocation, SLURM_JOB_ID)" in meta["environment"]["slurm"]["how"]
    assert [r["status"] for r in records(tmp_path / "r")] == ["passed", "passed"]


def test_inside_sbatch(slurm_lab, gridftp, tmp_path):
    """The README's way: sbatch runs gftpwb on the job's first node, which starts steps on all of them."""
    path = write(tmp_path, quick_guc(slurm_lab, gridftp, 3))
    command = f"{sys.executable} -m gftpwb run {path} --results {tmp_path / 'r'} --progress never"
    out = subprocess.run(["sbatch", "--parsable", "-N", "3", f"--output={tmp_path / 'job.out'}", "--wrap", command],
                         capture_output=True, text=True, env={**slurm_lab.client_env(), "NO_COLOR": "1"},
                         cwd=tmp_path, timeout=60)
    assert out.returncode == 0, out.stderr
    job = out.stdout.strip().split(";")[0]
    eventually(lambda: subprocess.run(["squeue", "-h", "-j", job], capture_output=True, text=True,
                                      env=slurm_lab.client_env()).stdout.strip() == "", "the batch job to end",
               timeout=300)
    log = (tmp_path / "job.out").read_text()
    assert "3 passed of 3 planned" in log, log
    meta = json.loads((tmp_path / "r" / "meta.json").read_text())
    assert meta["environment"]["slurm"]["job"] == job
    nodes = meta["environment"]["slurm"]["nodes"]
    assert list(nodes) == ["node1", "node2", "node3"] and len(set(nodes.values())) == 3
    assert sorted(r["run_id"] for r in records(tmp_path / "r")) == ["copy/0@node1", "copy/0@node2", "copy/0@node3"]


def test_a_lost_node_is_named_in_the_record_and_the_others_results_stand(tmp_path):
    lab = SlurmLab(str(tmp_path / "lab"))
    lab.up(3)
    try:
        text = head(lab, 3, policy="continue") + f"""\
tests:
  - id: many
    kind: gfapi
    on: slurm
    directory: {tmp_path / "files"}
    workload: seq-wr
    threads: 1
    files: 100000
    file_size: 1
    record_size: 1
    timeout: 5m
"""
        proc = popen("run", write(tmp_path, text), "--results", str(tmp_path / "r"))
        eventually(lambda: len(list((tmp_path / "files").glob("node2/**/*"))) > 5000 or proc.poll() is not None,
                   "node2's worker to write files", timeout=120)
        subprocess.run(["scontrol", "update", "nodename=n2", "state=down", "reason=gftpwb-test"],
                       env=lab.client_env(), check=True)
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 1, out + err
        (record,) = records(tmp_path / "r")
        assert record["status"] == "failed"
        assert "node n2 failed (srun: Node failure on n2)" in record["error"] and "node2" in record["error"]
        threads = record["details"]["gfapi"]["threads"]
        statuses = {t["host"]: t["status"] for t in threads}
        assert statuses["node1"] == statuses["node3"] == "ok" and statuses["node2"] in ("failed", "not-started")
    finally:
        lab.down()
