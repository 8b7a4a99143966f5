"""Helpers for tests that run the real gfapi worker: build it once, drive it, read what it says."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import threading
from pathlib import Path

from gftpwb.kinds.gfapi.job import WORKER_NAME
from gftpwb.kinds.gfapi.protocol import Message, WorkerStream
from gftpwb.kinds.gfapi.run.worker_build import WorkerBuilder
from gftpwb.shell.transports.local import LocalTransport

_built: dict[str, str] = {}


def worker_binary() -> str:
    """The real worker, built by the project's builder into the session's cache (see conftest)."""
    if "path" not in _built:
        _built["path"] = asyncio.run(WorkerBuilder().ensure(LocalTransport(), "local", need_gfapi=True))
    return _built["path"]


def run_worker(args: list[str], commands: str = "start 0\n", *, close_stdin: bool = False,
               timeout: float = 120) -> tuple[int, list[Message]]:
    """Run the worker with ``args`` and write ``commands``; stdin stays open until it exits unless
    ``close_stdin`` (closing it tells the worker the controller is gone)."""
    proc = subprocess.Popen([worker_binary(), *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        proc.stdin.write(commands.encode())
        proc.stdin.flush()
        if close_stdin:
            proc.stdin.close()
    except BrokenPipeError:
        pass  # it exited already (a usage error): its output says why
    chunks: dict[str, bytes] = {}
    readers = [threading.Thread(target=lambda n=n, p=p: chunks.__setitem__(n, p.read()))
               for n, p in (("stdout", proc.stdout), ("stderr", proc.stderr))]
    for reader in readers:
        reader.start()
    try:
        proc.wait(timeout=timeout)
    finally:
        proc.kill()
        for reader in readers:
            reader.join(timeout)
        with contextlib.suppress(BrokenPipeError):
            proc.stdin.close()
    stream = WorkerStream()
    messages = stream.feed("stdout", chunks.get("stdout", b"")) + stream.feed("stderr", chunks.get("stderr", b""))
    return proc.returncode, messages + stream.close()


def files_under(path: Path) -> dict[str, int]:
    return {str(p.relative_to(path)): p.stat().st_size for p in sorted(path.rglob("*")) if p.is_file()}


def worker_pids(marker: str) -> list[int]:
    """Pids of our workers whose argv contains ``marker`` (e.g. a directory unique to the test)."""
    pids = []
    binary = WORKER_NAME.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                argv = handle.read().split(b"\0")
        except OSError:
            continue
        if argv and os.path.basename(argv[0]).startswith(binary) and marker.encode() in argv:
            pids.append(int(entry))
    return pids
