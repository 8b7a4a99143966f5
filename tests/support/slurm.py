"""What the Slurm tests share: the jobs and steps a lab still has, and the processes of its tasks."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from gftpwb.shell.lab.slurm import DAEMONS, SlurmLab, lab_processes

from .processes import running

ALIVE_STATES = "PD,CF,R,S"  # pending, configuring, running, suspended: a job completing is ending


def jobs(lab: SlurmLab, *args: str) -> str:
    """``squeue -h`` of the lab: its jobs that are still pending or running, or (``-s``) its steps."""
    states = [] if "-s" in args else ["-t", ALIVE_STATES]
    return subprocess.run(["squeue", "-h", *states, *args], capture_output=True, text=True,
                          env=lab.client_env()).stdout.strip()


def alive(pattern: str) -> list[int]:
    """The running processes (not zombies, not this one) whose command line matches ``pattern``."""
    out = subprocess.run(["pgrep", "-f", pattern], capture_output=True, text=True).stdout.split()
    return [pid for pid in map(int, out) if pid != os.getpid() and running(pid)]


def comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def tasks_of(lab: SlurmLab) -> list[int]:
    """Every process running under one of the lab's step daemons (tasks, their wrappers, children)."""
    return [pid for pid in lab_processes(f"SLURM_CONF={lab.conf}") if comm(pid) not in DAEMONS]
