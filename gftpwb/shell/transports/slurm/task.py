"""One task of a job step as a :class:`~gftpwb.core.transport.Process`: its output and input over its
own connections, its exit status from its wrapper, its stop through its wrapper.

A task whose wrapper ends without an exit status (srun killed it: the step was cancelled, its node
failed) gets its verdict from what srun said (:meth:`Step.verdict`): ``wait()`` then raises
:class:`~gftpwb.core.transport.ProcessLost` with the node and why, which a run records as its failure.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from gftpwb.core.slurm.wire import STOP, Hello, launch_words, parse_control
from gftpwb.core.transport import ProcessLost, StartError

CHUNK = 65536
STREAMS_WAIT_S = 30.0  # after `started`, the output connections are at most this far behind
STOP_SLACK_S = 3.0  # beyond the grace, before a task that does not end is cut loose


class TaskOwner(Protocol):
    """What a task asks of its step (:class:`~.step.Step`)."""

    async def verdict(self, task: TaskProcess, status: int | None = None) -> None: ...

    async def cut_loose(self, task: TaskProcess) -> None: ...


@dataclass
class Request:
    """A start asked of the launcher: argv on the node of ``slot``."""

    slot: str
    node: str
    argv: Sequence[str]
    env: Mapping[str, str] | None = None
    cwd: str | None = None
    stdin: bool = False
    grace_s: float = 2.0
    done: asyncio.Future[TaskProcess] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class TaskProcess:
    """A started task (see the module docstring)."""

    read_pause = None  # chunks arrive as the task writes them; nothing to pause

    def __init__(self, step: TaskOwner, index: int, request: Request):
        loop = asyncio.get_running_loop()
        self.step = step
        self.index = index
        self.request = request
        self.slot = request.slot
        self.node = request.node
        self.jobstep = ""
        self.pgid = 0
        self.started: asyncio.Future[int] = loop.create_future()
        self.exited: asyncio.Future[int] = loop.create_future()
        self.stopping = False
        self._ctl: asyncio.StreamWriter | None = None
        self._ctl_reader: asyncio.Task[None] | None = None
        self._readers: dict[str, asyncio.StreamReader] = {}
        self._writers: dict[str, asyncio.StreamWriter] = {}
        self._arrived = {"out": asyncio.Event(), "err": asyncio.Event()}
        self._changed = asyncio.Event()  # a connection arrived, or the task ended
        for future in (self.started, self.exited):
            future.add_done_callback(_consume)

    @property
    def where(self) -> str:
        step = f"step {self.jobstep}" if self.jobstep else "its step"
        return f"{self.slot} (node {self.node}, task {self.index} of {step})"

    # --- the connections, as they arrive -----------------------------------------------------------

    def attach(self, hello: Hello, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        channel = hello.channel
        if channel == "ctl":
            if self._ctl is not None or self.exited.done():
                return False
            self._ctl = writer
            self.jobstep = hello.jobstep
            if hello.node and hello.node != self.node:
                self.node = hello.node  # what the node calls itself (Slurm placed the task there)
            request = self.request
            writer.write(launch_words(request.argv, env=request.env, cwd=request.cwd, stdin=request.stdin,
                                      grace_s=request.grace_s))
            self._ctl_reader = asyncio.create_task(self._read_ctl(reader))
            return True
        if channel in self._readers or (self.exited.done() and self.exited.exception() is not None):
            return False  # twice, or for a task given up: a quick program may exit before its streams attach
        self._readers[channel] = reader
        self._writers[channel] = writer
        self._arrived[channel].set()
        self._changed.set()
        return True

    async def _read_ctl(self, reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError, ValueError):
            while True:
                line = await reader.readline()
                if not line:
                    break
                message = parse_control(line)
                if message is None:
                    continue
                if message.what == "started":
                    self.pgid = int(message.value)
                    if not self.started.done():
                        self.started.set_result(self.pgid)
                elif message.what == "error":
                    self.fail_start(message.value)
                elif message.what == "exit":
                    status = int(message.value)
                    if status > 128 and not self.stopping:  # a signal we did not send: the step's, or the node's
                        await self.step.verdict(self, status)
                    self._finish(status)
        if not self.exited.done():
            await self.step.verdict(self)  # the wrapper died without a word: srun says why

    # --- what the step decides ---------------------------------------------------------------------

    def fail_start(self, why: str) -> None:
        if not self.started.done():
            self.started.set_exception(StartError(f"{self.slot} (node {self.node}): {why}"))
        self._end(ProcessLost(f"{self.where}: {why}"))

    def _finish(self, status: int) -> None:
        if not self.exited.done():
            self.exited.set_result(status)
        self._changed.set()

    def lose(self, why: str) -> None:
        """The task is gone without an exit status (``why`` names its node and the reason)."""
        if not self.started.done():
            self.started.set_exception(StartError(f"{self.slot} (node {self.node}): {why}"))
        self._end(ProcessLost(f"{self.where}: {why}"))

    def ended_by_signal(self, status: int) -> None:
        """Ended by our own stop (srun reported the signal): an exit status like a shell's, 128 + signal."""
        if not self.started.done():
            self.started.set_exception(StartError(f"{self.slot} (node {self.node}): stopped before it started"))
        if not self.exited.done():
            self.exited.set_result(status)
        self._drop_streams()

    def _end(self, exc: BaseException) -> None:
        if not self.exited.done():
            self.exited.set_exception(exc)
        self._drop_streams()

    def _drop_streams(self) -> None:
        self._changed.set()
        for name, event in self._arrived.items():
            event.set()
            reader = self._readers.get(name)
            if reader is not None and not reader.at_eof():
                reader.feed_eof()
        self._close_connections()

    def _close_connections(self) -> None:
        for writer in [*self._writers.values(), *([self._ctl] if self._ctl is not None else [])]:
            with contextlib.suppress(Exception):
                writer.close()

    # --- Process -----------------------------------------------------------------------------------

    async def _streams(self) -> None:
        """Wait for both output connections (or the task's end without them: it never started, or
        was lost); a normal exit may come before they are attached, so it does not end the wait."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STREAMS_WAIT_S
        while not all(e.is_set() for e in self._arrived.values()):
            if self.exited.done() and (self.exited.cancelled() or self.exited.exception() is not None):
                return
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                self.lose("its output connections never arrived")
                return

    async def output(self) -> AsyncIterator[tuple[str, bytes]]:
        await self._streams()
        queue: asyncio.Queue[tuple[str, bytes] | BaseException | None] = asyncio.Queue()

        async def pump(name: str) -> None:
            reader = self._readers.get("out" if name == "stdout" else "err")
            try:
                while reader is not None:
                    data = await reader.read(CHUNK)
                    if not data:
                        break
                    await queue.put((name, data))
            except (OSError, ConnectionError) as exc:
                await queue.put(ProcessLost(f"{self.where}: its {name} connection broke: {exc}"))
            finally:
                await queue.put(None)

        tasks = [asyncio.create_task(pump("stdout")), asyncio.create_task(pump("stderr"))]
        open_streams = len(tasks)
        try:
            while open_streams:
                item = await queue.get()
                if item is None:
                    open_streams -= 1
                elif isinstance(item, BaseException):
                    raise item
                else:
                    yield item
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        if self.exited.done() and self.exited.exception() is not None:
            raise self.exited.exception()  # type: ignore[misc]

    async def wait(self) -> int:
        return await asyncio.shield(self.exited)

    async def write(self, data: bytes) -> None:
        if not self.request.stdin:
            raise RuntimeError("process was started without stdin=True")
        await self._arrived["out"].wait()
        writer = self._writers.get("out")
        if writer is None or writer.is_closing():
            raise BrokenPipeError(f"{self.where}: its input is closed")
        writer.write(data)
        await writer.drain()

    async def close_stdin(self) -> None:
        writer = self._writers.get("out")
        if writer is not None and not writer.is_closing() and writer.can_write_eof():
            with contextlib.suppress(OSError, RuntimeError):
                writer.write_eof()

    async def stop(self, grace: float = 2.0) -> None:
        """SIGTERM the program's process group through its wrapper, SIGKILL after ``grace``; a task
        whose wrapper does not answer is cut loose (its connections closed: the wrapper kills the
        group when it notices) and, once no task of its step is left, the step is cancelled."""
        self.stopping = True
        if self.exited.done():
            return
        if self._ctl is not None and not self._ctl.is_closing():
            with contextlib.suppress(OSError, RuntimeError):
                self._ctl.write(STOP)
        with contextlib.suppress(TimeoutError, ProcessLost):
            await asyncio.wait_for(asyncio.shield(self.exited), grace + STOP_SLACK_S)
        if not self.exited.done():
            self._close_connections()
            await self.step.cut_loose(self)

    async def close(self) -> None:
        """At the end of the scenario run: nothing of this task may be left."""
        if not self.exited.done():
            await self.stop(self.request.grace_s)
        if self._ctl_reader is not None and not self._ctl_reader.done():
            self._ctl_reader.cancel()
        self._close_connections()


def _consume(future: asyncio.Future) -> None:  # type: ignore[type-arg]
    """Mark a future's exception as seen (a task nobody waits for must not log 'never retrieved')."""
    if not future.cancelled():
        future.exception()
