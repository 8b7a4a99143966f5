"""The transport protocol: how runners start processes on a host and read their output.

Only the contract lives here (no I/O): :mod:`gftpwb.shell.transports` has this machine's transport
(``local``), the SSH one, and a scripted one for tests (``ScriptedTransport``, like httpx's
``MockTransport``). Everything a runner does with a host goes through these methods; nothing asks
which transport it got.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Protocol

from gftpwb.core.clockoffset import ClockOffset


class StartError(Exception):
    """The process could not be started (program missing, not executable, host unreachable)."""


class ProcessLost(Exception):
    """The connection to a running process was lost (a remote host dropped out); raised by
    ``output()`` or ``wait()``. The text says which host and why; the run fails with it."""


#: ``(stream, chunk) -> seconds``: after reading ``chunk``, how long the caller would let that stream's
#: output gather before the next read (0: read on at once). See :attr:`Process.read_pause`.
ReadPause = Callable[[str, bytes], float]


class Process(Protocol):
    """A started program: its output as it arrives, its exit status, and how to stop it."""

    #: A hint from a caller that does not need every small write as it happens (guc's per-buffer
    #: ``-dbg`` lines): a transport that honours it reads a stream again only after the pause, or
    #: when the process exits, so several writes cost one wake-up; one that cannot ignores it.
    read_pause: ReadPause | None

    def output(self) -> AsyncIterator[tuple[str, bytes]]:
        """``("stdout" | "stderr", bytes)`` chunks as they arrive (no line buffering: guc's progress
        ends in ``\\r``), until both streams end."""

    async def wait(self) -> int:
        """The exit status (negative: killed by that signal)."""

    async def stop(self, grace: float = 2.0) -> None:
        """End the whole process group: politely, then after ``grace`` seconds with SIGKILL."""

    async def write(self, data: bytes) -> None:
        """Write to the process's stdin (only when started with ``stdin=True``)."""

    async def close_stdin(self) -> None:
        """Close its stdin (end of input)."""


class Transport(Protocol):
    """Starts programs on one host (``name``) and copies files there."""

    name: str

    async def prepare(self) -> None:
        """Get ready to start at once (connect and log in, for a remote host), so runs of a group
        that start together are not held up by one host's handshake; errors surface at ``start``."""

    async def start(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None,
                    cwd: str | None = None, stdin: bool = False) -> Process:
        """Start ``argv`` (never through a shell); ``stdin=True`` keeps a pipe to its stdin open.
        Raises :class:`StartError` when it cannot be started."""

    async def upload(self, local_path: str, remote_path: str) -> bool:
        """Copy a file to this host atomically (temp name + rename); False when an identical file
        was already there, so nothing was copied."""

    async def clock_offset(self) -> ClockOffset:
        """This host's clock minus the controller's (``clockoffset.ZERO`` for this machine itself),
        measured now."""

    async def close(self) -> None:
        """Stop what still runs and release connections."""
