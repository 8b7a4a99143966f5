"""The command lines gftpwb gives Slurm's clients (salloc, srun, scancel, squeue, scontrol). Pure.

Every value is an argument of its own; nothing goes through a shell.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .model import CANCEL, SlurmSetup

JOB_NAME = "gftpwb"
STEP_NAME_PATTERN = re.compile(r"[^A-Za-z0-9._@#/-]+")


def salloc_argv(setup: SlurmSetup) -> list[str]:
    """Ask for an allocation without a shell (``salloc --no-shell`` returns once granted, or fails).
    ``--no-kill``: a node that fails does not end the job, so the other nodes' runs go on, and the
    failed node's runs fail naming it."""
    argv = ["salloc", "--no-shell", f"--job-name={JOB_NAME}", "--no-kill", f"--nodes={setup.nodes}",
            f"--ntasks-per-node={setup.tasks_per_node}"]
    if setup.partition:
        argv.append(f"--partition={setup.partition}")
    if setup.time_limit_min is not None:
        argv.append(f"--time={setup.time_limit_min}")
    if setup.account:
        argv.append(f"--account={setup.account}")
    argv.extend(setup.options)
    return argv


def step_name(group: str) -> str:
    """A job step's name (squeue -s shows it): gftpwb and the run it belongs to."""
    cleaned = STEP_NAME_PATTERN.sub("_", group)[:60]
    return f"{JOB_NAME}:{cleaned}" if cleaned else JOB_NAME


def srun_argv(setup: SlurmSetup, job_id: str, nodes: Sequence[str], program: Sequence[str], *, name: str) -> list[str]:
    """One job step: task i on ``nodes[i]`` (``--distribution=arbitrary`` with the node list in task
    order), sharing the allocation with gftpwb's other steps (``--overlap``, ``--overcommit``: runs
    may start more tasks than the allocation has CPUs). The scenario's failure policy: ``cancel``
    ends the whole step when a task fails (``--kill-on-bad-exit=1``) or a node is lost; ``continue``
    lets the others finish (``--kill-on-bad-exit=0 --no-kill``). Standard input and output go over the
    tasks' own connections (:mod:`.wire`), so srun's carry only the wrapper's own messages. Node and
    task counts are explicit: inside sbatch, the job's SLURM_NNODES and SLURM_NTASKS are in the
    environment, and srun would take them as its own."""
    if not nodes:
        raise ValueError("a step needs at least one task")
    policy = ["--kill-on-bad-exit=1"] if setup.on_failure == CANCEL else ["--kill-on-bad-exit=0", "--no-kill"]
    return ["srun", f"--jobid={job_id}", f"--job-name={name}", "--overlap", "--overcommit",
            f"--nodes={len(set(nodes))}", f"--ntasks={len(nodes)}", f"--nodelist={','.join(nodes)}",
            "--distribution=arbitrary",
            *policy, "--input=none", "--label", "--quiet", *setup.step_options, *program]


def scancel_step_argv(job_id: str, step_id: str, signal: str = "") -> list[str]:
    return ["scancel", *([f"--signal={signal}"] if signal else []), f"{job_id}.{step_id}"]


def scancel_job_argv(job_id: str) -> list[str]:
    return ["scancel", job_id]


def job_state_argv(job_id: str) -> list[str]:
    """``squeue`` for one job: its state, node count and node list on one line."""
    return ["squeue", "-h", "-j", job_id, "-o", "%T|%D|%N"]


def steps_argv(job_id: str) -> list[str]:
    """``squeue -s`` for one job's steps: step id and name, one per line."""
    return ["squeue", "-h", "-s", "-j", job_id, "-o", "%i|%j"]


def hostnames_argv(nodelist: str) -> list[str]:
    return ["scontrol", "show", "hostnames", nodelist]


def partition_argv(partition: str) -> list[str]:
    """``scontrol show partition -o [NAME]``: one line of key=value per partition."""
    return ["scontrol", "show", "partition", "-o", *([partition] if partition else [])]
