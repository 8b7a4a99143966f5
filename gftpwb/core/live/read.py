"""The read models of the live state: what each view shows, computed on demand from a
:class:`~gftpwb.core.live.state.LiveState` (never per event). Pure; ``now`` comes from the caller."""

from __future__ import annotations

from gftpwb.core.checks import Check
from gftpwb.core.format import counts_text, short_error
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, SKIPPED, TIMEOUT, ResultRecord, Summary
from gftpwb.core.registry import registry
from gftpwb.core.trace.setting import IO, OFF, RUN

from .cells import sort_thread_rows, thread_totals, tune_panel
from .models import (
    MIB,
    QUEUED,
    RUNNING,
    TEST_STATUS_ORDER,
    PartState,
    RateChartData,
    RunLine,
    RunPanel,
    RunState,
    TestRow,
    ThreadRow,
    ThreadTotals,
    TunePanel,
)
from .monitors import MonitorRow
from .state import LiveState


def test_rows(live: LiveState) -> list[TestRow]:
    """The scenario view: one row per test, its status the most urgent of its runs'."""
    rows = []
    for test_id, all_runs in live.by_test.items():
        runs = [run for run in all_runs if not run.extra] or all_runs
        transfers = [run for run in all_runs if run.extra and run is not runs[0]]
        statuses = [run.status for run in runs]
        status = next(s for s in TEST_STATUS_ORDER if s in statuses)
        earlier = sum(1 for run in runs if run.earlier)
        left_out = sum(1 for run in runs if run.left_out)
        done = sum(1 for s in statuses if s not in (QUEUED, RUNNING, SKIPPED)) + earlier
        notes = [f"{statuses.count(s)} {s}" for s in (FAILED, TIMEOUT, INTERRUPTED) if s in statuses]
        if earlier:
            notes.append(f"{earlier} done earlier")
        if left_out:
            notes.append("not selected")
        notes.extend(_skip_notes(runs))
        notes.extend(_remarks(runs))
        not_run = sum(1 for run in runs if run.not_run)
        if not_run:
            notes.append(f"{not_run} not run (stopped)")
        violated = sum(1 for check in live.checks if check.test_id == test_id and not check.ok)
        if violated:
            notes.append(f"expect: {violated} violated")
        if transfers:
            bad = sum(1 for run in transfers if run.status not in (PASSED, QUEUED, RUNNING))
            notes.append(f"{len(transfers)} transfers" + (f" ({bad} not passed)" if bad else ""))
        running = next((run for run in runs if run.status == RUNNING), None)
        kind = registry().find(running.spec.kind) if running is not None else None
        if kind is not None and running is not None and kind.present.progress_note(running.spec):
            notes.append("no live progress (elapsed time only)")
        rows.append(TestRow(
            test_id=test_id, kind=live.test_kind.get(test_id, ""),
            hosts=", ".join(dict.fromkeys(run.spec.host for run in runs)),
            status=status, done=done, total=len(runs), passed=statuses.count(PASSED), note=", ".join(notes),
            last_rate_mib_s=_last_rate(all_runs), engine=_engine(runs[0]),
        ))
    return rows


def _skip_notes(runs: list[RunState]) -> list[str]:
    """Why runs of this attempt were skipped, as their records say ("2 skipped: needs warm, which
    was not selected to run ..."); one note per reason."""
    reasons: dict[str, int] = {}
    for run in runs:
        if run.status == SKIPPED and run.record is not None and run.record.error:
            reasons[run.record.error] = reasons.get(run.record.error, 0) + 1
    return [f"{n} skipped: {short_error(reason)}" for reason, n in reasons.items()]


def _remarks(runs: list[RunState]) -> list[str]:
    """What the kinds say a reader of the finished runs' figures must know ("too short to publish",
    "partial: 4 of 8 threads"), once each, with how many runs when more than one."""
    counts: dict[str, int] = {}
    for run in runs:
        kind = registry().find(run.record.kind) if run.record is not None else None
        for remark in kind.present.remarks(run.record) if kind is not None and run.record is not None else ():
            counts[remark] = counts.get(remark, 0) + 1
    return [f"{n}× {remark}" if n > 1 else remark for remark, n in counts.items()]


