"""Live state of a scenario run for interactive front ends: absorbs events cheaply, answers on demand.

The bus is synchronous and runs on the executor's event loop, so a subscriber must be cheap. Calling a
:class:`LiveState` with an event only updates a few dictionaries and running sums (O(1) per event,
also for per-thread telemetry); nothing is formatted or sorted then. A front end polls the read side
(:meth:`LiveState.tests`, :meth:`run_panel`, :meth:`rate_series`, :meth:`threads`, :meth:`tune`,
:meth:`log_since`) on its own timer, a few times a second. That coalescing is what lets thousands of
progress events a second leave a terminal UI responsive (see ``bench/tui_load.py``).

Pure: no clock is read here; times come from the events' monotonic ``t`` and from ``now`` arguments,
which also makes every view reproducible in tests. The TUI (``gftpwb.tui``) only draws these values.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from .events import (
    Event,
    Notice,
    OutputLine,
    Progress,
    RankingRow,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    ScenarioStarted,
    TuneUpdate,
    WorkerProgress,
)
from .format import human_bytes, rate_text, short_error
from .records import FAILED, INTERRUPTED, PASSED, SKIPPED, TIMEOUT, ResultRecord, Summary
from .registry import registry
from .specs import RunSpec

MIB = 1048576
QUEUED = "queued"
RUNNING = "running"

# Scenario-view status of a test, most urgent first: one running run makes the test "running", one failed
# run "failed"; a test is "passed" only when every run it has in this attempt passed.
TEST_STATUS_ORDER = (RUNNING, FAILED, TIMEOUT, INTERRUPTED, QUEUED, PASSED, SKIPPED)


# --- rows the front ends draw ---------------------------------------------------------------------


@dataclass(frozen=True)
class TestRow:
    """One test of the scenario view."""

    __test__ = False  # not a pytest test class

    test_id: str
    kind: str
    hosts: str
    status: str  # queued, running, passed, failed, timeout, interrupted, skipped
    done: int  # runs finished in this attempt or an earlier (resumed) one
    total: int
    passed: int
    note: str  # "1 failed, 1 timeout", "2 done earlier", "not selected"
    last_rate_mib_s: float | None  # the live average while running, else the last finished run's rate


@dataclass(frozen=True)
class RunLine:
    """A run in flight (or the last one finished), for the run view."""

    run_id: str
    host: str
    command: str
    status: str
    elapsed_s: float
    bytes: int
    length_bytes: int | None
    rate_avg_mib_s: float | None
    rate_inst_mib_s: float | None

    @property
    def fraction(self) -> float | None:
        if not self.length_bytes:
            return None
        return min(self.bytes / self.length_bytes, 1.0)

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the average rate so far, when the length is known."""
        if not self.length_bytes or not self.rate_avg_mib_s or self.status != RUNNING:
            return None
        return max(self.length_bytes - self.bytes, 0) / (self.rate_avg_mib_s * MIB)


@dataclass(frozen=True)
class RunPanel:
    """The run view: where the scenario is, what moves now, and how fast."""

    scenario: str
    results_dir: str
    state: str  # "idle", "running", "finished", "interrupted"
    runs_done: int
    runs_total: int
    running: tuple[RunLine, ...]
    last: RunLine | None
    bytes_moved: int  # this attempt: finished runs plus the runs in flight
    rate_inst_mib_s: float | None  # aggregate over the runs (and threads, streams) in flight
    rate_avg_mib_s: float | None
    summary: Summary | None


@dataclass(frozen=True)
class ThreadRow:
    """One worker thread (gfapi), guc stream or guc host in the per-thread view, like elbencho's table."""

    key: str
    run_id: str
    host: str
    thread: str
    percent: float | None
    mib: float
    mib_s: float | None
    iops: float | None
    files_s: float | None
    state: str
    error: str = ""


