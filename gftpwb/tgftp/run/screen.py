"""Where the tgftp drop-in writes: the terminal for a command line, nowhere for a batch's executions."""

from __future__ import annotations

import sys
from collections.abc import Callable

from gftpwb.core.masking import mask_text

Tee = Callable[[str, str, bytes], None]


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


class MaskingTee:
    """Program output on its way to the screen with passwords in URLs masked (guc -vb prints
    ``Source: ftp://user:pw@host/``), as gftpwb masks everything else it shows. Output is passed on a
    line at a time (up to a newline or carriage return, so guc's progress still shows as it comes): a
    URL split over two pipe reads is masked whole. What is left without an end of line is passed on
    by :meth:`flush`, which the drop-in calls when the run ends. Bytes that are not UTF-8 pass through
    unchanged (surrogateescape)."""

    LONGEST_HELD = 65536  # a "line" longer than this is passed on as it is, masked as far as it goes

    def __init__(self, write: Tee):
        self.write = write
        self._pending: dict[tuple[str, str], bytes] = {}

    def __call__(self, role: str, stream: str, data: bytes) -> None:
        key = (role, stream)
        text = self._pending.pop(key, b"") + data
        cut = max(text.rfind(b"\n"), text.rfind(b"\r"))
        if cut < 0 and len(text) < self.LONGEST_HELD:
            self._pending[key] = text
            return
        head, rest = (text, b"") if cut < 0 else (text[:cut + 1], text[cut + 1:])
        if rest:
            self._pending[key] = rest
        self.write(role, stream, _masked(head))

    def flush(self) -> None:
        pending, self._pending = self._pending, {}
        for (role, stream), text in pending.items():
            self.write(role, stream, _masked(text))


def _masked(data: bytes) -> bytes:
    return mask_text(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
