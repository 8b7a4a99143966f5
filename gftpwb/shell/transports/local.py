"""This machine's transport (see :mod:`gftpwb.core.transport` for the protocol): programs run as
argv lists in their own session, so ``stop()`` ends the whole process group, first politely, then
with SIGKILL, and carry the token of this process's watchdog (:mod:`.watchdog`), which ends them
if gftpwb dies without doing so itself."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping, Sequence

from gftpwb.core.clockoffset import ZERO, ClockOffset
from gftpwb.core.transport import ReadPause, StartError

from . import watchdog
from .pumps import Put, merged_output

CHUNK = 65536
WATCHDOG_GRACE_S = 2.0

_watchdog: tuple[subprocess.Popen[bytes], str] | None = None


def owner_env() -> dict[str, str]:
    """``{GFTPWB_OWNER: token}`` for a local child, starting this process's watchdog the first time
    (and again if it died, or after a fork)."""
    global _watchdog
    if _watchdog is not None and (_watchdog[0].poll() is not None or not _watchdog[1].startswith(f"{os.getpid()}-")):
        _watchdog = None
    if _watchdog is None:
        token = f"{os.getpid()}-{secrets.token_hex(8)}"
        proc = subprocess.Popen(
            [sys.executable, "-I", "-S", watchdog.__file__, token, str(WATCHDOG_GRACE_S)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, close_fds=True)
        _watchdog = (proc, token)
    return {watchdog.ENV_NAME: _watchdog[1]}


class LocalProcess:
    """A child process in its own session, so its whole process group can be killed at once."""

    def __init__(self, proc: asyncio.subprocess.Process):
        self._proc = proc
        self.pid = proc.pid
        self.read_pause: ReadPause | None = None
        self._exited: asyncio.Future[None] | None = None

    def _exit_watch(self) -> asyncio.Future[None] | None:
        """A future done when the process exits, from a pidfd in the event loop (not ``wait()``, which
        also waits for the pipes to close, and a paused pipe is not seen closing); None without pidfds."""
        if self._exited is None:
            loop = asyncio.get_running_loop()
            try:
                fd = os.pidfd_open(self.pid)
            except (AttributeError, OSError):
                return None
            exited: asyncio.Future[None] = loop.create_future()

            def done() -> None:
                loop.remove_reader(fd)
                os.close(fd)
                if not exited.done():
                    exited.set_result(None)

            loop.add_reader(fd, done)
            exited.add_done_callback(lambda _: done() if exited.cancelled() else None)
            self._exited = exited
        return self._exited

    async def _pause(self, name: str, seconds: float) -> None:
        """Let ``name``'s output gather in its pipe for ``seconds``, or until the process exits (so its
        end is seen at once). The pipe is not polled meanwhile: every write would wake the loop."""
        exited = self._exit_watch()
        # asyncio.subprocess.Process does not hand out its pipes' transports (hence _transport)
        subprocess_transport = getattr(self._proc, "_transport", None)
        pipe = subprocess_transport.get_pipe_transport(1 if name == "stdout" else 2) if subprocess_transport else None
        if exited is None or pipe is None:
            return  # nothing to end a pause at the exit, or nothing to pause: read on at once
        if exited.done():
            return
        loop = asyncio.get_running_loop()
        woken: asyncio.Future[None] = loop.create_future()

        def wake(_: object = None) -> None:
            if not woken.done():
                woken.set_result(None)

        timer = loop.call_later(seconds, wake)  # lighter than asyncio.wait(timeout=): no task, no waiter set
        exited.add_done_callback(wake)
        pipe.pause_reading()
        try:
            await woken
        finally:
            timer.cancel()
            exited.remove_done_callback(wake)
            pipe.resume_reading()

    async def output(self) -> AsyncIterator[tuple[str, bytes]]:
        streams = {"stdout": self._proc.stdout, "stderr": self._proc.stderr}
        try:
            async with contextlib.aclosing(merged_output(streams, self._pump)) as items:
                async for item in items:
                    yield item
        finally:
            if self._exited is not None and not self._exited.done():
                self._exited.cancel()

    async def _pump(self, name: str, reader: asyncio.StreamReader | None, put: Put) -> None:
        while reader is not None:
            data = await reader.read(CHUNK)
            if not data:
                break
            await put((name, data))
            pause = self.read_pause(name, data) if self.read_pause is not None else 0.0
            if pause > 0:
                await self._pause(name, pause)

    async def wait(self) -> int:
        return await self._proc.wait()

    async def write(self, data: bytes) -> None:
        if self._proc.stdin is None:
            raise RuntimeError("process was started without stdin=True")
        self._proc.stdin.write(data)
        await self._proc.stdin.drain()

    async def close_stdin(self) -> None:
        if self._proc.stdin is not None and not self._proc.stdin.is_closing():
            self._proc.stdin.close()

    def _signal_group(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)

    async def stop(self, grace: float = 2.0) -> None:
        """SIGTERM the process group, wait up to ``grace`` seconds, then SIGKILL what is left; the
        SIGKILL is sent even when this is cancelled during the grace (Ctrl-C again, the loop closing)."""
        self._signal_group(signal.SIGTERM)
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._proc.wait(), grace)
        finally:
            # Children that outlived the leader keep the group alive: kill them too.
            self._signal_group(signal.SIGKILL)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._proc.wait(), grace)


class LocalTransport:
    """Runs argv lists on this machine, never through a shell."""

    name = "local"

    async def prepare(self) -> None:
        return None

    async def clock_offset(self) -> ClockOffset:
        return ZERO  # the controller's own clock

    async def start(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
                    cwd: str | None = None, stdin: bool = False) -> LocalProcess:
        launched = launched_program(argv)
        if launched and shutil.which(launched, path=(env or {}).get("PATH", os.environ.get("PATH"))) is None:
            raise StartError(f"{launched}: command not found")  # not "stdbuf: failed to run command ..."
        full_env = {**os.environ, **(env or {}), **owner_env()}
        stdin_mode = asyncio.subprocess.PIPE if stdin else asyncio.subprocess.DEVNULL
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, stdin=stdin_mode, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, start_new_session=True, env=full_env, cwd=cwd)
        except FileNotFoundError:
            raise StartError(f"{argv[0]}: command not found") from None
        except PermissionError:
            raise StartError(f"{argv[0]}: permission denied") from None
        except OSError as exc:
            raise StartError(f"{argv[0]}: cannot start: {exc.strerror or exc}") from None
        return LocalProcess(proc)

    async def upload(self, local_path: str, remote_path: str) -> bool:
        return await asyncio.to_thread(copy_if_changed, local_path, remote_path)

    async def close(self) -> None:
        return None


def launched_program(argv: Sequence[str]) -> str | None:
    """The program ``stdbuf`` is asked to run in ``argv`` (its first word not an option), else None."""
    if not argv or os.path.basename(argv[0]) != "stdbuf":
        return None
    return next((word for word in argv[1:] if not word.startswith("-")), None)


def file_sha256(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except FileNotFoundError:
        return None


def copy_if_changed(source: str, destination: str) -> bool:
    """Copy ``source`` to ``destination`` via a temporary name and rename, keeping its mode;
    skip (and return False) when the destination already has the same content."""
    if file_sha256(source) == file_sha256(destination):
        return False
    os.makedirs(os.path.dirname(os.path.abspath(destination)), exist_ok=True)
    tmp = f"{destination}.tmp-{os.getpid()}"
    shutil.copy2(source, tmp)
    os.replace(tmp, destination)
    return True
