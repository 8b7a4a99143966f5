"""The Slurm launcher: a scenario's node slots as transports, every run's programs as one job step.

``HostTransports`` hands out a :class:`~.node.SlurmNodeTransport` for each slot (``node1`` ..
``nodeN``); they all start their programs through the one launcher of the scenario run, which

* finds or asks for the allocation once (:mod:`.allocation`), starts the listener the tasks connect
  back to (:mod:`.callback`) and the reaper that cancels what a killed gftpwb leaves in Slurm
  (:mod:`.reaper`);
* gathers the starts of one run into one job step: starts asked for within a few milliseconds of
  each other under the same launch group (:data:`gftpwb.shell.context.launch_group`: the executor
  sets it to the run's group or id, so the hosts of a batch, a gfapi run's workers on every node,
  the monitors' samplers, the environment probe each make one step) become the tasks of one
  ``srun`` (:mod:`.step`), task i on the node of its slot;
* at the end stops every task still running, cancels their steps and releases an allocation it
  asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence

from gftpwb.core.errors import AllocationError
from gftpwb.core.slurm.model import SlurmSetup
from gftpwb.core.transport import StartError
from gftpwb.shell.context import launch_group, run_program

from . import allocation as alloc
from . import reaper
from .callback import Callback
from .clients import client_env
from .node import SlurmNodeTransport
from .step import Step
from .task import Request, TaskProcess

BATCH_WINDOW_S = 0.005  # starts this close together (same launch group) share a step
BATCH_MAX_S = 0.1  # ... but the first waits no longer than this


class _Batch:
    def __init__(self) -> None:
        self.requests: list[Request] = []
        self.first = asyncio.get_running_loop().time()
        self.timer: asyncio.TimerHandle | None = None


class SlurmLauncher:
    """See the module docstring. ``notify`` gets one-line notices (the allocation used, a job pending)."""

    def __init__(self, setup: SlurmSetup, *, notify: Callable[[str], None] | None = None,
                 environ: Mapping[str, str] | None = None):
        self.setup = setup
        self.notify = notify
        self.environ = environ
        self.allocation: alloc.Allocation | None = None
        self.callback: Callback | None = None
        self.steps: dict[str, Step] = {}
        self.finished: list[Step] = []  # the last few steps, for diagnostics
        self.lost_nodes: dict[str, str] = {}  # node -> why it is gone
        self._count = 0
        self._batches: dict[tuple[str, bool], _Batch] = {}
        self._transports: dict[str, SlurmNodeTransport] = {}
        self._lock = asyncio.Lock()
        self._failure: BaseException | None = None
        self._reaper: subprocess.Popen[bytes] | None = None
        self._closed = False

    # --- allocation ----------------------------------------------------------------------------

    async def ensure(self) -> alloc.Allocation:
        """The allocation, found or asked for on first use; raises AllocationError (then and after)."""
        if self.allocation is not None:
            return self.allocation
        if self._failure is not None:
            raise self._failure
        async with self._lock:
            if self.allocation is None and self._failure is None:
                try:
                    await self._open()
                except BaseException as exc:
                    self._failure = exc if isinstance(exc, AllocationError | StartError) else None
                    raise
        if self.allocation is None:
            raise self._failure or AllocationError("no Slurm allocation")
        return self.allocation

    async def _open(self) -> None:
        self._start_reaper()
        found = await alloc.acquire(self.setup, self.notify, self.environ)
        if found.ours:
            self._tell_reaper(f"job {found.job_id}")
        callback = Callback(self.lookup, bind=self.setup.callback_address)
        try:
            await callback.start()
        except OSError as exc:
            await alloc.release(found, self.setup.conf)
            raise AllocationError(f"cannot listen for the Slurm tasks' connections: {exc.strerror or exc}") from None
        self.callback = callback
        self.allocation = found
        if self.notify is not None:
            slots = found.slot_map(self.setup.slots)
            mapped = ", ".join(f"{slot}={node}" for slot, node in slots.items())
            self.notify(f"slurm: {found.how}; {mapped}")

    def _start_reaper(self) -> None:
        with contextlib.suppress(OSError):
            self._reaper = subprocess.Popen([sys.executable, "-I", "-S", reaper.__file__], stdin=subprocess.PIPE,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            start_new_session=True, close_fds=True, env=client_env(self.setup.conf))

    def _tell_reaper(self, line: str) -> None:
        if self._reaper is not None and self._reaper.stdin is not None:
            with contextlib.suppress(OSError, ValueError):
                self._reaper.stdin.write(line.encode() + b"\n")
                self._reaper.stdin.flush()

    # --- transports and starts -----------------------------------------------------------------

    def transport(self, slot: str) -> SlurmNodeTransport:
        if slot not in self._transports:
            self._transports[slot] = SlurmNodeTransport(slot, self)
        return self._transports[slot]

    def lookup(self, key: str) -> Step | None:
        return self.steps.get(key)

    async def start(self, slot: str, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
                    cwd: str | None = None, stdin: bool = False, grace_s: float = 2.0) -> TaskProcess:
        """Start ``argv`` on the node of ``slot`` as a task of the current run's step."""
        if self._closed:
            raise StartError(f"{slot}: the scenario run's Slurm launcher is closed")
        if not argv:
            raise StartError("empty argv")
        try:
            allocation = await self.ensure()
        except AllocationError as exc:
            raise StartError(str(exc)) from None
        node = allocation.node_of(slot)
        if node is None:
            raise StartError(f"{slot}: the allocation (job {allocation.job_id}) has {len(allocation.nodes)} node(s)")
        if node in self.lost_nodes:  # a step naming it would fail for every node of the run
            raise StartError(f"{slot} (node {node}): the node failed earlier in this scenario run "
                             f"({self.lost_nodes[node]}); job {allocation.job_id} goes on without it")
        request = Request(slot, node, list(argv), env=env, cwd=cwd, stdin=stdin, grace_s=grace_s)
        # the run's own programs and the helpers around them (checks, builds, uploads) make separate steps:
        # the failure policy is for the former
        key = (launch_group.get(), run_program.get())
        batch = self._batches.get(key)
        loop = asyncio.get_running_loop()
        if batch is None:
            batch = self._batches[key] = _Batch()
        batch.requests.append(request)
        if batch.timer is not None:
            batch.timer.cancel()
        wait = min(BATCH_WINDOW_S, max(0.0, batch.first + BATCH_MAX_S - loop.time()))
        batch.timer = loop.call_later(wait, self._flush, key)
        return await request.done

    def _flush(self, key: tuple[str, bool]) -> None:
        batch = self._batches.pop(key, None)
        if batch is None or not batch.requests:
            return
        self._count += 1
        group, principal = key
        step = Step(self, f"s{self._count}", group, batch.requests, principal=principal)
        self.steps[step.key] = step
        task = asyncio.ensure_future(step.launch())
        task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    def node_lost(self, node: str, why: str) -> None:
        """A node failed under a step: later starts on it fail at once (the job, --no-kill, lives on)."""
        self.lost_nodes.setdefault(node, why)

    def step_known(self, step: Step) -> None:
        self._tell_reaper(f"step {step.jobstep}")

    def step_ended(self, step: Step) -> None:
        if step.jobstep:
            self._tell_reaper(f"done {step.jobstep}")
        self.steps.pop(step.key, None)
        self.finished.append(step)
        del self.finished[:-64]

    # --- the end -------------------------------------------------------------------------------

    async def close(self) -> None:
        """Stop every task still running, cancel their steps, release an allocation gftpwb asked for."""
        self._closed = True
        for batch in self._batches.values():
            if batch.timer is not None:
                batch.timer.cancel()
            for request in batch.requests:
                if not request.done.done():
                    request.done.set_exception(StartError(f"{request.slot}: the scenario run ended"))
        self._batches.clear()
        await asyncio.gather(*(step.close() for step in list(self.steps.values())), return_exceptions=True)
        if self.callback is not None:
            await self.callback.close()
        if self.allocation is not None:
            await alloc.release(self.allocation, self.setup.conf)
            if self.allocation.ours:
                self._tell_reaper(f"done {self.allocation.job_id}")
        if self._reaper is not None:
            with contextlib.suppress(OSError, ValueError):
                if self._reaper.stdin is not None:
                    self._reaper.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                await asyncio.to_thread(self._reaper.wait, 30)

    @property
    def environment(self) -> dict[str, object]:
        """What meta.json records of the allocation."""
        if self.allocation is None:
            return {}
        return {"job": self.allocation.job_id, "how": self.allocation.how,
                "nodes": self.allocation.slot_map(self.setup.slots), "on_failure": self.setup.on_failure,
                "conf": self.setup.conf or os.environ.get("SLURM_CONF", "")}
