"""The live event stream's writer (``gftpwb run --events jsonl`` to stdout, ``--events-file PATH``):
a bus subscriber that writes each event's line (:mod:`gftpwb.core.event_stream`) and flushes it at
once, so a reader at the other end of a pipe has it while the run goes on.

Written in the bus's own order, synchronously: a record's ``run-finished`` line follows its fsync to
``results.jsonl`` (the journal is subscribed first), and a reader that does not keep up makes the
run wait for it, as any pipe does. A reader that goes away (a closed pipe, ``| head``) or a file
that cannot be written any more ends the stream, never the run: the results directory keeps
everything, and :attr:`EventStreamSink.error` says what happened.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime
from typing import BinaryIO

from gftpwb import __version__
from gftpwb.core.errors import UsageError
from gftpwb.core.event_stream import EventEncoder, encode
from gftpwb.core.events import Event


class EventStreamSink:
    """Writes one line per event to ``out`` (a binary file, stdout's buffer) and flushes it."""

    def __init__(self, out: BinaryIO, *, name: str = "stdout", close: bool = False):
        self.out = out
        self.name = name
        self._close = close
        self.encoder = EventEncoder(time.monotonic(), datetime.now(UTC), generator=f"gftpwb {__version__}")
        self.error = ""  # why the stream ended early ("" while it is written)
        self.lines = 0
        self._write(encode(self.encoder.started()))

    @classmethod
    def to_file(cls, path: str) -> EventStreamSink:
        """A stream into a file (made or truncated now; a FIFO works too), refused with a clear
        message before anything runs when it cannot be opened."""
        try:
            handle = open(path, "wb")  # noqa: SIM115 (kept open for the whole run, closed by close())
        except OSError as exc:
            raise UsageError(f"--events-file {path}: cannot write it: {exc.strerror or exc}") from None
        return cls(handle, name=path, close=True)

    def __call__(self, event: Event) -> None:
        if self.error:
            return
        line = self.encoder.line(event)
        if line is not None:
            self._write(line)

    def _write(self, line: bytes) -> None:
        try:
            self.out.write(line)
            self.out.flush()
            self.lines += 1
        except OSError as exc:  # EPIPE: the reader went away; ENOSPC, EIO: the file cannot take more
            self.error = (f"the event stream to {self.name} ended after {self.lines} line(s): "
                          f"{exc.strerror or exc}; the run went on and its results directory has everything")
            self._silence()

    def _silence(self) -> None:
        """Nothing more goes out; a broken pipe's unwritten bytes are dropped, so neither this sink
        nor Python's exit raises again."""
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.out.fileno())
            os.close(devnull)
        except (OSError, ValueError, AttributeError):  # not a real file (tests' BytesIO): nothing buffered to drop
            pass

    def close(self) -> None:
        if self._close:
            try:
                self.out.close()
            except OSError as exc:
                if not self.error:
                    self.error = f"the event stream to {self.name} could not be closed: {exc.strerror or exc}"
