"""The allocation a scenario runs in: the enclosing one (inside salloc or sbatch: SLURM_JOB_ID), one
named by the scenario (``job: 1234``), or a new one gftpwb asks for (``salloc --no-shell``) and
releases at the end.

:func:`preflight` looks before anything is made (no results directory yet): the programs, the
named job (running, enough nodes) or the partition a new job would go to (up, enough nodes).
:func:`acquire` then makes or finds the allocation when the scenario run starts, and fails with the
same :class:`~gftpwb.core.errors.AllocationError` (exit 10) when it cannot: a pending job is given
``wait`` to start, and cancelled when Slurm says it never will (a partition down, more nodes than
it has). The node list comes from ``scontrol show hostnames``, in Slurm's order: slot ``nodeI`` is
its I-th node.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from gftpwb.core.errors import AllocationError, EnvironmentProblem
from gftpwb.core.slurm.commands import (
    hostnames_argv,
    job_state_argv,
    partition_argv,
    salloc_argv,
    scancel_job_argv,
)
from gftpwb.core.slurm.messages import parse_job_state, parse_partitions, parse_salloc_line, partition_problem
from gftpwb.core.slurm.model import AUTO, SlurmSetup, slot_index

from .clients import PACKAGES, client_env, run_client, run_client_sync

PROGRAMS = ("srun", "salloc", "squeue", "scancel", "scontrol")
RUNNING = "RUNNING"
HOPELESS_WAIT_S = 5.0  # after salloc says a job will not start, how long to wait for it to name the job


@dataclass(frozen=True)
class Allocation:
    job_id: str
    nodes: tuple[str, ...]  # every node of the job, in Slurm's order
    ours: bool  # gftpwb asked for it: cancelled at the end
    how: str  # how it was found, for notices and meta.json

    def node_of(self, slot: str) -> str | None:
        index = slot_index(slot)
        return self.nodes[index] if index is not None and index < len(self.nodes) else None

    def slot_map(self, slots: tuple[str, ...]) -> dict[str, str]:
        return {slot: node for slot in slots if (node := self.node_of(slot)) is not None}


def named_job(setup: SlurmSetup, environ: Mapping[str, str] | None = None) -> tuple[str, str]:
    """``(job id, how)`` of the allocation to use, ``("", "")`` when a new one is to be asked for."""
    environ = os.environ if environ is None else environ
    if setup.existing_job:
        return setup.existing_job, f"job {setup.existing_job} (the scenario's job:)"
    if setup.job == AUTO and environ.get("SLURM_JOB_ID", "").isdigit():
        return environ["SLURM_JOB_ID"], f"job {environ['SLURM_JOB_ID']} (the enclosing allocation, SLURM_JOB_ID)"
    return "", ""


def _check_programs() -> None:
    for program in PROGRAMS:
        if shutil.which(program) is None:
            raise EnvironmentProblem(f"{program} not found in PATH: running on Slurm needs Slurm's client commands; "
                                     f"install {PACKAGES}")


def _job_problem(job: str, setup: SlurmSetup, state_text: str, code: int, why: str) -> str:
    state = parse_job_state(state_text) if code == 0 else None
    if state is None:
        return f"Slurm job {job} is not known to the controller ({why}); it ended, or the id is wrong"
    if state.state != RUNNING:
        return f"Slurm job {job} is {state.state}, not RUNNING: its nodes are not allocated"
    if state.node_count < setup.nodes:
        return (f"the scenario needs {setup.nodes} nodes (slurm: nodes), and job {job} has {state.node_count} "
                f"({state.nodelist})")
    return ""


def preflight(setup: SlurmSetup, environ: Mapping[str, str] | None = None) -> None:
    """Raise EnvironmentProblem (exit 3) or AllocationError (exit 10) for what can be seen before the
    results directory is made."""
    _check_programs()
    job, _how = named_job(setup, environ)
    if job:
        answer = run_client_sync(job_state_argv(job), setup.conf)
        problem = _job_problem(job, setup, answer.stdout, answer.code, answer.why)
    else:
        answer = run_client_sync(partition_argv(setup.partition), setup.conf)
        if answer.code != 0:
            problem = (f"Slurm has no partition {setup.partition}" if setup.partition and "not found" in answer.why
                       else f"cannot ask Slurm about its partitions: {answer.why}")
        else:
            problem = partition_problem(parse_partitions(answer.stdout), setup.partition, setup.nodes)
    if problem:
        raise AllocationError(f"no Slurm allocation for the scenario: {problem}; nothing was run")


async def job_nodes(job: str, setup: SlurmSetup) -> tuple[str, ...]:
    """The nodes of a running job, in Slurm's order; raises AllocationError."""
    answer = await run_client(job_state_argv(job), setup.conf)
    problem = _job_problem(job, setup, answer.stdout, answer.code, answer.why)
    if problem:
        raise AllocationError(f"no Slurm allocation for the scenario: {problem}; nothing was run")
    state = parse_job_state(answer.stdout)
    assert state is not None
    names = await run_client(hostnames_argv(state.nodelist), setup.conf)
    nodes = tuple(line.strip() for line in names.stdout.splitlines() if line.strip())
    if names.code != 0 or not nodes:
        raise AllocationError(f"cannot read the nodes of Slurm job {job} ({state.nodelist}): {names.why}")
    return nodes


