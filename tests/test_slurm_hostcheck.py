"""`gftpwb hosts check` of a scenario on Slurm: every node slot of the allocation is probed through the
Slurm launcher (a job step, never SSH), one row per slot, with the same columns and exit codes as for SSH
hosts; an allocation that cannot be had is exit 10 as for `run`; a job gftpwb asked for is cancelled, a
named one is left running."""

import asyncio
import json
import subprocess
from pathlib import Path

import pytest
from support.clihelp import gftpwb
from support.slurm import jobs

from gftpwb.core.hostcheck import ERROR
from gftpwb.core.transport import StartError
from gftpwb.shell.lab.slurm import SlurmLab
from gftpwb.shell.nodeprobe import check_slot


def scenario(tmp_path: Path, lab: SlurmLab, nodes: int, extra: str = "") -> str:
    path = tmp_path / "s.yaml"
    path.write_text(f"""\
version: 1
name: onslurm
slurm:
  nodes: {nodes}
  on_failure: cancel
  conf: {lab.conf}
{extra}tests:
  - id: small
    kind: gfapi
    on: slurm
    directory: {tmp_path / "data"}
    files: 10
""")
    return str(path)


@pytest.mark.real
def test_every_node_of_the_allocation_is_checked_through_slurm(slurm_lab, tmp_path):
    path = scenario(tmp_path, slurm_lab, 3)
    out = gftpwb("hosts", "check", path, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    rows = [line.split("│")[1:-1] for line in out.stdout.splitlines() if line.startswith("│")]
    cells = [(r[0].strip(), r[1].strip(), r[2].strip()) for r in rows]
    # which 3 of the lab's 4 nodes Slurm grants is Slurm's choice (a node still completing the last job
    # is passed over): each slot is on a node of its own
    granted = [address for _, address, _ in cells[1:]]
    assert [(h, st) for h, _, st in cells] == [("local", "ok"), ("node1", "ok"), ("node2", "ok"), ("node3", "ok")]
    assert cells[0][1] == "-" and len(set(granted)) == 3 and set(granted) <= {"n1", "n2", "n3", "n4"}
    assert all(" ms ±" in r[6] for r in rows)  # a clock offset measured on every node
    mapping = ", ".join(f"node{i}={address}" for i, address in enumerate(granted, start=1))
    assert "info: slurm: job " in out.stderr and mapping in out.stderr
    assert jobs(slurm_lab) == ""  # the job asked for is released

    answer = json.loads(gftpwb("hosts", "check", path, "--json", "--only", "node2", timeout=300).stdout)
    (node,) = answer["hosts"]
    assert (node["host"], node["status"]) == ("node2", "ok")
    assert node["address"] == answer["slurm"]["nodes"]["node2"]  # the node this allocation gave the slot
    assert node["clock"]["samples"] == 8 and node["tcp_buffers"]["rmem_max"]
    assert sorted(answer["slurm"]["nodes"]) == ["node1", "node2", "node3"]
    assert jobs(slurm_lab) == ""


@pytest.mark.real
def test_an_allocation_that_cannot_be_had_is_exit_10(slurm_lab, tmp_path):
    out = gftpwb("hosts", "check", scenario(tmp_path, slurm_lab, 9))
    assert out.returncode == 10
    assert out.stderr == ("gftpwb: no Slurm allocation for the scenario: the scenario needs 9 nodes, and partition "
                          "lab has 4; nothing was run\n")
    assert out.stdout == "" and jobs(slurm_lab) == ""
    unknown = gftpwb("hosts", "check", scenario(tmp_path, slurm_lab, 2), "--only", "node3")
    assert unknown.returncode == 2 and "unknown host node3; onslurm has: node1, node2" in unknown.stderr


@pytest.mark.real
def test_a_named_job_is_checked_and_left_running(slurm_lab, tmp_path):
    granted = subprocess.run(["salloc", "--no-shell", "-N", "2"], capture_output=True, text=True,
                             env=slurm_lab.client_env(), timeout=60)
    job = granted.stderr.split("Granted job allocation ")[1].split()[0]
    try:
        out = gftpwb("hosts", "check", scenario(tmp_path, slurm_lab, 2, f"  job: {job}\n"), "--json", timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr
        answer = json.loads(out.stdout)
        assert [(h["host"], h["status"]) for h in answer["hosts"]] == [("local", "ok"), ("node1", "ok"),
                                                                       ("node2", "ok")]
        assert answer["slurm"]["job"] == job and "(the scenario's job:)" in answer["slurm"]["how"]
        assert job in jobs(slurm_lab, "-j", job)  # not ours: still running
    finally:
        subprocess.run(["scancel", job], env=slurm_lab.client_env())


class _Unstartable:
    """A launcher whose node cannot start a task (a node that is gone)."""

    def transport(self, slot):
        return self

    async def start(self, argv, **_):
        raise StartError("node1 (node n1): the node failed earlier")


def test_a_node_that_cannot_start_the_probe_gets_a_failed_row():
    report = asyncio.run(check_slot(_Unstartable(), "node1", "n1"))
    assert (report.host, report.address, report.status) == ("node1", "n1", ERROR)
    assert report.error == "the probe could not start on node n1: node1 (node n1): the node failed earlier"
    missing = asyncio.run(check_slot(_Unstartable(), "node5", None))
    assert missing.status == ERROR and missing.error == "the allocation has no node for node5"
