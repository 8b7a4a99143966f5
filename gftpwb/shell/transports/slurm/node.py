"""One node slot of the allocation as a :class:`~gftpwb.core.transport.Transport`: what runners use,
exactly as they use the local or an SSH transport. Starts go through the scenario run's launcher
(one job step per run); the clock offset and uploads are tasks like any other."""

from __future__ import annotations

import asyncio
import hashlib
import os
import shlex
import time
from collections.abc import Mapping, Sequence
from typing import Protocol

from gftpwb.core.clockoffset import ClockOffset, ClockSample, estimate_offset, parse_remote_time
from gftpwb.core.slurm.model import SHARED, SlurmSetup
from gftpwb.core.transport import ProcessLost, StartError

from ..local import file_sha256
from .allocation import Allocation
from .task import TaskProcess

CLOCK_SAMPLES = 8
CLOCK_TIMEOUT_S = 20.0
# A node's offset is measured again after this long (a job step each time: on Slurm a measurement costs
# a launch, over SSH only a round trip on an open connection); disciplined clocks drift well under 1 ms
# in a minute.
CLOCK_REUSE_S = 60.0
# Answers each line on stdin with the node's wall clock (bash's $EPOCHREALTIME: no fork per answer).
CLOCK_SERVER = ["bash", "--noprofile", "--norc", "-c", 'while IFS= read -r _; do echo "$EPOCHREALTIME"; done',
                "gftpwb-clock"]
# $1 destination, $2 mode: the file arrives on stdin, goes to a temporary name, then is renamed.
RECEIVE = ('dest=$1 mode=$2 tmp="$1.tmp-$$"; mkdir -p -- "$(dirname -- "$dest")" && cat > "$tmp" && chmod "$mode" '
           '"$tmp" && mv -f -- "$tmp" "$dest" || { rm -f -- "$tmp"; exit 1; }')


class NodeLauncher(Protocol):
    """What a node's transport needs of the launcher (:class:`~.launcher.SlurmLauncher`)."""

    setup: SlurmSetup
    allocation: Allocation | None

    async def ensure(self) -> Allocation: ...

    async def start(self, slot: str, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
                    cwd: str | None = None, stdin: bool = False, grace_s: float = 2.0) -> TaskProcess: ...


class SlurmNodeTransport:
    """The transport of one slot (``node3``); see the module docstring."""

    def __init__(self, name: str, launcher: NodeLauncher):
        self.name = name
        self.launcher = launcher
        self._clock: tuple[float, ClockOffset] | None = None  # (monotonic when measured, offset)

    @property
    def build_scope(self) -> str | None:
        """Programs built for one node serve every node (``slurm: build: shared``): the builder builds
        once per scope. None: this node builds its own."""
        if self.launcher.setup.build != SHARED:
            return None
        allocation = self.launcher.allocation
        return f"slurm:{allocation.job_id if allocation else ''}"

    async def prepare(self) -> None:
        await self.launcher.ensure()

    async def start(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
                    cwd: str | None = None, stdin: bool = False) -> TaskProcess:
        return await self.launcher.start(self.name, argv, env=env, cwd=cwd, stdin=stdin)

    async def clock_offset(self) -> ClockOffset:
        """NTP-style samples over the task's own connection; the shortest round trip wins. Reused for
        :data:`CLOCK_REUSE_S`."""
        if self._clock is not None and time.monotonic() - self._clock[0] < CLOCK_REUSE_S:
            return self._clock[1]
        offset = await self._measure_clock()
        self._clock = (time.monotonic(), offset)
        return offset

    async def _measure_clock(self) -> ClockOffset:
        proc = await self.start(CLOCK_SERVER, stdin=True)
        taken: list[ClockSample] = []
        chunks = proc.output().__aiter__()
        pending = b""
        try:
            async with asyncio.timeout(CLOCK_TIMEOUT_S):
                for _ in range(CLOCK_SAMPLES):
                    sent = time.time()
                    await proc.write(b"\n")
                    while b"\n" not in pending:
                        stream, data = await chunks.__anext__()
                        if stream == "stdout":
                            pending += data
                    received = time.time()
                    line, _, pending = pending.partition(b"\n")
                    taken.append(ClockSample(sent, parse_remote_time(line.decode("ascii", "replace")), received))
        except StopAsyncIteration:
            pass
        finally:
            await proc.close_stdin()
            await proc.stop(1.0)
            await chunks.aclose()
        return estimate_offset(taken)

    async def _run(self, argv: Sequence[str], data: bytes | None = None) -> tuple[int, bytes]:
        proc = await self.start(argv, stdin=data is not None)
        if data is not None:
            await proc.write(data)
            await proc.close_stdin()
        out = bytearray()
        async for stream, chunk in proc.output():
            if stream == "stdout":
                out += chunk
        return await proc.wait(), bytes(out)

    async def upload(self, local_path: str, remote_path: str) -> bool:
        """Copy a file to the node through a task (no shared file system needed); False when an
        identical file is there already."""
        digest = file_sha256(local_path) or hashlib.sha256(b"").hexdigest()
        try:
            code, out = await self._run(["sha256sum", "--", remote_path])
            if code == 0 and out.split(b" ", 1)[0].decode("ascii", "replace") == digest:
                return False
            with open(local_path, "rb") as handle:
                data = handle.read()
            mode = oct(os.stat(local_path).st_mode & 0o777)[2:]
            code, _ = await self._run(["sh", "-c", RECEIVE, "gftpwb-receive", remote_path, mode], data)
        except (StartError, ProcessLost) as exc:
            raise OSError(f"{self.name}: {exc}") from None
        if code != 0:
            raise OSError(f"{self.name}: cannot write {shlex.quote(remote_path)} (exit status {code})")
        return True

    async def close(self) -> None:
        """Tasks belong to the launcher; ``SlurmLauncher.close()`` ends them."""
        return None
