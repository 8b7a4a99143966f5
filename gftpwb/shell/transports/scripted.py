"""A transport whose processes do what a script says, for fast tests (like httpx's ``MockTransport``).

The handler gets each :class:`Call` (argv, environment, directory, whether stdin is kept open, host)
and returns the :class:`Script` the process plays: chunks of output on stdout or stderr, an exit
status, optionally a pause between chunks, or a hang until it is stopped. It may raise
:class:`~gftpwb.core.transport.StartError` instead, as a missing program would. Everything goes through
the public transport protocol, so runners, the executor and the session meet it exactly as they meet
the local or the SSH transport::

    def guc(call: Call) -> Script:
        return Script.of(stdout=" 1048576 bytes 10.00 MB/sec avg 10.00 MB/sec inst\\r", exit_code=0)

    executor = Executor(bus, transport_for=lambda host: ScriptedTransport(guc, name=host))
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field

from gftpwb.core.clockoffset import ZERO, ClockOffset


@dataclass(frozen=True)
class Call:
    """One ``start()``: what was asked, and of which host."""

    argv: tuple[str, ...]
    env: Mapping[str, str] | None
    cwd: str | None
    stdin: bool
    host: str


@dataclass(frozen=True)
class Script:
    """What a scripted process does: write ``chunks`` (``("stdout" | "stderr", bytes)``), ``delay_s``
    apart, then exit with ``exit_code``; with ``hang`` it waits after its chunks until stopped."""

    chunks: Sequence[tuple[str, bytes]] = ()
    exit_code: int = 0
    delay_s: float = 0.0
    hang: bool = False

    @classmethod
    def of(cls, stdout: str | bytes = b"", stderr: str | bytes = b"", exit_code: int = 0, *,
           delay_s: float = 0.0, hang: bool = False) -> Script:
        """One chunk of stdout then one of stderr (those that are not empty)."""
        data = [(name, text.encode() if isinstance(text, str) else text) for name, text in
                (("stdout", stdout), ("stderr", stderr))]
        return cls(tuple((name, chunk) for name, chunk in data if chunk), exit_code, delay_s, hang)


Handler = Callable[[Call], Script]


class ScriptedProcess:
    read_pause = None  # the hint of Process.read_pause is not honoured here: every chunk is read at once

    def __init__(self, script: Script):
        self.script = script
        self.stdin: list[bytes] = []  # what was written to it
        self.stdin_closed = False
        self.stopped = False
        self._stop = asyncio.Event()
        self._exit: int | None = None

    async def output(self) -> AsyncIterator[tuple[str, bytes]]:
        for index, chunk in enumerate(self.script.chunks):
            if self.stopped:
                return
            if index and self.script.delay_s:
                await self._pause(self.script.delay_s)
                if self.stopped:
                    return
            yield chunk
        if self.script.hang:
            await self._stop.wait()

    async def _pause(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop.wait(), seconds)

    async def wait(self) -> int:
        if self.script.hang and not self.stopped:
            await self._stop.wait()
        if self._exit is None:
            self._exit = -signal.SIGTERM if self.stopped else self.script.exit_code
        return self._exit

    async def stop(self, grace: float = 2.0) -> None:
        if self._exit is None:
            self.stopped = True
            self._stop.set()

    async def write(self, data: bytes) -> None:
        self.stdin.append(data)

    async def close_stdin(self) -> None:
        self.stdin_closed = True


@dataclass
class ScriptedTransport:
    """Plays ``handler``'s scripts; records every call, upload and ``prepare()``."""

    handler: Handler
    name: str = "local"
    clock: ClockOffset = ZERO
    calls: list[Call] = field(default_factory=list)
    processes: list[ScriptedProcess] = field(default_factory=list)
    uploads: list[tuple[str, str]] = field(default_factory=list)
    prepared: int = 0

    async def prepare(self) -> None:
        self.prepared += 1

    async def start(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: str | None = None,
                    stdin: bool = False) -> ScriptedProcess:
        call = Call(tuple(argv), env, cwd, stdin, self.name)
        self.calls.append(call)
        process = ScriptedProcess(self.handler(call))  # a StartError from the handler propagates
        self.processes.append(process)
        return process

    async def upload(self, local_path: str, remote_path: str) -> bool:
        self.uploads.append((local_path, remote_path))
        return True

    async def clock_offset(self) -> ClockOffset:
        return self.clock

    async def close(self) -> None:
        for process in self.processes:
            await process.stop()
