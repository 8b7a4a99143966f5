"""One scenario run, wired: results directory, journal, tag logs, executor, extra subscribers, and
services that run alongside it (:class:`~gftpwb.shell.context.Service`: the scenario's monitors,
:mod:`gftpwb.shell.monitors`, and any a front end adds).

Every front end runs scenarios through here (by way of :mod:`gftpwb.shell.frontend`): the headless
CLI adds the console sink, the TUI its live state, the tgftp drop-ins their screens. That shared path
is what makes a ``--tui`` run and a headless run write the same results.
"""

from __future__ import annotations

import asyncio
import os
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.bus import EventBus, Handler
from gftpwb.core.errors import StorageError
from gftpwb.core.events import Notice
from gftpwb.core.harness.agenda import Schedule
from gftpwb.core.harness.instances import effective_seed
from gftpwb.core.journal import Journal
from gftpwb.core.records import ResultRecord, Summary
from gftpwb.core.registry import registry
from gftpwb.core.scenario.model import Scenario
from gftpwb.core.specs import RunSpec

from . import interrupts, tracecontrol
from . import results_dir as rd
from .context import Service
from .environment import collect_environment
from .executor import Executor
from .monitors import monitor_services
from .sinks.aggregates import AggregatesSink
from .sinks.expectations import ExpectationsSink
from .sinks.guard import WRITE_FAILED, WriteGuard
from .sinks.journal import JOURNAL_NAME, JournalSink
from .sinks.monitors import MonitorFiles
from .sinks.samples import SamplesSink
from .sinks.taglogs import TagLogSink
from .sinks.trace import TraceSink
from .tracestream import TraceStream
from .transports.hosts import HostTransports


@dataclass
class RunRequest:
    """What to run and where its results go. ``results_dir`` None: no results directory (the tgftp
    drop-ins write only their tag logs, through their own subscribers)."""

    scenario: Scenario
    specs: Sequence[RunSpec]
    results_dir: str | None
    command: list[str]
    resume: bool = False
    subscribers: list[Handler] = field(default_factory=list)
    accept_new_host_keys: bool = False  # trust unknown SSH hosts on first use (logged as a warning)
    record_environment: bool = True  # probe every host used and keep what it is in meta.json
    services: list[Service] = field(default_factory=list)  # run alongside the whole scenario run (monitors)
    trace_to: str = ""  # HOST:PORT of a trace collector (gftpwb trace collect) to stream the trace to


@dataclass
class PreparedRun:
    request: RunRequest
    done: frozenset[str]
    earlier: list[ResultRecord]
    notes: list[str]
    lock: rd.DirectoryLock | None = None  # held from here to the end of execute()
    stream: TraceStream | None = None  # the live trace stream (--trace-to), connected before anything is written

    @property
    def nothing_left(self) -> bool:
        """A resumed directory whose every planned run already has its record: the run adds nothing to
        it, meta.json included (no ``resumed`` entry for an attempt that ran nothing)."""
        return self.request.resume and all(spec.run_id in self.done for spec in self.request.specs)

    def release(self) -> None:
        """Unlock the results directory (execute() does it at its end; a front end that prepared a
        run and then did not execute it calls this)."""
        if self.lock is not None:
            self.lock.release()


@dataclass
class Outcome:
    """How a scenario run ended: the summary, and every record it finished (the journal)."""

    summary: Summary
    journal: Journal


def prepare_run(request: RunRequest) -> PreparedRun:
    """Create (or, with resume, check and reopen) the results directory. Raises on refusal (also when
    the trace collector of ``--trace-to`` cannot be reached: before the directory is made)."""
    if request.results_dir is None:
        return PreparedRun(request, frozenset(), [], [])
    stream = (TraceStream.connect(request.trace_to, results_dir=request.results_dir, scenario=request.scenario.name)
              if request.trace_to else None)
    lock: rd.DirectoryLock | None = None
    try:
        lock = rd.lock(request.results_dir, request.command, create=not request.resume)
        if request.resume:
            earlier, done, notes = rd.resume_state(request.results_dir, request.specs)
            notes = [*notes, *rd.repair_taglogs(request.results_dir, earlier)]
        else:
            rd.prepare(request.results_dir, request.scenario.text, request.specs, request.command,
                       harness_meta(request.scenario))
            earlier, done, notes = [], frozenset(), []
    except BaseException:
        if lock is not None:
            lock.release()
        if stream is not None:
            stream.close()
        raise
    return PreparedRun(request, done, earlier, notes, lock=lock, stream=stream)


def harness_meta(scenario: Scenario) -> dict[str, Any]:
    """What ``meta.json`` records of the harness settings: the seed of the random delays (so a run can
    be replayed), the loops, how many tests ran at once, and the variables' values."""
    meta: dict[str, Any] = {"seed": effective_seed(scenario), "loops": scenario.loops,
                            "concurrent_tests": scenario.concurrent_tests}
    if scenario.vars:
        meta["vars"] = scenario.vars
    return meta


def consumers(specs: Iterable[RunSpec], results_dir: str) -> list[Handler]:
    """The extra subscribers the kinds of these runs add (:attr:`gftpwb.core.registry.Run.consumers`)."""
    kinds = {spec.kind for spec in specs}
    reg = registry()
    return [reg.resolve(ref)(results_dir) for kind in reg.kinds() if kind.name in kinds for ref in kind.run.consumers]


