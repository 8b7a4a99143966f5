"""Writing files so that a reader never sees half of one: the one atomic-write helper.

The text goes to a temporary name in the same directory (with this process's id, so two writers do
not collide), then ``os.replace`` puts it in place in one step. Tag logs, CSV files, state files,
exports and the results directory's own files all go through here.
"""

from __future__ import annotations

import contextlib
import os


def atomic_write(path: str, text: str, *, encoding: str = "utf-8", newline: str | None = None) -> None:
    """Write ``text`` to ``path`` atomically; raises OSError (the temporary file is removed)."""
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "w", encoding=encoding, newline=newline) as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (binary files: I/O traces); raises OSError."""
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