@dataclass(frozen=True)
class TuneRowView:
    rank: int
    candidate: str
    mean_mib_s: float | None
    ci: str  # half width of the 95 % interval, "±15"
    runs: int
    failures: int
    mark: str  # "leader", "tied with #1 (within 20 MB/s)", "eliminated after 12", "failed" or ""
    note: str  # "1 failed; guc failed: 500 Command failed", "same kernel-capped buffer as ..."
    style: str  # "leader", "tied", "eliminated", "failed" or ""


@dataclass(frozen=True)
class TunePanel:
    test_id: str
    strategy: str
    engine: str
    transfers_used: int
    budget: int
    margin_mib_s: float
    rows: tuple[TuneRowView, ...]
    leader: str | None
    finished: bool
    guc_line: str  # the command line to use, once finished (or the current leader's, marked as such)
    test_ids: tuple[str, ...]  # every auto-tune test seen, in first-seen order


# --- mutable per-run state ----------------------------------------------------------------------


@dataclass
class _Part:
    """A partial stream of a run: a guc channel or a worker thread."""

    host: str
    label: str
    bytes: int = 0
    inst: float = 0.0
    avg: float = 0.0
    elapsed: float = 0.0
    state: str = RUNNING
    percent: float | None = None
    files: int = 0
    ios: int = 0
    error: str = ""
    worker: bool = False


@dataclass
class _Run:
    spec: RunSpec
    status: str = QUEUED
    started_t: float | None = None
    command: str = ""
    bytes: int = 0
    avg: float | None = None
    inst: float | None = None
    accounted_bytes: int = 0  # bytes already placed in the rate history
    accounted_t: float | None = None  # up to when; None when the run is not in flight
    has_total: bool = False  # a run-wide Progress (channel None) overrides the sum of parts
    parts: dict[tuple[str, str], _Part] = field(default_factory=dict)
    parts_bytes: int = 0
    parts_inst: float = 0.0
    parts_avg: float = 0.0
    record: ResultRecord | None = None
    ended_t: float | None = None
    earlier: bool = False  # done in an earlier attempt of a resumed results directory
    left_out: bool = False  # not selected for this attempt
    not_run: bool = False  # the attempt was stopped before this run started
    extra: bool = False  # not in the plan: a transfer a strategy chose (an auto-tune's), part of a planned run


