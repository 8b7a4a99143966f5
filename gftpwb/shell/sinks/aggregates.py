"""``aggregates.jsonl``: the aggregate of each run's copies (a test's ``concurrency``), one line per
run whose copies all finished, appended and fsync'd like ``results.jsonl``. The file is made only
when a scenario has copies; a resumed run appends the aggregate of copies it completed (the last line
of a group is the one that counts)."""

from __future__ import annotations

import json
import os

from gftpwb.core.events import CopiesFinished, Event
from gftpwb.core.harness.aggregate import CopiesAggregate

from .journal import JournalFile

AGGREGATES_NAME = "aggregates.jsonl"


class AggregatesSink:
    def __init__(self, directory: str):
        self.path = os.path.join(directory, AGGREGATES_NAME)
        self._file: JournalFile | None = None

    def __call__(self, event: Event) -> None:
        if isinstance(event, CopiesFinished) and event.aggregate is not None:
            if self._file is None:
                self._file = JournalFile(self.path)
            self._file.append(event.aggregate)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


def read_aggregates(path: str) -> list[CopiesAggregate]:
    """The latest aggregate of every group in an aggregates file (a missing file has none); lines
    that cannot be read (a torn last line) are skipped."""
    latest: dict[str, CopiesAggregate] = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    item = CopiesAggregate.from_dict(json.loads(line))
                except (ValueError, TypeError):
                    continue
                latest[item.group] = item
    except FileNotFoundError:
        return []
    return list(latest.values())
