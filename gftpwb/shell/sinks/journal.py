"""The results journal: ``results.jsonl``, one record per run, appended and fsync'd as runs end.

A crash or Ctrl-C therefore loses at most the run in flight, and ``--resume`` can trust what it
reads back (a torn last line is skipped by :func:`gftpwb.core.records.parse_journal`).
"""

from __future__ import annotations

import os

from gftpwb.core.events import Event, RunFinished
from gftpwb.core.records import ResultRecord, parse_journal

JOURNAL_NAME = "results.jsonl"


class JournalSink:
    def __init__(self, path: str):
        self.path = path
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

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            self.append(event.record)

    def append(self, record: ResultRecord) -> None:
        os.write(self._fd, (record.to_json() + "\n").encode("utf-8"))
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def read_journal(path: str) -> tuple[list[ResultRecord], list[str]]:
    """Records and problems (torn or unreadable lines) of a journal; a missing file is empty."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return parse_journal(handle.read())
    except FileNotFoundError:
        return [], []
