"""The results journal file: ``results.jsonl``, one record per run, appended and fsync'd as runs end.

A crash or Ctrl-C therefore loses at most the run in flight, and ``--resume`` can trust what it
reads back (a torn last line is skipped by :func:`gftpwb.core.records.parse_journal`). The records
are collected by :class:`gftpwb.core.journal.Journal`; :class:`JournalFile` is the store it writes
them to.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from typing import Protocol

from gftpwb.core.journal import Journal
from gftpwb.core.recordcheck import unreadable_all
from gftpwb.core.records import ResultRecord, parse_journal

JOURNAL_NAME = "results.jsonl"


class JsonLine(Protocol):
    """Anything written as one line of JSON (a ResultRecord, a copies aggregate)."""

    def to_json(self) -> str: ...


class JournalFile:
    """Appends records (one JSON line each) to a journal file, each fsync'd before ``append`` returns
    (``fsync=False``: written at once but not forced to disk, for frequent lines such as monitor
    samples that a crash may cut short)."""

    def __init__(self, path: str, *, fsync: bool = True):
        self.path = path
        self.fsync = fsync
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        self._heal_torn_tail()

    def _heal_torn_tail(self) -> None:
        """If the file ends mid-line (a crash during a write), end that line so the next record
        starts on a line of its own; the reader then skips the torn fragment."""
        size = os.fstat(self._fd).st_size
        if size == 0:
            return
        with open(self.path, "rb") as handle:
            handle.seek(size - 1)
            if handle.read(1) != b"\n":
                os.write(self._fd, b"\n")

    def append(self, record: JsonLine) -> None:
        """Append one record (fsync'd unless ``fsync=False``); raises OSError (disk full, read-only, I/O
        error) after cutting the file back to its last whole record, so a failed append never leaves a
        torn line."""
        data = (record.to_json() + "\n").encode("utf-8")
        size = os.fstat(self._fd).st_size
        try:
            written = os.write(self._fd, data)
            if written < len(data):  # a full disk takes what fits and says so only on the next write
                os.write(self._fd, data[written:])
            if self.fsync:
                os.fsync(self._fd)
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, size)
                os.fsync(self._fd)
            raise

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class JournalSink(Journal):
    """A journal kept in ``path`` as well as in memory (the session's, and ``import taglogs``')."""

    def __init__(self, path: str, earlier: Iterable[ResultRecord] = ()):
        self.file = JournalFile(path)
        super().__init__(earlier, store=self.file.append)

    @property
    def path(self) -> str:
        return self.file.path

    def append(self, record: ResultRecord) -> None:
        self.add(record)

    def close(self) -> None:
        self.file.close()


def read_journal(path: str) -> tuple[list[ResultRecord], list[str]]:
    """Records and problems (torn or unreadable lines, records their kind cannot read) of a journal;
    a missing file is empty."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return parse_journal(handle.read(), check_all=unreadable_all)
    except FileNotFoundError:
        return [], []
