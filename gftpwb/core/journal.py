"""The journal of a scenario run: every finished record, in the order runs finished.

It is the one collector of finished records: a bus subscriber that keeps what RunFinished events
carry, and hands each record to a ``store`` first when it has one (the results directory's
``results.jsonl``, appended and fsync'd before the next run starts: :mod:`gftpwb.shell.sinks.journal`).
Whoever needs this attempt's records (the console's table, the tgftp drop-ins' verdicts, a caller of
the session) reads them here instead of collecting its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .events import Event, RunFinished
from .records import ResultRecord, latest_by_run


class Journal:
    """Finished records of this attempt (``records``) and of the earlier ones it continues (``earlier``)."""

    def __init__(self, earlier: Iterable[ResultRecord] = (), store: Callable[[ResultRecord], None] | None = None):
        self.earlier: list[ResultRecord] = list(earlier)
        self.records: list[ResultRecord] = []
        self._store = store

    def __call__(self, event: Event) -> None:
        if isinstance(event, RunFinished):
            self.add(event.record)

    def add(self, record: ResultRecord) -> None:
        if self._store is not None:
            self._store(record)
        self.records.append(record)

    def close(self) -> None:
        """Release the store (a journal kept only in memory has nothing to release)."""

    def latest(self) -> dict[str, ResultRecord]:
        """The last record of every run id, earlier attempts included (a resumed run supersedes)."""
        return latest_by_run([*self.earlier, *self.records])

    def last(self, kind: str | None = None) -> ResultRecord | None:
        """The record that finished last (of ``kind``), or None."""
        return next((r for r in reversed(self.records) if kind is None or r.kind == kind), None)
