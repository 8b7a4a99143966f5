"""Write failures of the subscribers that keep results (journal, tag logs, aggregates, a kind's
files): a full disk (ENOSPC), a read-only file system or an I/O error is remembered instead of raised
through the executor, the run is stopped (nothing more could be kept), and the session ends with a
:class:`~gftpwb.core.errors.StorageError` (exit 7) whose message says what is and is not on disk."""

from __future__ import annotations

from collections.abc import Callable

from gftpwb.core.bus import Handler
from gftpwb.core.events import Event, RunFinished
from gftpwb.core.journal import Journal
from gftpwb.core.records import Summary

from .journal import JOURNAL_NAME

WRITE_FAILED = "write-failure"  # Executor.stop()'s cause when results could not be written


class WriteGuard:
    """Wraps the subscribers that write results (journal, tag logs, a kind's files): a write that
    fails (disk full, read-only, I/O error) is remembered instead of raised through the executor, the
    run is stopped (nothing more could be kept), and :meth:`report` says what is and is not on disk."""

    def __init__(self, directory: str):
        self.directory = directory
        self.failures: list[tuple[str, str, OSError]] = []  # (what, run id, error)
        self.stop: Callable[[], None] = lambda: None

    def guard(self, handler: Handler, what: str) -> Handler:
        def guarded(event: Event) -> None:
            try:
                handler(event)
            except OSError as exc:
                run_id = event.record.run_id if isinstance(event, RunFinished) else ""
                self.failures.append((what, run_id, exc))
                self.stop()

        return guarded

    def report(self, journal: Journal, summary: Summary) -> str:
        what, _, first = self.failures[0]
        lost = [run_id for w, run_id, _ in self.failures if w == JOURNAL_NAME and run_id]
        other = sorted({f"{w} of {run_id}" if run_id else w for w, run_id, _ in self.failures if w != JOURNAL_NAME})
        kept = [r.run_id for r in journal.records]
        lines = [f"cannot write results in {self.directory}: {first.strerror or first} ({what}); the run was stopped",
                 f"  on disk: {len(kept)} record(s) of this attempt in {JOURNAL_NAME}"
                 + (f" ({', '.join(kept[:10])}{', ...' if len(kept) > 10 else ''})" if kept else ""),
                 f"  not written: {', '.join([*(f'the record of {r}' for r in lost), *other]) or 'nothing'}"]
        done = sum(summary.counts.values())
        if summary.total > done:
            lines.append(f"  not run: {summary.total - done} of {summary.total} planned run(s)")
        lines.append(f"  free some space, then `gftpwb run SCENARIO --resume {self.directory}` runs what is "
                     "missing and writes the missing tag logs")
        return "\n".join(lines)