class LiveState:
    """A bus subscriber that keeps what the views need; see the module docstring.

    ``history_step_s`` is the width of one point of the rate history; ``log_lines`` bounds the output
    kept for the log pane.
    """

    def __init__(self, *, history_step_s: float = 1.0, history_len: int = 900, log_lines: int = 2000):
        self.history_step_s = history_step_s
        self.version = 0  # bumped on every change: a renderer skips a frame when it did not move
        self._handlers: dict[type, Callable[[Event], None]] = {
            ScenarioStarted: self._on_scenario_started,  # type: ignore[dict-item]
            RunStarted: self._on_run_started,  # type: ignore[dict-item]
            Progress: self._on_progress,  # type: ignore[dict-item]
            WorkerProgress: self._on_worker_progress,  # type: ignore[dict-item]
            OutputLine: self._on_output,  # type: ignore[dict-item]
            RunFinished: self._on_run_finished,  # type: ignore[dict-item]
            Notice: self._on_notice,  # type: ignore[dict-item]
            ScenarioFinished: self._on_scenario_finished,  # type: ignore[dict-item]
            TuneUpdate: self._on_tune,  # type: ignore[dict-item]
        }
        self.scenario = ""
        self.results_dir = ""
        self.summary: Summary | None = None
        self._runs: dict[str, _Run] = {}
        self._tests: dict[str, list[_Run]] = {}
        self._test_kind: dict[str, str] = {}
        self._active: set[str] = set()  # run ids of this attempt (not skipped, not filtered out)
        self._running: dict[str, _Run] = {}
        self._started = False
        self._finished_bytes = 0
        self._agg_inst = 0.0
        self._last: _Run | None = None
        self.history_len = history_len
        self._history_t0: float | None = None
        self._moved: dict[int, float] = {}  # MiB moved in each history bucket (see _account)
        self._last_t: float | None = None  # the newest event time
        self._log: deque[str] = deque(maxlen=log_lines)
        self._log_seq = 0
        self._tunes: dict[str, TuneUpdate] = {}
        self._tune_order: list[str] = []

    # --- write side: the bus handler ---------------------------------------------------------------

    def __call__(self, event: Event) -> None:
        handler = self._handlers.get(type(event))
        if handler is not None:
            handler(event)
            self.version += 1

    def show_plan(self, scenario: str, specs: Iterable[RunSpec]) -> None:
        """Show a planned scenario (all queued) before any run, as the scenario view does on load."""
        self._reset(scenario, "", list(specs), frozenset())
        self._started = False
        self.version += 1

    def _reset(self, scenario: str, results_dir: str, specs: list[RunSpec], earlier: frozenset[str]) -> None:
        previous = [run.spec for run in self._runs.values() if run.spec.scenario == scenario]
        self.scenario = scenario
        self.results_dir = results_dir
        self.summary = None
        self._runs = {}
        self._tests = {}
        self._running = {}
        self._finished_bytes = 0
        self._agg_inst = 0.0
        self._last = None
        # Tests left out of this attempt (``--only``, the TUI's filter) stay listed, as skipped.
        in_plan = {s.run_id for s in specs}
        left_out = [spec for spec in previous if spec.run_id not in in_plan]
        for spec in sorted([*specs, *left_out], key=lambda s: (s.case, s.repeat)):
            run = _Run(spec)
            if spec.run_id not in in_plan:
                run.status, run.left_out = SKIPPED, True
            elif spec.run_id in earlier:
                run.status, run.earlier = SKIPPED, True
            self._runs[spec.run_id] = run
            self._tests.setdefault(spec.test_id, []).append(run)
            self._test_kind.setdefault(spec.test_id, spec.kind)
        self._active = {s.run_id for s in specs if s.run_id not in earlier}

    def _on_scenario_started(self, event: ScenarioStarted) -> None:
        self._reset(event.scenario, event.results_dir, list(event.plan), event.skipped_run_ids)
        self._started = True
        self._tunes = {}
        self._tune_order = []
        self._moved.clear()
        self._history_t0 = self._last_t = event.t
        done_earlier = len(event.skipped_run_ids)
        note = f" ({done_earlier} run(s) already done, resuming)" if done_earlier else ""
        self._add_log(f"# {event.scenario}: {len(self._active)} run(s){note} -> {event.results_dir}")

    def _run(self, spec: RunSpec) -> _Run:
        run = self._runs.get(spec.run_id)
        if run is None:  # a run the plan did not announce (a strategy choosing its next transfer)
            run = self._runs[spec.run_id] = _Run(spec, extra=True)
            self._tests.setdefault(spec.test_id, []).append(run)
            self._test_kind.setdefault(spec.test_id, spec.kind)
            self._active.add(spec.run_id)
        return run

    def _on_run_started(self, event: RunStarted) -> None:
        run = self._run(event.spec)
        run.status = RUNNING
        run.started_t = event.t
        run.command = " ".join(event.argv)
        run.bytes, run.avg, run.inst, run.has_total = 0, None, None, False
        run.accounted_bytes, run.accounted_t = 0, event.t
        run.parts.clear()
        run.parts_bytes, run.parts_inst, run.parts_avg = 0, 0.0, 0.0
        self._running[run.spec.run_id] = run
        self._add_log(f"$ {run.command}")

    def _on_progress(self, event: Progress) -> None:
        run = self._runs.get(event.run_id)
        if run is None:
            return
        old_inst = run.inst or 0.0
        if event.channel is None:
            run.has_total = True
            run.bytes = event.bytes
            run.avg = event.rate_avg_mib_s
            run.inst = event.rate_inst_mib_s if event.rate_inst_mib_s is not None else event.rate_avg_mib_s
        else:
            part = self._part(run, run.spec.host, event.channel, worker=False)
            inst = event.rate_inst_mib_s if event.rate_inst_mib_s is not None else (event.rate_avg_mib_s or 0.0)
            avg = event.rate_avg_mib_s or 0.0
            run.parts_bytes += event.bytes - part.bytes
            run.parts_inst += inst - part.inst
            run.parts_avg += avg - part.avg
            part.bytes, part.inst, part.avg, part.elapsed = event.bytes, inst, avg, event.elapsed_s
            if event.length_bytes:
                part.percent = 100.0 * event.bytes / event.length_bytes
            if not run.has_total:
                run.bytes, run.inst, run.avg = run.parts_bytes, run.parts_inst, run.parts_avg
        self._rate_changed(event.t, run, old_inst)

    def _on_worker_progress(self, event: WorkerProgress) -> None:
        run = self._runs.get(event.run_id)
        if run is None:
            return
        old_inst = run.inst or 0.0
        part = self._part(run, event.host, str(event.thread), worker=True)
        avg = event.bytes / MIB / event.elapsed_s if event.elapsed_s > 0 else 0.0
        if event.state == RUNNING and event.elapsed_s > part.elapsed:
            inst = (event.bytes - part.bytes) / MIB / (event.elapsed_s - part.elapsed)
        elif event.state == RUNNING:
            inst = part.inst
        else:
            inst = 0.0  # preparing, ready, done, failed: this thread moves nothing now
        run.parts_bytes += event.bytes - part.bytes
        run.parts_inst += inst - part.inst
        run.parts_avg += avg - part.avg
        part.bytes, part.inst, part.avg, part.elapsed = event.bytes, inst, avg, event.elapsed_s
        part.state, part.files, part.ios, part.error = event.state, event.files, event.ios, event.error
        if event.bytes_total:
            part.percent = 100.0 * event.bytes / event.bytes_total
        elif event.files_total:
            part.percent = 100.0 * event.files / event.files_total
        if not run.has_total:
            run.bytes, run.inst, run.avg = run.parts_bytes, run.parts_inst, run.parts_avg
        self._rate_changed(event.t, run, old_inst)

    def _part(self, run: _Run, host: str, label: str, *, worker: bool) -> _Part:
        key = (host, label)
        part = run.parts.get(key)
        if part is None:
            part = run.parts[key] = _Part(host=host, label=label, worker=worker)
        return part

    def _rate_changed(self, t: float, run: _Run, old_inst: float) -> None:
        if run.status == RUNNING:
            self._agg_inst += (run.inst or 0.0) - old_inst
            self._account(run, run.bytes, t)

    def _on_output(self, event: OutputLine) -> None:
        self._add_log(event.text if len(self._running) <= 1 else f"[{event.run_id}] {event.text}")

    def _on_notice(self, event: Notice) -> None:
        self._add_log(f"{event.level}: {event.text}")

    def _on_run_finished(self, event: RunFinished) -> None:
        record = event.record
        run = self._run_for_record(record)
        was_running = self._running.pop(record.run_id, None) is not None
        if was_running:
            self._agg_inst -= run.inst or 0.0
        run.status = record.status
        run.record = record
        run.ended_t = event.t
        if record.bytes is not None:
            self._account(run, record.bytes, event.t)
            run.bytes = record.bytes
        run.accounted_t = None
        final_state = PASSED if record.status == PASSED else record.status
        for part in run.parts.values():
            if part.state in (RUNNING, "preparing", "ready"):
                part.state = final_state
            part.inst = 0.0
        self._finished_bytes += run.bytes
        self._last = run
        if not self._running:
            self._agg_inst = 0.0  # no drift survives an idle moment
        rate = record.rate_incl_setup_mib_s
        if record.status == PASSED:
            text = f"{record.status}: {record.run_id}  {human_bytes(record.bytes)} in {record.seconds or 0:.3f}s"
            if rate is not None:
                text += f"  {rate:.1f} MiB/s"
        else:
            text = f"{record.status}: {record.run_id}  {short_error(record.error)}"
        self._add_log(text)

    def _run_for_record(self, record: ResultRecord) -> _Run:
        run = self._runs.get(record.run_id)
        if run is None:
            spec = RunSpec(run_id=record.run_id, scenario=record.scenario, test_id=record.test_id, case=record.case,
                           repeat=record.repeat, kind=record.kind, host=record.host, argv=tuple(record.argv),
                           params=dict(record.params))
            run = self._run(spec)
        return run

    def _on_scenario_finished(self, event: ScenarioFinished) -> None:
        self.summary = event.summary
        for run in self._running.values():  # defensive: every run ends in a RunFinished
            run.status = INTERRUPTED
        self._running.clear()
        for run_id in self._active:  # stopped before they started
            run = self._runs[run_id]
            if run.status == QUEUED:
                run.status, run.not_run = SKIPPED, True
        self._agg_inst = 0.0
        s = event.summary
        counts = ", ".join(f"{n} {status}" for status, n in sorted(s.counts.items())) or "no runs"
        note = " (interrupted by the user)" if s.interrupted else ""
        self._add_log(f"# {counts} of {s.total} planned{note}")

    def _on_tune(self, event: TuneUpdate) -> None:
        if event.test_id not in self._tunes:
            self._tune_order.append(event.test_id)
        self._tunes[event.test_id] = event

    def _add_log(self, text: str) -> None:
        self._log.append(text)
        self._log_seq += 1

    def _account(self, run: _Run, total_bytes: int, t: float) -> None:
        """Place the bytes a run moved since its last report into the history, evenly over that time.

        The history counts bytes moved per second rather than sampling reported rates: guc reports
        every 2 s (every 5 s in third-party mode) and often only once, at its exit, so a sampled
        rate would read zero, or one instant, while gigabytes move. A report's new bytes are spread
        back over the time since the previous report (or the start), which is where they moved.
        """
        self._last_t = t if self._last_t is None else max(self._last_t, t)
        if run.accounted_t is None or self._history_t0 is None:
            return
        delta = total_bytes - run.accounted_bytes
        if delta > 0:
            self._spread(delta / MIB, run.accounted_t, t, self._moved)
        run.accounted_bytes, run.accounted_t = total_bytes, max(run.accounted_t, t)

    def _spread(self, mib: float, start: float, end: float, into: dict[int, float]) -> None:
        """Add ``mib`` to the buckets of [start, end] in proportion to their overlap."""
        t0 = self._history_t0
        assert t0 is not None
        step = self.history_step_s
        last = int((end - t0) / step) if end > t0 else 0
        first = int((start - t0) / step) if start > t0 else 0
        if first == last or end <= start:  # the common case: telemetry every ~250 ms, buckets of 1 s
            into[last] = into.get(last, 0.0) + mib
        else:
            for bucket in range(first, last + 1):
                low = max(start, t0 + bucket * step)
                high = min(end, t0 + (bucket + 1) * step)
                if high > low:
                    into[bucket] = into.get(bucket, 0.0) + mib * (high - low) / (end - start)
        if into is self._moved and len(into) > self.history_len:
            oldest = last - self.history_len
            for bucket in [b for b in into if b < oldest]:
                del into[bucket]

    # --- read side: what the views draw ------------------------------------------------------------

    @property
    def active(self) -> bool:
        """A scenario run has started and not finished."""
        return self._started and self.summary is None

    def tests(self) -> list[TestRow]:
        rows = []
        for test_id, all_runs in self._tests.items():
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
            not_run = sum(1 for run in runs if run.not_run)
            if not_run:
                notes.append(f"{not_run} not run (stopped)")
            if transfers:
                bad = sum(1 for run in transfers if run.status not in (PASSED, QUEUED, RUNNING))
                notes.append(f"{len(transfers)} transfers" + (f" ({bad} not passed)" if bad else ""))
            rows.append(TestRow(
                test_id=test_id, kind=self._test_kind.get(test_id, ""),
                hosts=", ".join(dict.fromkeys(run.spec.host for run in runs)),
                status=status, done=done, total=len(runs), passed=statuses.count(PASSED), note=", ".join(notes),
                last_rate_mib_s=self._last_rate(all_runs),
            ))
        return rows

    @staticmethod
    def _last_rate(runs: list[_Run]) -> float | None:
        live = [run for run in runs if run.status == RUNNING and run.avg is not None]
        if live:
            return live[-1].avg
        ended = [run for run in runs if run.record is not None and run.record.rate_incl_setup_mib_s is not None]
        if ended:
            return max(ended, key=lambda run: run.ended_t or 0.0).record.rate_incl_setup_mib_s  # type: ignore[union-attr]
        return None

    def _line(self, run: _Run, now: float) -> RunLine:
        if run.status == RUNNING:
            elapsed = now - (run.started_t if run.started_t is not None else now)
            return RunLine(run.spec.run_id, run.spec.host, run.command, run.status, max(elapsed, 0.0), run.bytes,
                           run.spec.length_bytes, run.avg, run.inst)
        record = run.record
        return RunLine(run.spec.run_id, run.spec.host, run.command or " ".join(run.spec.argv), run.status,
                       (record.seconds if record and record.seconds is not None else 0.0), run.bytes,
                       run.spec.length_bytes, record.rate_incl_setup_mib_s if record else run.avg, None)

    def run_panel(self, now: float) -> RunPanel:
        in_flight = list(self._running.values())
        # A run that only steers others (an auto-tune: no command of its own) stands back behind them.
        steering = [run for run in in_flight if not run.command and len(in_flight) > 1]
        running = tuple(self._line(run, now) for run in in_flight if run not in steering)
        if self.summary is not None:
            state = "interrupted" if self.summary.interrupted else "finished"
        elif self._started:
            state = RUNNING
        else:
            state = "idle"
        planned = [run_id for run_id in self._active if not self._runs[run_id].extra]
        done = sum(1 for run_id in planned if self._runs[run_id].record is not None)
        live_avg = [run.avg for run in self._running.values() if run.avg is not None]
        return RunPanel(
            scenario=self.scenario, results_dir=self.results_dir, state=state, runs_done=done,
            runs_total=len(planned), running=running,
            last=self._line(self._last, now) if self._last is not None else None,
            bytes_moved=self._finished_bytes + sum(run.bytes for run in self._running.values()),
            rate_inst_mib_s=self._agg_inst if self._running else None,
            rate_avg_mib_s=sum(live_avg) if live_avg else None, summary=self.summary,
        )

    def rate_series(self, now: float, points: int) -> list[float]:
        """The aggregate rate in MiB/s, one value per ``history_step_s``, the last ``points`` up to ``now``.

        Each value is the MiB moved in that interval over its length. For the time since a run in
        flight last reported, its last known rate stands in until its next report gives the real bytes.
        """
        if self._history_t0 is None or points <= 0:
            return []
        step = self.history_step_s
        until = now if self.active else (self._last_t or now)
        end_bucket = max(0, int((until - self._history_t0) / step))
        first = max(0, end_bucket - points + 1)
        estimate: dict[int, float] = {}
        for run in self._running.values():
            if run.inst and run.accounted_t is not None and now > run.accounted_t:
                self._spread(run.inst * (now - run.accounted_t), run.accounted_t, now, estimate)
        return [(self._moved.get(b, 0.0) + estimate.get(b, 0.0)) / step for b in range(first, end_bucket + 1)]

    def log_since(self, seq: int) -> tuple[int, list[str], int]:
        """Lines after sequence number ``seq``: (new seq, lines, lines dropped because the buffer wrapped)."""
        new = self._log_seq - seq
        if new <= 0:
            return self._log_seq, [], 0
        kept = min(new, len(self._log))
        lines = list(self._log)[-kept:] if kept else []
        return self._log_seq, lines, new - kept

    def threads(self, sort: str = "host", reverse: bool = False, text_filter: str = "") -> list[ThreadRow]:
        """Per-thread rows (gfapi workers), per-stream rows (guc channels) and one row per guc run and host
        when a run reports no finer data; sorted by ``sort`` (a ThreadRow field)."""
        rows: list[ThreadRow] = []
        needle = text_filter.lower()
        for run in self._runs.values():
            if run.status in (QUEUED, SKIPPED) or run.spec.run_id not in self._active:
                continue
            if run.parts:
                for part in run.parts.values():
                    rows.append(self._part_row(run, part))
            elif _whole_run_row(run.spec.kind):
                rows.append(self._run_row(run))
        if needle:
            rows = [r for r in rows if needle in f"{r.run_id} {r.host} {r.thread} {r.state}".lower()]
        return sort_thread_rows(rows, sort, reverse)

    @staticmethod
    def _part_row(run: _Run, part: _Part) -> ThreadRow:
        elapsed = part.elapsed
        per_s = (lambda n: n / elapsed) if elapsed > 0 else (lambda n: None)
        return ThreadRow(
            key=f"{run.spec.run_id}|{part.host}|{part.label}", run_id=run.spec.run_id, host=part.host,
            thread=part.label, percent=part.percent, mib=part.bytes / MIB,
            mib_s=part.avg if elapsed > 0 else None,
            iops=per_s(part.ios) if part.worker else None, files_s=per_s(part.files) if part.worker else None,
            state=part.state, error=part.error,
        )

    @staticmethod
    def _run_row(run: _Run) -> ThreadRow:
        length = run.spec.length_bytes
        rate = run.avg if run.status == RUNNING else (run.record.rate_incl_setup_mib_s if run.record else run.avg)
        return ThreadRow(
            key=f"{run.spec.run_id}|{run.spec.host}|all", run_id=run.spec.run_id, host=run.spec.host,
            thread="all", percent=100.0 * run.bytes / length if length else None, mib=run.bytes / MIB,
            mib_s=rate, iops=None, files_s=None, state=run.status,
            error=short_error(run.record.error, 60) if run.record and run.record.error else "",
        )

    def records(self) -> list[ResultRecord]:
        """The records of this attempt's finished runs, in plan order."""
        return [run.record for run in self._runs.values() if run.record is not None and not run.earlier]

    def tune_test_ids(self) -> tuple[str, ...]:
        return tuple(self._tune_order)

    def tune(self, test_id: str | None = None) -> TunePanel | None:
        """The ranking of ``test_id`` (default: the auto-tune test updated last)."""
        if not self._tunes:
            return None
        if test_id not in self._tunes:
            test_id = max(self._tunes, key=lambda k: self._tunes[k].t)
        update = self._tunes[test_id]
        spec = next((run.spec for run in self._tests.get(update.test_id, [])), None)
        return tune_panel(update, spec, tuple(self._tune_order))


def _whole_run_row(kind: str) -> bool:
    """Whether a run of ``kind`` without per-thread telemetry shows as one row (not a gfapi run)."""
    found = registry().find(kind)
    return found.whole_run_row if found is not None else True


# --- pure helpers the views share -----------------------------------------------------------------

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
        ci = "-" if row.ci_low_mib_s is None or row.ci_high_mib_s is None else \
            f"±{(row.ci_high_mib_s - row.ci_low_mib_s) / 2:.0f}"
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


# Tables as text, shared by the TUI's tables and its CSV export so both always say the same thing.

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