def skip_reasons(live: LiveState) -> list[str]:
    """Each reason runs of this attempt were skipped for (``needs`` not met), in the order they came."""
    return list(dict.fromkeys(run.record.error for run in live.runs.values()
                              if run.status == SKIPPED and run.record is not None and run.record.error))


def outcome(summary: Summary) -> tuple[str, str]:
    """How a finished scenario run ended, in words for a status line, and its tone (``ok``, ``bad``,
    ``stopped``), as the exit code has it: ``all passed`` only when every run passed and every
    threshold (``expect:``) was met (exit 0); ``all passed, 2 thresholds violated`` (exit 8);
    ``finished: 1 failed, 2 skipped`` (exit 1); ``interrupted``."""
    if summary.interrupted:
        return "interrupted", "stopped"
    if not summary.all_passed:
        others = {status: n for status, n in summary.counts.items() if status != PASSED}
        not_run = summary.total - sum(summary.counts.values())
        if not_run > 0:
            others["not run"] = not_run
        return f"finished: {counts_text(others)}", "bad"
    if summary.violations:
        return f"all passed, {summary.violations} threshold(s) violated", "bad"
    return "all passed", "ok"


def _last_rate(runs: list[RunState]) -> float | None:
    moving = [run for run in runs if run.status == RUNNING and run.avg is not None]
    if moving:
        return moving[-1].avg
    ended = [run for run in runs if run.record is not None and run.record.rate_incl_setup_mib_s is not None]
    if ended:
        return max(ended, key=lambda run: run.ended_t or 0.0).record.rate_incl_setup_mib_s  # type: ignore[union-attr]
    return None


def _engine(run: RunState) -> str:
    """How a run is marked when another engine than the real program carries it out ("SIMULATED")."""
    engine = run.record.engine if run.record is not None else run.spec.engine
    return registry().engine_label(engine)


def _unreported(run: RunState) -> bool:
    """A run in flight that has reported no progress yet (guc between two servers reports every 5 s):
    what it moved so far is unknown, not zero. A run that only steers others (no command) moves nothing."""
    return run.status == RUNNING and run.inst is None and bool(run.command)


def _waiting(run: RunState) -> str:
    kind = registry().find(run.spec.kind)
    if kind is None:
        return "waiting for the first progress report"
    return kind.present.progress_note(run.spec) or kind.present.waiting(run.spec)


def _line(run: RunState, now: float) -> RunLine:
    if run.status == RUNNING:
        elapsed = now - (run.started_t if run.started_t is not None else now)
        return RunLine(run.spec.run_id, run.spec.host, run.command, run.status, max(elapsed, 0.0), run.bytes,
                       run.spec.length_bytes, run.avg, run.inst, _engine(run),
                       _waiting(run) if _unreported(run) else "")
    record = run.record
    return RunLine(run.spec.run_id, run.spec.host, run.command or " ".join(run.spec.argv), run.status,
                   (record.seconds if record and record.seconds is not None else 0.0), run.bytes,
                   run.spec.length_bytes, record.rate_incl_setup_mib_s if record else run.avg, None, _engine(run))


def run_panel(live: LiveState, now: float) -> RunPanel:
    """The run view: the scenario's state, the runs in flight (or the last one), rates and bytes."""
    in_flight = list(live.running.values())
    # A run that only steers others (an auto-tune: no command of its own) stands back behind them.
    steering = [run for run in in_flight if not run.command and len(in_flight) > 1]
    running = tuple(_line(run, now) for run in in_flight if run not in steering)
    if live.summary is not None:
        state = "interrupted" if live.summary.interrupted else "finished"
    elif live.started:
        state = RUNNING
    else:
        state = "idle"
    planned = [run_id for run_id in live.attempt if not live.runs[run_id].extra]
    done = sum(1 for run_id in planned if live.runs[run_id].record is not None)
    live_avg = [run.avg for run in live.running.values() if run.avg is not None]
    reported = any(not _unreported(run) for run in live.running.values())
    return RunPanel(
        scenario=live.scenario, results_dir=live.results_dir, state=state, runs_done=done,
        runs_total=len(planned), running=running,
        last=_line(live.last, now) if live.last is not None else None,
        bytes_moved=live.finished_bytes + sum(run.bytes for run in live.running.values()),
        rate_inst_mib_s=live.rate_inst if reported else None,  # none reported yet: unknown, not 0
        rate_avg_mib_s=sum(live_avg) if live_avg else None, summary=live.summary,
    )


