"""Where the tgftp drop-in writes: the terminal for a command line, nowhere for a batch's executions."""

from __future__ import annotations

import sys


class Screen:
    """Where the drop-in writes. A command line writes to the terminal; a batch execution writes
    nowhere (tgftp ran its children with ``&>/dev/null``). The post command's output is held back
    until the rate line is out, because tgftp ran the post command after printing the rate."""

    def __init__(self, quiet: bool = False):
        self.quiet = quiet
        self._held: list[tuple[str, bytes]] = []

    def out(self, text: str = "", end: str = "\n") -> None:
        if not self.quiet:
            sys.stdout.write(text + end)
            sys.stdout.flush()

    def err(self, text: str) -> None:
        if not self.quiet:
            print(text, file=sys.stderr, flush=True)

    def raw(self, role: str, stream: str, data: bytes) -> None:
        """A chunk of a program's output: guc's (both streams went through tgftp's FIFO and tee to
        stdout), the pre and post commands' (on stdout and stderr as they wrote them)."""
        if self.quiet or role == "comment_command":
            return
        if role == "post":
            self._held.append((stream, data))
            return
        target = sys.stderr if stream == "stderr" and role != "transfer" else sys.stdout
        target.flush()
        target.buffer.write(data)
        target.buffer.flush()

    def release(self) -> None:
        for stream, data in self._held:
            self.raw("release", stream, data)
        self._held.clear()
