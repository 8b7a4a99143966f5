"""`gftpwb lab up --slurm N` / `status` / `down` against Debian's real Slurm: munged, slurmctld and N
slurmd in the lab's own state directory and ports, jobs run on it, and nothing is left after down."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.clihelp import gftpwb
from support.polling import eventually
from support.slurm import alive

from gftpwb.shell.lab.gridftp import free_port
from gftpwb.shell.lab.slurm import SlurmLab, lab_processes, slurm_conf

pytestmark = [pytest.mark.real, pytest.mark.slow]
REPO = Path(__file__).resolve().parent.parent


def pgrep_lab(conf: str) -> list[int]:
    """Every process (daemon, step daemon, task) of one lab, found by the SLURM_CONF it carries."""
    return lab_processes(f"SLURM_CONF={conf}")


def test_up_status_run_down(tmp_path):
    state = str(tmp_path / "lab")
    conf = os.path.join(state, "slurm", "slurm.conf")
    port = str(free_port())
    try:
        out = gftpwb("lab", "up", "--slurm", "3", "--state-dir", state, "--port", port)
        assert out.returncode == 0, out.stderr
        assert "slurm    3 node(s) in partition lab" in out.stdout and f"SLURM_CONF={conf}" in out.stdout
        again = gftpwb("lab", "up", "--slurm", "3", "--state-dir", state, "--port", port)  # idempotent
        assert again.returncode == 0, again.stderr
        more = gftpwb("lab", "up", "--slurm", "4", "--state-dir", state, "--port", port)
        assert more.returncode == 4 and "the lab's Slurm has 3 node(s); run 'gftpwb lab down' first" in more.stderr
        status = json.loads(gftpwb("lab", "status", "--json", "--state-dir", state).stdout)["slurm"]
        assert status["running"] and status["conf"] == conf and status["partition"] == "lab"
        assert [n["name"] for n in status["nodes"]] == ["n1", "n2", "n3"]
        assert all(n["running"] and n["state"] == "idle" for n in status["nodes"])
        assert len({n["port"] for n in status["nodes"]}) == 3
        varsout = gftpwb("lab", "status", "--vars", "--state-dir", state)
        assert varsout.returncode == 0, varsout.stderr
        assert varsout.stdout.split() == ["--lab-var", f"lab={state}", "--lab-var", f"slurm_conf={conf}",
                                          "--lab-var", "slurm_nodes=3", "--lab-var", "slurm_partition=lab"]
        env = {**os.environ, "SLURM_CONF": conf}
        ran = subprocess.run(["srun", "-N", "3", "--ntasks-per-node=2", "-l", "sh", "-c", "echo $SLURMD_NODENAME"],
                             capture_output=True, text=True, env=env, timeout=60)
        assert ran.returncode == 0, ran.stderr
        assert sorted(line.split(": ")[1] for line in ran.stdout.splitlines()) == ["n1", "n1", "n2", "n2", "n3", "n3"]
        # a job still running at `lab down`: its step daemons and tasks must go too
        marker = f"gftpwb-lab-test-{os.getpid()}"
        job = subprocess.Popen(["srun", "-N", "2", "sh", "-c", f"sleep 300; : {marker}"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        eventually(lambda: len(alive(f"^[^ ]*sh -c sleep 300; : {marker}$")) == 2, "the job's two tasks")
    finally:
        down = gftpwb("lab", "down", "--state-dir", state)
    assert down.returncode == 0, down.stderr
    assert "Slurm of the lab stopped" in down.stdout
    job.wait(timeout=30)
    assert alive(marker) == []  # neither the tasks nor srun
    assert pgrep_lab(conf) == []
    assert not os.path.exists(os.path.join(state, "slurm"))
    assert "slurm" not in json.loads(gftpwb("lab", "status", "--json", "--state-dir", state).stdout)


def test_two_labs_run_side_by_side(tmp_path):
    """Two state directories, two clusters on their own ports: each sees only its own nodes and jobs."""
    a, b = SlurmLab(str(tmp_path / "a")), SlurmLab(str(tmp_path / "b"))
    try:
        sa, sb = a.up(1), b.up(2)
        assert sa.running and sb.running
        assert sa.controller != sb.controller and sa.cluster != sb.cluster
        assert {n.port for n in sa.nodes}.isdisjoint({n.port for n in sb.nodes})
        for lab, count in ((a, 1), (b, 2)):
            ran = subprocess.run(["srun", "-N", str(count), "hostname"], capture_output=True, text=True,
                                 env=lab.client_env(), timeout=60)
            assert ran.returncode == 0, ran.stderr
        a.down()
        assert b.status().running  # the other lab is untouched
    finally:
        a.down()
        b.down()
    assert pgrep_lab(a.conf) == [] and pgrep_lab(b.conf) == []


def test_bad_requests_are_refused_before_anything_starts(tmp_path):
    state = str(tmp_path / "lab")
    out = gftpwb("lab", "up", "--slurm", "0", "--state-dir", state, "--port", str(free_port()))
    # --slurm 0 means "no Slurm": only the GridFTP server starts
    assert out.returncode == 0 and "slurm" not in out.stdout
    gftpwb("lab", "down", "--state-dir", state)
    out = gftpwb("lab", "up", "--slurm", "100000", "--state-dir", state, "--port", str(free_port()))
    assert out.returncode == 2 and out.stderr == "gftpwb: --slurm 100000: give 1 to 256 nodes\n"
    assert not os.path.exists(os.path.join(state, "slurm.json"))
    novars = gftpwb("lab", "status", "--vars", "--state-dir", state)
    assert novars.returncode == 2 and "no namespace hosts, no Slurm and no GlusterFS volume" in novars.stderr


def test_the_configuration_is_the_verified_one():
    text = slurm_conf(state="/s", cluster="gwx", host="vm", ctld_port=20000, node_port=20001, count=4, cpus=4,
                      munge_socket="/s/munge.sock")
    for line in ("ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "SelectType=select/cons_tres",
                 "SlurmdParameters=config_overrides", "SlurmdSpoolDir=/s/spool/%n", "SlurmdPidFile=/s/slurmd.%n.pid",
                 "AuthInfo=socket=/s/munge.sock", "SlurmctldHost=vm(127.0.0.1)", "SlurmctldPort=20000",
                 "NodeName=n[1-4] NodeHostname=vm NodeAddr=127.0.0.1 Port=[20001-20004] CPUs=4 State=UNKNOWN",
                 "PartitionName=lab Nodes=n[1-4] Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"):
        assert line in text.splitlines()


def test_vars_of_a_lab_with_hosts_and_slurm_fit_the_shipped_scenarios(tmp_path):
    """lab status --vars prints the hosts' and the Slurm's variables as --lab-var pairs; each shipped
    scenario that takes some loads with all of them (those it does not declare are ignored)."""
    from gftpwb.cli.lab import lab_vars
    from gftpwb.core.dsl.loader import load_scenario
    from gftpwb.shell.frontend import parse_assignments

    net = {"controller_address": "10.9.9.1", "hosts": [{"address": "10.9.9.2"}, {"address": "10.9.9.3"}]}
    text = lab_vars("/lab", net, {"slurm_conf": "/lab/slurm/slurm.conf", "slurm_nodes": "8",
                                  "slurm_partition": "lab"})
    words = text.split()
    assert words[1::2] == ["lab=/lab", "ctrl=10.9.9.1", "src=10.9.9.2", "dst=10.9.9.3",
                           "slurm_conf=/lab/slurm/slurm.conf", "slurm_nodes=8", "slurm_partition=lab"]
    assert set(words[0::2]) == {"--lab-var"}
    overrides = parse_assignments([], words[1::2])  # as the shell passes $(gftpwb lab status --vars)
    for name in ("teragrid-study.yaml", "multi-host.yaml", "slurm-smallfile.yaml"):
        load_scenario(str(REPO / "scenarios" / name), overrides=overrides)
