"""Live state of a scenario run for interactive front ends: absorbs events cheaply.

The bus is synchronous and runs on the executor's event loop, so a subscriber must be cheap. Calling a
:class:`LiveState` with an event only updates a few dictionaries and running sums (O(1) per event,
also for per-thread telemetry); nothing is formatted or sorted then. A front end asks the read
models (:mod:`gftpwb.core.live.read`: test rows, the run panel, the rate series, thread rows, the
auto-tune ranking, the log) on its own timer, a few times a second. That coalescing is what lets
thousands of progress events a second leave a terminal UI responsive (see ``bench/tui_load.py``).

Pure: no clock is read here; times come from the events' monotonic ``t`` and from ``now`` arguments,
which also makes every view reproducible in tests. The TUI (``gftpwb.tui``) only draws these values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from gftpwb.core.checks import Check
from gftpwb.core.events import (
    Event,
    ExpectationsChecked,
    MonitorSample,
    Notice,
    OutputLine,
    Progress,
    RunFinished,
    RunStarted,
    SamplerEnded,
    SamplerStarted,
    ScenarioFinished,
    ScenarioStarted,
    TraceLevelChanged,
    TuneUpdate,
    WorkerProgress,
)
from gftpwb.core.format import counts_text, human_bytes, short_error
from gftpwb.core.records import INTERRUPTED, PASSED, SKIPPED, ResultRecord, Summary
from gftpwb.core.specs import RunSpec
from gftpwb.core.trace.setting import TraceSetting

from .history import LogBuffer, RateHistory
from .models import MIB, QUEUED, RUNNING, PartState, RunState
from .monitors import MonitorBoard


class LiveState:
    """A bus subscriber that keeps what the views need; see the module docstring.

    ``history_step_s`` is the width of one point of the rate history; ``log_lines`` bounds the output
    kept for the log pane. The attributes are the read models' input: runs by id and by test, the
    runs of this attempt (``attempt``) and in flight (``running``), byte and rate sums, the rate
    history, the log, and the latest ranking of each auto-tune.
    """

    def __init__(self, *, history_step_s: float = 1.0, history_len: int = 900, log_lines: int = 2000):
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
            MonitorSample: self._on_monitor_sample,  # type: ignore[dict-item]
            SamplerStarted: self._on_sampler_started,  # type: ignore[dict-item]
            SamplerEnded: self._on_sampler_ended,  # type: ignore[dict-item]
            TraceLevelChanged: self._on_trace_level,  # type: ignore[dict-item]
            ExpectationsChecked: self._on_expectations,  # type: ignore[dict-item]
        }
        self.scenario = ""
        self.results_dir = ""
        self.summary: Summary | None = None
        self.runs: dict[str, RunState] = {}
        self.by_test: dict[str, list[RunState]] = {}
        self.test_kind: dict[str, str] = {}
        self.attempt: set[str] = set()  # run ids of this attempt (not skipped, not filtered out)
        self.running: dict[str, RunState] = {}
        self.started = False
        self.finished_bytes = 0
        self.rate_inst = 0.0
        self.last: RunState | None = None
        self.history = RateHistory(history_step_s, history_len)
        self.log = LogBuffer(log_lines)
        self.tunes: dict[str, TuneUpdate] = {}
        self.tune_order: list[str] = []
        self.monitors = MonitorBoard()
        self.trace_levels: dict[str, str] = {}  # run id -> its trace level now (switched while it runs)
        self.checks: list[Check] = []  # thresholds (expect:) checked as tests ended, in that order

    @property
    def active(self) -> bool:
        """A scenario run has started and not finished."""
        return self.started and self.summary is None

    @property
    def history_step_s(self) -> float:
        return self.history.step_s

    # --- the bus handler ---------------------------------------------------------------

    def __call__(self, event: Event) -> None:
        handler = self._handlers.get(type(event))
        if handler is not None:
            handler(event)
            self.version += 1

    def show_plan(self, scenario: str, specs: Iterable[RunSpec]) -> None:
        """Show a planned scenario (all queued) before any run, as the scenario view does on load."""
        self._reset(scenario, "", list(specs), frozenset())
        self.started = False
        self.version += 1

    def _reset(self, scenario: str, results_dir: str, specs: list[RunSpec], earlier: frozenset[str]) -> None:
        previous = [run.spec for run in self.runs.values() if run.spec.scenario == scenario]
        self.scenario = scenario
        self.results_dir = results_dir
        self.summary = None
        self.runs = {}
        self.by_test = {}
        self.running = {}
        self.finished_bytes = 0
        self.rate_inst = 0.0
        self.last = None
        # Tests left out of this attempt (``--only``, the TUI's filter) stay listed, as skipped.
        in_plan = {s.run_id for s in specs}
        left_out = [spec for spec in previous if spec.run_id not in in_plan]
        for spec in sorted([*specs, *left_out], key=lambda s: (s.case, s.repeat)):
            run = RunState(spec)
            if spec.run_id not in in_plan:
                run.status, run.left_out = SKIPPED, True
            elif spec.run_id in earlier:
                run.status, run.earlier = SKIPPED, True
            self.runs[spec.run_id] = run
            self.by_test.setdefault(spec.test_id, []).append(run)
            self.test_kind.setdefault(spec.test_id, spec.kind)
        self.attempt = {s.run_id for s in specs if s.run_id not in earlier}

    def _on_scenario_started(self, event: ScenarioStarted) -> None:
        self._reset(event.scenario, event.results_dir, list(event.plan), event.skipped_run_ids)
        self.started = True
        self.tunes = {}
        self.tune_order = []
        self.trace_levels = {}
        self.checks = []
        self.history.restart(event.t)
        done_earlier = len(event.skipped_run_ids)
        note = f" ({done_earlier} run(s) already done, resuming)" if done_earlier else ""
        self.log.add(f"# {event.scenario}: {len(self.attempt)} run(s){note} -> {event.results_dir}")

    def _run(self, spec: RunSpec) -> RunState:
        run = self.runs.get(spec.run_id)
        if run is None:  # a run the plan did not announce (a strategy choosing its next transfer)
            run = self.runs[spec.run_id] = RunState(spec, extra=True)
            self.by_test.setdefault(spec.test_id, []).append(run)
            self.test_kind.setdefault(spec.test_id, spec.kind)
            self.attempt.add(spec.run_id)
        return run

    def _on_run_started(self, event: RunStarted) -> None:
        run = self._run(event.spec)
        run.status = RUNNING
        run.started_t = event.t
        run.command = " ".join(event.argv)
        run.bytes, run.avg, run.inst, run.has_total = 0, None, None, False
        run.accounted_bytes, run.accounted_t, run.accounted_engine_s = 0, event.t, 0.0
        run.parts.clear()
        run.parts_bytes, run.parts_inst, run.parts_avg = 0, 0.0, 0.0
        self.running[run.spec.run_id] = run
        self.trace_levels[run.spec.run_id] = TraceSetting.of_details(event.spec.details).level
        self.log.add(f"$ {run.command}")

    def _on_progress(self, event: Progress) -> None:
        run = self.runs.get(event.run_id)
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
        self._rate_changed(event.t, run, old_inst, event.elapsed_s)

    def _on_worker_progress(self, event: WorkerProgress) -> None:
        run = self.runs.get(event.run_id)
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

    def _part(self, run: RunState, host: str, label: str, *, worker: bool) -> PartState:
        key = (host, label)
        part = run.parts.get(key)
        if part is None:
            part = run.parts[key] = PartState(host=host, label=label, worker=worker)
        return part

    def _rate_changed(self, t: float, run: RunState, old_inst: float, elapsed_s: float | None = None) -> None:
        if run.status == RUNNING:
            self.rate_inst += (run.inst or 0.0) - old_inst
            self.history.account(run, run.bytes, t, elapsed_s)

    def _on_output(self, event: OutputLine) -> None:
        self.log.add(event.text if len(self.running) <= 1 else f"[{event.run_id}] {event.text}")

    def _on_notice(self, event: Notice) -> None:
        self.log.add(f"{event.level}: {event.text}")

    def _on_run_finished(self, event: RunFinished) -> None:
        record = event.record
        run = self._run_for_record(record)
        was_running = self.running.pop(record.run_id, None) is not None
        if was_running:
            self.rate_inst -= run.inst or 0.0
        run.status = record.status
        run.record = record
        run.ended_t = event.t
        if record.bytes is not None:
            self.history.account(run, record.bytes, event.t, record.seconds)
            run.bytes = record.bytes
        run.accounted_t = None
        final_state = PASSED if record.status == PASSED else record.status
        for part in run.parts.values():
            if part.state in (RUNNING, "preparing", "ready"):
                part.state = final_state
            part.inst = 0.0
        self.finished_bytes += run.bytes
        self.last = run
        if not self.running:
            self.rate_inst = 0.0  # no drift survives an idle moment
        rate = record.rate_incl_setup_mib_s
        if record.status == PASSED:
            text = f"{record.status}: {record.run_id}  {human_bytes(record.bytes)} in {record.seconds or 0:.3f}s"
            if rate is not None:
                text += f"  {rate:.1f} MiB/s"
        else:
            text = f"{record.status}: {record.run_id}  {short_error(record.error)}"
        self.log.add(text)

    def _run_for_record(self, record: ResultRecord) -> RunState:
        run = self.runs.get(record.run_id)
        if run is None:
            spec = RunSpec(run_id=record.run_id, scenario=record.scenario, test_id=record.test_id, case=record.case,
                           repeat=record.repeat, kind=record.kind, host=record.host, argv=tuple(record.argv),
                           params=dict(record.params))
            run = self._run(spec)
        return run

    def _on_scenario_finished(self, event: ScenarioFinished) -> None:
        self.summary = event.summary
        for run in self.running.values():  # defensive: every run ends in a RunFinished
            run.status = INTERRUPTED
        self.running.clear()
        for run_id in self.attempt:  # stopped before they started
            run = self.runs[run_id]
            if run.status == QUEUED:
                run.status, run.not_run = SKIPPED, True
        self.rate_inst = 0.0
        self.monitors.stale = True  # kept on screen until the next run's samplers start
        s = event.summary
        note = " (interrupted by the user)" if s.interrupted else ""
        self.log.add(f"# {counts_text(s.counts)} of {s.total} planned{note}")

    def _on_tune(self, event: TuneUpdate) -> None:
        if event.test_id not in self.tunes:
            self.tune_order.append(event.test_id)
        self.tunes[event.test_id] = event

    def _on_monitor_sample(self, event: MonitorSample) -> None:
        self.monitors.sample(event)

    def _on_sampler_started(self, event: SamplerStarted) -> None:
        self.monitors.started(event)

    def _on_sampler_ended(self, event: SamplerEnded) -> None:
        self.monitors.stopped(event)

    def _on_trace_level(self, event: TraceLevelChanged) -> None:
        self.trace_levels[event.run_id] = event.level
        self.log.add(f"trace: {event.run_id} on {event.host} now at level {event.level}"
                     + (f" ({event.source})" if event.source else ""))

    def _on_expectations(self, event: ExpectationsChecked) -> None:
        self.checks.extend(event.checks)
        for check in event.violations:
            self.log.add(f"expect: {check.line()}")