async def acquire(setup: SlurmSetup, notify: Callable[[str], None] | None = None,
                  environ: Mapping[str, str] | None = None) -> Allocation:
    """The allocation the scenario runs in (see the module docstring)."""
    _check_programs()
    job, how = named_job(setup, environ)
    if job:
        return Allocation(job, await job_nodes(job, setup), ours=False, how=how)
    job = await _salloc(setup, notify)
    try:
        nodes = await job_nodes(job, setup)
    except BaseException:
        await release_job(job, setup.conf)
        raise
    return Allocation(job, nodes, ours=True, how=f"job {job} (asked for: {' '.join(salloc_argv(setup)[1:])})")


async def _salloc(setup: SlurmSetup, notify: Callable[[str], None] | None) -> str:
    """Run ``salloc --no-shell`` until the job is granted; cancel it when it cannot be."""
    argv = salloc_argv(setup)
    try:
        proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                                                    env=client_env(setup.conf), start_new_session=True)
    except FileNotFoundError:
        raise EnvironmentProblem(f"salloc not found in PATH; install {PACKAGES}") from None
    assert proc.stdout is not None
    granted = pending = ""
    problem = ""
    errors: list[str] = []
    deadline = time.monotonic() + setup.wait_s
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 and problem:
                break
            if remaining <= 0:
                problem = (f"job {pending} was still pending after {setup.wait_s:g}s (slurm: wait)"
                           if pending else f"salloc gave no answer within {setup.wait_s:g}s")
                break
            try:
                raw = await asyncio.wait_for(proc.stdout.readline(), remaining)
            except TimeoutError:
                continue
            if not raw:
                break
            line = parse_salloc_line(raw.decode("utf-8", "replace"))
            if line.granted:
                granted = line.granted
                break
            if line.pending:
                pending = line.pending
                if problem:
                    break
                if notify is not None:
                    notify(f"slurm: job {pending} is pending; waiting up to {setup.wait_s:g}s (slurm: wait)")
            if line.hopeless:
                problem = line.error
                if pending:
                    break
                deadline = min(deadline, time.monotonic() + HOPELESS_WAIT_S)  # salloc names the job next
                continue
            if line.error:
                errors.append(line.error)
    except asyncio.CancelledError:
        await _end_salloc(proc, pending, setup.conf)
        raise
    if granted:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(proc.wait(), 10)
        return granted
    await _end_salloc(proc, pending, setup.conf)
    if pending and problem:
        problem += f"; job {pending} cancelled"
    if not problem:
        problem = "; ".join(errors[-2:]) or f"salloc ended with status {proc.returncode}"
    raise AllocationError(f"no Slurm allocation for the scenario: {problem} (salloc {' '.join(argv[1:])}); "
                          "nothing was run")


async def _end_salloc(proc: asyncio.subprocess.Process, pending: str, conf: str) -> None:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.terminate()
        try:
            await asyncio.wait_for(proc.wait(), 5)
        except TimeoutError:
            proc.kill()
            await proc.wait()
    if pending:
        await release_job(pending, conf)


async def release_job(job: str, conf: str) -> None:
    await run_client(scancel_job_argv(job), conf)


async def release(allocation: Allocation, conf: str) -> None:
    """Cancel the job if gftpwb asked for it (an enclosing or named job is left as it was)."""
    if allocation.ours:
        await release_job(allocation.job_id, conf)