def _chart_until(live: LiveState, now: float) -> tuple[float, bool]:
    """Where the rate history ends, and whether it is cut there: now while a scenario runs, else its
    last event; but never past the start of a run in flight that has reported nothing yet (cut: the
    chart then ends with the last whole bucket before it). Its bytes are not known until its first
    report (guc's, every 5 s between two servers), which spreads them back over the time since it
    started; drawn before, those seconds read as the rate falling to 0 between two runs."""
    until = now if live.active else (live.history.last_t or now)
    waiting = [run.accounted_t for run in live.running.values() if _unreported(run) and run.accounted_t is not None]
    if waiting and min(waiting) < until:
        return min(waiting), True
    return until, False


def rate_series(live: LiveState, now: float, points: int) -> list[float]:
    """The aggregate rate in MiB/s, one value per ``history_step_s``, the last ``points`` up to ``now``
    (or to the start of a run in flight that has not reported yet: :func:`_chart_until`).

    Each value is the MiB moved in that interval over its length. For the time since a run in flight
    last reported, its last known rate stands in until its next report gives the real bytes.
    """
    until, cut = _chart_until(live, now)
    return live.history.series(now, points, until, live.running.values(), whole=cut)


def rate_chart(live: LiveState, now: float, points: int) -> RateChartData:
    """The run view's chart: :func:`rate_series` with its time axis, and one series per host when the
    runs span more than one host."""
    history = live.history
    until, cut = _chart_until(live, now)
    # While a scenario runs the chart ends with the last whole second: the view redraws it as each
    # second passes, when the newest one has barely begun (its rate over a few milliseconds read as
    # a fall at the right edge until the next redraw).
    whole = cut or live.active
    total = history.series(now, points, until, live.running.values(), whole=whole)
    if history.t0 is None or not total:
        return RateChartData((), (), {}, history.step_s)
    first, last = history.window(points, until, whole=whole)
    seconds = tuple((b + 1) * history.step_s for b in range(first, last + 1))
    hosts = history.host_series(now, points, until, live.running.values(), whole=whole)
    return RateChartData(seconds, tuple(total), {h: tuple(v) for h, v in hosts.items()} if len(hosts) > 1 else {},
                         history.step_s)


def log_since(live: LiveState, seq: int) -> tuple[int, list[str], int]:
    """Lines after sequence number ``seq``: (new seq, lines, lines dropped because the buffer wrapped)."""
    return live.log.since(seq)


def thread_rows(live: LiveState, sort: str = "host", reverse: bool = False, text_filter: str = "") -> list[ThreadRow]:
    """Per-thread rows (gfapi workers), per-stream rows (guc channels) and one row per guc run and host
    when a run reports no finer data; sorted by ``sort`` (a ThreadRow field)."""
    rows: list[ThreadRow] = []
    needle = text_filter.lower()
    for run in live.runs.values():
        if run.status in (QUEUED, SKIPPED) or run.spec.run_id not in live.attempt:
            continue
        if run.parts:
            for part in run.parts.values():
                rows.append(_part_row(run, part))
        elif _whole_run_row(run.spec.kind):
            rows.append(_run_row(run))
    if needle:
        rows = [r for r in rows if needle in f"{r.run_id} {r.host} {r.thread} {r.state}".lower()]
    return sort_thread_rows(rows, sort, reverse)


def thread_summary(live: LiveState, rows: list[ThreadRow]) -> ThreadTotals:
    """The totals row of ``rows`` (as :func:`thread_rows` gave them): when a row is no longer running,
    its part's elapsed time (or its run's seconds) is when it finished."""
    elapsed: dict[str, float] = {}
    for row in rows:
        if row.state in (RUNNING, "preparing", "ready", QUEUED):
            continue
        run = live.runs.get(row.run_id)
        if run is None:
            continue
        part = run.parts.get((row.host, row.thread))
        if part is not None and part.elapsed > 0:
            elapsed[row.key] = part.elapsed
        elif run.record is not None and run.record.seconds is not None:
            elapsed[row.key] = run.record.seconds
    return thread_totals(rows, elapsed, together(live, {row.run_id for row in rows}))