async def execute(prepared: PreparedRun, *, install_signal_handlers: bool = True,
                  executor: Executor | None = None) -> Outcome:
    """Run what is left of the plan; Ctrl-C / SIGTERM stop it after recording the run in flight.

    ``executor`` lets a front end keep a handle on the run (the TUI calls its ``stop()``); it is wired
    to this run's bus and to the scenario's host transports, exactly as the default one would be.
    """
    request = prepared.request
    bus = EventBus()
    directory = request.results_dir
    try:
        journal = (Journal(prepared.earlier) if directory is None
                   else JournalSink(os.path.join(directory, JOURNAL_NAME), prepared.earlier))
    except OSError as exc:
        prepared.release()
        raise StorageError(f"cannot open {os.path.join(directory or '', JOURNAL_NAME)}: {exc.strerror or exc}; "
                           "nothing was run") from None
    writes = WriteGuard(directory or "")
    bus.subscribe(writes.guard(journal, JOURNAL_NAME))  # first: a record is on disk before anyone else hears of it
    aggregates = AggregatesSink(directory) if directory is not None else None
    expectations = ExpectationsSink(directory) if directory is not None else None
    stream = prepared.stream
    trace = TraceSink(directory, stream) if directory is not None else None
    monitor_files = MonitorFiles(directory) if directory is not None and request.scenario.monitors else None
    if directory is not None:
        bus.subscribe(writes.guard(TagLogSink(directory, shlex.join(request.command)), "tag log"))
        bus.subscribe(writes.guard(SamplesSink(directory), "progress samples"))
        bus.subscribe(writes.guard(aggregates, "aggregates"))
        bus.subscribe(writes.guard(expectations, "expectations"))
        bus.subscribe(writes.guard(trace, "trace"))
        if monitor_files is not None:
            bus.subscribe(writes.guard(monitor_files, "monitor samples"))
        for consumer in consumers(request.specs, directory):
            bus.subscribe(writes.guard(consumer, "result files"))
    for subscriber in request.subscribers:
        bus.subscribe(subscriber)
    transports = HostTransports(
        request.scenario.hosts, accept_new_host_keys=request.accept_new_host_keys,
        notify=lambda text: bus.publish(Notice(level="warning", text=text)), slurm=request.scenario.slurm,
        inform=lambda text: bus.publish(Notice(level="info", text=text)))
    if executor is None:
        executor = Executor(bus, transport_for=transports)
    else:  # a front end's own executor (the TUI's, so it can stop() it): same bus, same hosts
        executor.bus = bus
        executor.transport_for = transports
    executor.results_dir = directory
    writes.stop = lambda: executor.stop(WRITE_FAILED)
    loop = asyncio.get_running_loop()
    # SIGHUP: the terminal or SSH session of a headless run went away (the TUI handles its own).
    signals: Iterable[int] = interrupts.STOP_SIGNALS if install_signal_handlers else ()
    probing: asyncio.Future[dict] | None = None

    def stop(name: str) -> None:
        executor.stop(name)
        if probing is not None:
            probing.cancel()

    # a Ctrl-C that came while the directory was prepared stops the run as soon as the handlers are on
    with interrupts.stop_on_signals(loop, stop, signals):
        uninstall = tracecontrol.install(loop) if install_signal_handlers else None
        started: list[Service] = []

        async def stop_services() -> None:
            while started:
                await started.pop().stop()

        try:
            for note in prepared.notes:
                bus.publish(Notice(level="warning", text=f"{JOURNAL_NAME}: {note}"))
            slurm: dict[str, Any] = {}
            if transports.slurm is not None:  # the allocation before anything runs: none, exit 10
                probing = asyncio.ensure_future(transports.open_slurm())
                try:
                    slurm = await probing
                except asyncio.CancelledError:
                    if not executor.stopping:
                        raise
                probing = None
            if directory is not None and request.record_environment and not executor.stopping \
                    and not prepared.nothing_left:
                # the kinds' specs of one pass (loops and copies run on the same hosts, against the same servers)
                planned = getattr(request.specs, "base", request.specs)
                probing = asyncio.ensure_future(collect_environment(list(planned), transports))
                try:
                    environment = await probing
                    if slurm:
                        environment["slurm"] = slurm
                    rd.record_environment(directory, environment, resumed=request.resume)
                except asyncio.CancelledError:
                    if not executor.stopping:
                        raise  # cancelled from outside, not by our own Ctrl-C handler
                except OSError as exc:  # a full disk before the first run: as one while preparing the directory
                    raise StorageError(f"cannot write {os.path.join(directory, 'meta.json')}: {exc.strerror or exc}; "
                                       "nothing was run") from None
                probing = None
            for service in [*request.services, *monitor_services(request.scenario, request.specs)]:
                if executor.stopping:
                    break  # stopped while the environment was probed: nothing runs, nothing to watch
                await service.start(executor, directory)
                started.append(service)
            summary = await executor.run(request.specs, results_dir=directory or os.getcwd(),
                                         scenario=request.scenario.name, done=prepared.done, earlier=prepared.earlier,
                                         schedule=Schedule.of(request.scenario), wind_down=stop_services)
            if stream is not None and stream.error:
                bus.publish(Notice(level="warning", text=stream.error))
            if writes.failures:
                raise StorageError(writes.report(journal, summary))
            return Outcome(summary, journal)
        finally:
            await stop_services()
            if uninstall is not None:
                uninstall()
            await transports.close()
            journal.close()
            if aggregates is not None:
                aggregates.close()
            if expectations is not None:
                expectations.close()
            if trace is not None:
                trace.close()
            if monitor_files is not None:
                monitor_files.close()
            prepared.release()
