"""One job step: an srun process whose tasks run the starts of one run (or batch of runs), each task
on the node its request names, every task a :class:`~.task.TaskProcess`.

srun runs on the controller like any local program (its own session, this process's watchdog
token); its stdout and stderr carry only its own messages and the wrapper's, which
:class:`~gftpwb.core.slurm.messages.StepMessages` reads: a task that could not reach the controller,
a task that ended without its wrapper's word (killed with the step, or with its node), a node that
failed. Those words become the tasks' verdicts: each names its node and why.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from gftpwb.core.slurm.commands import scancel_step_argv, srun_argv, step_name
from gftpwb.core.slurm.messages import StepMessages
from gftpwb.core.slurm.model import CANCEL, CONTINUE, SlurmSetup
from gftpwb.core.slurm.wire import Hello, wrapper_argv

from ..local import owner_env
from .allocation import Allocation
from .callback import Callback
from .clients import client_env, run_client
from .task import Request, TaskProcess

VERDICT_WAIT_S = 5.0  # how long a task's end waits for srun's word on it
SIGNAL_STATUS = {"Terminated": 128 + signal.SIGTERM, "Killed": 128 + signal.SIGKILL,
                 "Interrupt": 128 + signal.SIGINT, "Hangup": 128 + signal.SIGHUP}


class StepOwner(Protocol):
    """What a step needs of the launcher (:class:`~.launcher.SlurmLauncher`)."""

    setup: SlurmSetup
    allocation: Allocation | None
    callback: Callback | None

    def step_known(self, step: Step) -> None: ...

    def step_ended(self, step: Step) -> None: ...

    def node_lost(self, node: str, why: str) -> None: ...


class Step:
    """An srun and its tasks (see the module docstring)."""

    def __init__(self, launcher: StepOwner, key: str, group: str, requests: Sequence[Request], *,
                 principal: bool = True):
        self.launcher = launcher
        self.principal = principal  # the run's own programs: the scenario's failure policy applies
        self.key = key  # gftpwb's name for the step in the tasks' hellos
        self.group = group
        self.tasks = [TaskProcess(self, index, request) for index, request in enumerate(requests)]
        self.messages = StepMessages()
        self.jobstep = ""  # JOB.STEP, once a task says it
        self.proc: asyncio.subprocess.Process | None = None
        self.done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.launched_at = time.monotonic()
        self.ready_at: float | None = None  # every task started (or failed to)
        self._readers: list[asyncio.Task[None]] = []
        self._watcher: asyncio.Task[None] | None = None

    @property
    def argv(self) -> list[str]:
        setup = self.launcher.setup
        allocation = self.launcher.allocation
        assert allocation is not None
        callback = self.launcher.callback
        assert callback is not None
        program = wrapper_argv(setup.callback_address, callback.port, callback.secret, self.key)
        policy = setup if self.principal else replace(setup, on_failure=CONTINUE)
        name = step_name(self.group if self.principal else f"{self.group}+")
        return srun_argv(policy, allocation.job_id, [t.node for t in self.tasks], program, name=name)

    def attach(self, hello: Hello, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        if not 0 <= hello.task < len(self.tasks):
            return False
        if hello.jobstep and not self.jobstep:
            self.jobstep = hello.jobstep
            self.launcher.step_known(self)
        return self.tasks[hello.task].attach(hello, reader, writer)

    async def launch(self) -> None:
        """Start srun; each request's future gets its task once started (or the reason it did not)."""
        for task in self.tasks:
            task.started.add_done_callback(lambda _f, t=task: self._started(t))
        try:
            self.proc = await asyncio.create_subprocess_exec(
                *self.argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, start_new_session=True,
                env={**client_env(self.launcher.setup.conf), **owner_env()})
        except OSError as exc:
            for task in self.tasks:
                task.fail_start(f"srun could not be started: {exc.strerror or exc}")
            self.done.set_result(127)
            return
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._readers = [asyncio.create_task(self._read(self.proc.stdout)),
                         asyncio.create_task(self._read(self.proc.stderr))]
        self._watcher = asyncio.create_task(self._watch())

    def _started(self, task: TaskProcess) -> None:
        request = task.request
        if not request.done.done():
            if task.started.exception() is not None:
                request.done.set_exception(task.started.exception())  # type: ignore[arg-type]
            else:
                request.done.set_result(task)
        if self.ready_at is None and all(t.started.done() for t in self.tasks):
            self.ready_at = time.monotonic()

    async def _read(self, stream: asyncio.StreamReader) -> None:
        with contextlib.suppress(OSError, ValueError):
            while True:
                raw = await stream.readline()
                if not raw:
                    break
                self.messages.feed(raw.decode("utf-8", "replace"))
                self._react()

    def _react(self) -> None:
        """Act on what srun said: a wrapper that could not start, a node that failed."""
        for index, text in list(self.messages.wrapper_errors.items()):
            if 0 <= index < len(self.tasks) and not self.tasks[index].exited.done():
                self.tasks[index].fail_start(text)
        for node in self.messages.failed_nodes:
            self.launcher.node_lost(node, f"srun: Node failure on {node}")
            for task in self.tasks:
                if task.node == node and not task.exited.done():
                    task.lose(f"node {node} failed (srun: Node failure on {node}){self._policy_note()}")

    def _policy_note(self) -> str:
        return "" if self.launcher.setup.on_failure == CANCEL else "; the other nodes' tasks went on (on_failure: " \
                                                                    "continue)"

    async def _watch(self) -> None:
        assert self.proc is not None
        code = await self.proc.wait()
        await asyncio.gather(*self._readers, return_exceptions=True)
        self._react()
        if not self.done.done():
            self.done.set_result(code)
        for task in self.tasks:
            if not task.started.done():
                why = self.messages.wrapper_errors.get(task.index) or self.messages.summary() or \
                    f"srun ended with status {code} before the task started"
                task.fail_start(why)
        self.launcher.step_ended(self)

    async def verdict(self, task: TaskProcess, status: int | None = None) -> None:
        """A task's wrapper ended without an exit status, or with a signal's (``status``) that gftpwb
        did not send: wait for srun's word on it, then say why. A task killed because another one
        failed (on_failure: cancel) or because its node failed is lost, with that reason; otherwise
        the signal's status stands."""
        # srun's words on a cancelled step come in any order (the failed node, the killed tasks), so wait
        # for all of them: srun ends once the step is over; a task killed alone gets at most the wait.
        deadline = time.monotonic() + VERDICT_WAIT_S
        while not task.exited.done() and not self.done.done() and task.node not in self.messages.failed_nodes \
                and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if task.exited.done():
            return
        end = self.messages.end_of(task.index)
        failure = self.messages.first_failure()
        if task.node in self.messages.failed_nodes:
            task.lose(f"node {task.node} failed (srun: Node failure on {task.node})")
        elif task.stopping and end is not None and end.what in SIGNAL_STATUS:
            task.ended_by_signal(SIGNAL_STATUS[end.what])
        elif task.stopping:
            task.ended_by_signal(status if status is not None else 128 + signal.SIGKILL)
        elif self.messages.failed_nodes and self.principal and self.launcher.setup.on_failure == CANCEL:
            node = self.messages.failed_nodes[0]
            task.lose(f"cancelled with its job step: node {node} failed (srun: Node failure on {node}; the "
                      "scenario's slurm on_failure is cancel)")
        elif failure is not None and task.index not in failure.tasks and self.principal \
                and self.launcher.setup.on_failure == CANCEL:
            other = self.tasks[failure.tasks[0]] if failure.tasks and failure.tasks[0] < len(self.tasks) else None
            who = f"task {failure.tasks[0]} on {failure.node}" + (f" ({other.slot})" if other else "")
            task.lose(f"cancelled with its job step: {who} failed: {failure.what} (the scenario's slurm on_failure "
                      "is cancel)")
        elif status is not None:
            return  # a signal of its own: the status stands
        elif end is not None:
            task.lose(f"ended on {task.node}: {end.what} (srun)")
        else:
            said = self.messages.summary()
            task.lose("its wrapper ended without an exit status" + (f" (srun: {said})" if said else ""))

    async def cut_loose(self, task: TaskProcess) -> None:
        """A stopped task did not end: once every task of the step is stopped or over, cancel the step."""
        if all(t.exited.done() or t.stopping for t in self.tasks):
            await self.cancel()
        if not task.exited.done():
            task.lose("it did not end when stopped; its job step was cancelled")

    async def cancel(self) -> None:
        """Cancel the whole step (scancel), and srun with it."""
        if self.jobstep:
            job, _, step = self.jobstep.partition(".")
            await run_client(scancel_step_argv(job, step), self.launcher.setup.conf)
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGKILL)
        if self.proc is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.done), 10)

    async def close(self) -> None:
        """At the end of the scenario run: stop what still runs, then make sure the step is gone."""
        await asyncio.gather(*(t.close() for t in self.tasks), return_exceptions=True)
        if not self.done.done():
            await self.cancel()