def together(live: LiveState, run_ids: set[str]) -> dict[str, int]:
    """Which of ``run_ids`` ran at the same time: a group number per run, runs whose times overlap
    (from start to end, or still running) in one group, groups numbered in the order they started.
    A run that starts as another ends ran after it."""
    spans = []
    for run_id in run_ids:
        run = live.runs.get(run_id)
        if run is None or run.started_t is None:
            continue
        end = run.ended_t if run.ended_t is not None and run.status != RUNNING else float("inf")
        spans.append((run.started_t, end, run_id))
    groups: dict[str, int] = {}
    group, reach = -1, float("-inf")
    for start, end, run_id in sorted(spans):
        if start >= reach:
            group += 1
        reach = max(reach, end) if start < reach else end
        groups[run_id] = group
    return groups


def _part_row(run: RunState, part: PartState) -> ThreadRow:
    elapsed = part.elapsed
    per_s = (lambda n: n / elapsed) if elapsed > 0 else (lambda n: None)
    return ThreadRow(
        key=f"{run.spec.run_id}|{part.host}|{part.label}", run_id=run.spec.run_id, host=part.host,
        thread=part.label, percent=part.percent, mib=part.bytes / MIB,
        mib_s=part.avg if elapsed > 0 else None,
        iops=per_s(part.ios) if part.worker else None, files_s=per_s(part.files) if part.worker else None,
        state=part.state, error=part.error, engine=_engine(run),
    )


def _run_row(run: RunState) -> ThreadRow:
    length = run.spec.length_bytes
    rate = run.avg if run.status == RUNNING else (run.record.rate_incl_setup_mib_s if run.record else run.avg)
    return ThreadRow(
        key=f"{run.spec.run_id}|{run.spec.host}|all", run_id=run.spec.run_id, host=run.spec.host,
        thread="all", percent=100.0 * run.bytes / length if length else None, mib=run.bytes / MIB,
        mib_s=rate, iops=None, files_s=None, state=run.status,
        error=short_error(run.record.error, 60) if run.record and run.record.error else "", engine=_engine(run),
    )


def finished_records(live: LiveState) -> list[ResultRecord]:
    """The records of this attempt's finished runs, in plan order."""
    return [run.record for run in live.runs.values() if run.record is not None and not run.earlier]


def tune_test_ids(live: LiveState) -> tuple[str, ...]:
    return tuple(live.tune_order)


def tune(live: LiveState, test_id: str | None = None) -> TunePanel | None:
    """The ranking of ``test_id`` (default: the auto-tune test updated last)."""
    if not live.tunes:
        return None
    if test_id not in live.tunes:
        test_id = max(live.tunes, key=lambda k: live.tunes[k].t)
    update = live.tunes[test_id]
    spec = next((run.spec for run in live.by_test.get(update.test_id, [])), None)
    return tune_panel(update, spec, tuple(live.tune_order))


def _whole_run_row(kind: str) -> bool:
    """Whether a run of ``kind`` without per-thread telemetry shows as one row (not a gfapi run)."""
    found = registry().find(kind)
    return found.present.whole_run_row if found is not None else True


def monitor_rows(live: LiveState) -> list[MonitorRow]:
    """The monitors panel: the latest readings per monitor and host, each with its headline's history."""
    return live.monitors.rows()


def trace_levels(live: LiveState) -> dict[str, str]:
    """The trace level of each run in flight (``off``, ``run`` or ``io``; switched ones as switched)."""
    return {run_id: live.trace_levels.get(run_id, OFF) for run_id in live.running}


def trace_target(levels: dict[str, str]) -> tuple[str | None, str]:
    """What the trace key does with the runs in flight: the level to switch them to (``io`` unless all
    traced ones are at ``io`` already, then back to ``run``), or None and why nothing can switch."""
    traced = {level for level in levels.values() if level != OFF}
    if not levels:
        return None, "no run is in flight: the trace level switches runs while they run"
    if not traced:
        return None, ("the run in flight is not traced (trace: off), so it has no trace file to switch: "
                      "set trace: run on the test or the scenario, or run with --trace run")
    return (RUN if traced == {IO} else IO), ""


def violations(live: LiveState) -> list[Check]:
    """The thresholds (``expect:``) not met so far, in the order the tests ended."""
    return [check for check in live.checks if not check.ok]
