"""The live views as text: sorting of thread rows, auto-tune marks, and the cells and columns the
TUI's tables show and its CSV export writes, so both always say the same thing. Pure."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from gftpwb.core.events import RankingRow, TuneUpdate
from gftpwb.core.format import cv_text, duration_text, interval_text, rate_text
from gftpwb.core.specs import RunSpec

from .models import FAILED_ROW_STATES, TestRow, ThreadRow, ThreadTotals, TunePanel, TuneRowView

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
        return f"tied with #1 (±{margin_mib_s:g} MB/s)", "tied"
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
        ci = interval_text(row.ci_low_mib_s, row.ci_high_mib_s, 0)
        rows.append(TuneRowView(row.rank, row.candidate, row.mean_mib_s, ci, row.runs, row.failures, mark,
                                tune_note(row), style, row.ci_low_mib_s, row.ci_high_mib_s))
    line = update.leader_command  # the leader's transfer as it runs
    if update.leader and not line:
        program = spec.argv[0] if spec is not None and spec.argv else "globus-url-copy"
        ends = [spec.source, spec.target] if spec is not None and spec.source and spec.target else []
        line = " ".join([program, update.leader, *ends])
    return TunePanel(update.test_id, update.strategy, update.engine, update.transfers_used, update.budget,
                     update.margin_mib_s, tuple(rows), update.leader, update.finished, line,
                     test_ids or (update.test_id,), update.p_within_margin, update.stop_reason,
                     update.warm_start, update.p_with_history, update.history_share)


TEST_COLUMNS = ("test", "kind", "host(s)", "status", "runs", "last MiB/s", "note")
THREAD_COLUMNS = ("run", "host", "thread", "%", "MiB", "MiB/s", "IOPS", "files/s", "state")
TUNE_COLUMNS = ("#", "candidate", "MiB/s", "95 % CI", "runs", "mark", "note")


def test_cells(row: TestRow) -> tuple[str, ...]:
    note = ", ".join(part for part in (row.engine, row.note) if part)
    return (row.test_id, row.kind, row.hosts, row.status, f"{row.done}/{row.total}", rate_text(row.last_rate_mib_s),
            note)


def thread_cells(row: ThreadRow) -> tuple[str, ...]:
    state = row.state + (f": {row.error}" if row.error else "")
    return (row.run_id, row.host, row.thread, "-" if row.percent is None else f"{row.percent:.0f}",
            f"{row.mib:.1f}", rate_text(row.mib_s), rate_text(row.iops, 0), rate_text(row.files_s, 1),
            f"{state} ({row.engine})" if row.engine else state)


def thread_totals(rows: Sequence[ThreadRow], elapsed: Mapping[str, float],
                  together: Mapping[str, int] | None = None) -> ThreadTotals:
    """Sums and spread over ``rows``; ``elapsed`` gives each finished row's seconds (by key);
    ``together`` the group of runs each row's run ran at the same time with (by run id; groups in
    the order they started; default: all at once). Rates add up within a group only. Rows that
    failed (:data:`FAILED_ROW_STATES`) are counted apart and in nothing else: their figures froze
    when they failed, so adding them would count a host that is gone as still moving data."""
    failed = sum(1 for r in rows if r.state in FAILED_ROW_STATES)
    rows = [r for r in rows if r.state not in FAILED_ROW_STATES]
    rates = [r.mib_s for r in rows if r.mib_s is not None]
    mean = sum(rates) / len(rates) if rates else None
    cv = None
    if mean and len(rates) > 1:
        cv = (sum((x - mean) ** 2 for x in rates) / (len(rates) - 1)) ** 0.5 / mean
    done = [elapsed[r.key] for r in rows if r.key in elapsed]
    sums: dict[int, float] = {}
    runs: dict[int, set[str]] = {}
    for row in rows:
        if row.mib_s is not None:
            group = together.get(row.run_id, 0) if together is not None else 0
            sums[group] = sums.get(group, 0.0) + row.mib_s
            runs.setdefault(group, set()).add(row.run_id)
    at_a_time = tuple(sums[group] for group in sorted(sums))
    return ThreadTotals(rows=len(rows) + failed, mib=sum(r.mib for r in rows),
                        mib_s=at_a_time[0] if len(at_a_time) == 1 else None,
                        min_mib_s=min(rates) if rates else None, max_mib_s=max(rates) if rates else None, cv=cv,
                        done=len(done), first_done_s=min(done) if done else None,
                        last_done_s=max(done) if done else None, at_a_time=at_a_time,
                        one_run_each=all(len(ids) == 1 for ids in runs.values()), failed=failed)


def error_groups(rows: Sequence[ThreadRow]) -> list[tuple[str, str]]:
    """The errors of the rows that have one, each once and whole, with where it happened: ``("h2 threads
    0, 1, 2, 3 (w/0)", "h2 p0: lost the worker's connection: ...")``. The rows of a lost host or a dead
    worker share one error; told once, every distinct error fits where one did."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for row in rows:
        if row.error:
            groups.setdefault((row.run_id, row.host, row.error), []).append(row.thread)
    out = []
    for (run_id, host, error), labels in groups.items():
        labels = sorted(labels, key=_natural)
        if labels == ["all"] or labels == [""]:
            where = host
        else:
            where = f"{host} thread{'s' if len(labels) > 1 else ''} {', '.join(labels)}"
        out.append((f"{where} ({run_id})", error))
    return out


def totals_text(totals: ThreadTotals) -> str:
    """The totals row as one line: ``8 rows · 1,234.5 MiB · 456.7 MiB/s in all · spread 50.1-60.2 (CV 5.0 %) ...
    · 4 failed (in no total)``;
    rows of runs that ran one after another: ``... · 23.1 to 92.9 MiB/s in all at a time (3 runs one
    after another) · ...``."""
    parts = [f"{totals.rows} row(s)", f"{totals.mib:.1f} MiB"]
    if totals.mib_s is not None:
        parts.append(f"{rate_text(totals.mib_s)} MiB/s in all")
    elif totals.at_a_time:
        groups = len(totals.at_a_time)
        what = f"{groups} runs" if totals.one_run_each else f"{groups} groups of runs"
        parts.append(f"{rate_text(min(totals.at_a_time))} to {rate_text(max(totals.at_a_time))} MiB/s in all at a "
                     f"time ({what} one after another)")
    if totals.min_mib_s is not None:
        parts.append(f"per row {rate_text(totals.min_mib_s)} to {rate_text(totals.max_mib_s)} MiB/s"
                     + (f" (CV {cv_text(totals.cv)})" if totals.cv is not None else ""))
    if totals.done:
        parts.append(done_text(totals))
    if totals.failed:
        parts.append(f"{totals.failed} failed (in no total)")
    return "  ·  ".join(parts)


def done_text(totals: ThreadTotals) -> str:
    """How long the finished rows took, each from its own start: rows that ran at the same time (one
    run's threads or streams) as elbencho says it, ``8 done: first 1.2s after the start, last 1.5s
    after``; rows of runs one after another as the range of their durations, ``10 done, each in 0.8s to
    1.1s`` ("first after 0.8s, last after 1.1s" read as times since the scenario's start)."""
    first, last = duration_text(totals.first_done_s), duration_text(totals.last_done_s)
    if first == last:
        return f"{totals.done} done, each in {first}" if totals.done > 1 else f"1 done in {first}"
    if len(totals.at_a_time) == 1:
        return f"{totals.done} done: first {first} after the start, last {last} after"
    return f"{totals.done} done, each in {first} to {last}"


def tune_cells(row: TuneRowView) -> tuple[str, ...]:
    return (str(row.rank), row.candidate, rate_text(row.mean_mib_s), row.ci, str(row.runs), row.mark, row.note)
