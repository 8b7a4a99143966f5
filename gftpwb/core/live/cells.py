"""The live views as text: sorting of thread rows, auto-tune marks, and the cells and columns the
TUI's tables show and its CSV export writes, so both always say the same thing. Pure."""

from __future__ import annotations

from collections.abc import Callable

from gftpwb.core.events import RankingRow, TuneUpdate
from gftpwb.core.format import pm_text, rate_text
from gftpwb.core.specs import RunSpec

from .models import TestRow, ThreadRow, TunePanel, TuneRowView

THREAD_SORT_KEYS = ("run_id", "host", "thread", "percent", "mib", "mib_s", "iops", "files_s", "state")


def _natural(text: str) -> tuple[int, int | str]:
    return (0, int(text)) if text.isdigit() else (1, text)


def sort_thread_rows(rows: list[ThreadRow], sort: str, reverse: bool = False) -> list[ThreadRow]:
    """Sort by one column; numbers sort numerically, missing values always last; ties by host, thread."""
    if sort not in THREAD_SORT_KEYS:
        raise ValueError(f"unknown sort column {sort!r}; one of {', '.join(THREAD_SORT_KEYS)}")
    rows = sorted(rows, key=lambda r: (r.run_id, r.host, _natural(r.thread)))
    present = [r for r in rows if getattr(r, sort) is not None]
    missing = [r for r in rows if getattr(r, sort) is None]
    key: Callable[[ThreadRow], object] = (lambda r: _natural(r.thread)) if sort == "thread" else \
        (lambda r: getattr(r, sort))
    return sorted(present, key=key, reverse=reverse) + missing  # type: ignore[arg-type]


def tune_mark(row: RankingRow, margin_mib_s: float, leader: str | None) -> tuple[str, str]:
    """The mark and style of one ranking row: leader, tie with #1, eliminated, failed (no rate yet)."""
    if row.eliminated:
        return ("eliminated" if row.eliminated_after is None else f"eliminated after {row.eliminated_after}"), \
            "eliminated"
    if row.candidate == leader or (leader is None and row.rank == 1):
        return "leader", "leader"
    if row.tied_with_leader:
        return f"tied with #1 (within {margin_mib_s:g} MB/s)", "tied"
    if row.mean_mib_s is None and row.failures:
        return "failed", "failed"
    return "", ""


def tune_note(row: RankingRow) -> str:
    failed = f"{row.failures} failed" if row.failures else ""
    return "; ".join(part for part in (failed, row.note) if part)


def tune_panel(update: TuneUpdate, spec: RunSpec | None, test_ids: tuple[str, ...] = ()) -> TunePanel:
    rows = []
    for row in update.rows:
        mark, style = tune_mark(row, update.margin_mib_s, update.leader)
        ci = pm_text(None if row.ci_low_mib_s is None or row.ci_high_mib_s is None else
                     (row.ci_high_mib_s - row.ci_low_mib_s) / 2)
        rows.append(TuneRowView(row.rank, row.candidate, row.mean_mib_s, ci, row.runs, row.failures, mark,
                                tune_note(row), style))
    line = ""
    if update.leader:
        program = spec.argv[0] if spec is not None and spec.argv else "globus-url-copy"
        ends = [spec.source, spec.target] if spec is not None and spec.source and spec.target else []
        line = " ".join([program, update.leader, *ends])
    return TunePanel(update.test_id, update.strategy, update.engine, update.transfers_used, update.budget,
                     update.margin_mib_s, tuple(rows), update.leader, update.finished, line,
                     test_ids or (update.test_id,))


TEST_COLUMNS = ("test", "kind", "host(s)", "status", "runs", "last MiB/s", "note")
THREAD_COLUMNS = ("run", "host", "thread", "%", "MiB", "MiB/s", "IOPS", "files/s", "state")
TUNE_COLUMNS = ("#", "candidate", "MiB/s", "±95%", "runs", "mark", "note")


def test_cells(row: TestRow) -> tuple[str, ...]:
    return (row.test_id, row.kind, row.hosts, row.status, f"{row.done}/{row.total}", rate_text(row.last_rate_mib_s),
            row.note)


def thread_cells(row: ThreadRow) -> tuple[str, ...]:
    return (row.run_id, row.host, row.thread, "-" if row.percent is None else f"{row.percent:.0f}",
            f"{row.mib:.1f}", rate_text(row.mib_s), rate_text(row.iops, 0), rate_text(row.files_s, 1),
            row.state + (f": {row.error}" if row.error else ""))


def tune_cells(row: TuneRowView) -> tuple[str, ...]:
    return (str(row.rank), row.candidate, rate_text(row.mean_mib_s), row.ci, str(row.runs), row.mark, row.note)
