"""One scenario run, wired: results directory, journal, tag logs, executor and extra subscribers.

Every front end runs scenarios through here (by way of :mod:`gftpwb.shell.frontend`): the headless
CLI adds the console sink, the TUI its live state, the tgftp drop-ins their screens. That shared path
is what makes a ``--tui`` run and a headless run write the same results.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import signal
from collections.abc import Iterable
from dataclasses import dataclass, field

from gftpwb.core.bus import EventBus, Handler
from gftpwb.core.dsl.model import Scenario
from gftpwb.core.events import Notice
from gftpwb.core.journal import Journal
from gftpwb.core.records import ResultRecord, Summary
from gftpwb.core.registry import registry
from gftpwb.core.specs import RunSpec

from . import results_dir as rd
from .executor import Executor
from .sinks.journal import JOURNAL_NAME, JournalSink
from .sinks.taglogs import TagLogSink
from .transports.hosts import HostTransports


@dataclass
class RunRequest:
    """What to run and where its results go. ``results_dir`` None: no results directory (the tgftp
    drop-ins write only their tag logs, through their own subscribers)."""

    scenario: Scenario
    specs: list[RunSpec]
    results_dir: str | None
    command: list[str]
    resume: bool = False
    subscribers: list[Handler] = field(default_factory=list)
    accept_new_host_keys: bool = False  # trust unknown SSH hosts on first use (logged as a warning)


@dataclass
class PreparedRun:
    request: RunRequest
    done: frozenset[str]
    earlier: list[ResultRecord]
    notes: list[str]


@dataclass
class Outcome:
    """How a scenario run ended: the summary, and every record it finished (the journal)."""

    summary: Summary
    journal: Journal


def prepare_run(request: RunRequest) -> PreparedRun:
    """Create (or, with resume, check and reopen) the results directory. Raises on refusal."""
    if request.results_dir is None:
        return PreparedRun(request, frozenset(), [], [])
    if request.resume:
        earlier, done, notes = rd.resume_state(request.results_dir, request.specs)
    else:
        rd.prepare(request.results_dir, request.scenario.text, request.specs, request.command)
        earlier, done, notes = [], frozenset(), []
    return PreparedRun(request, done, earlier, notes)


def consumers(specs: Iterable[RunSpec], results_dir: str) -> list[Handler]:
    """The extra subscribers the kinds of these runs add (:attr:`gftpwb.core.registry.Kind.consumers`)."""
    kinds = {spec.kind for spec in specs}
    reg = registry()
    return [reg.resolve(ref)(results_dir) for kind in reg.kinds() if kind.name in kinds for ref in kind.consumers]


async def execute(prepared: PreparedRun, *, install_signal_handlers: bool = True,
                  executor: Executor | None = None) -> Outcome:
    """Run what is left of the plan; Ctrl-C / SIGTERM stop it after recording the run in flight.

    ``executor`` lets a front end keep a handle on the run (the TUI calls its ``stop()``); it is wired
    to this run's bus and to the scenario's host transports, exactly as the default one would be.
    """
    request = prepared.request
    bus = EventBus()
    directory = request.results_dir
    journal = (Journal(prepared.earlier) if directory is None
               else JournalSink(os.path.join(directory, JOURNAL_NAME), prepared.earlier))
    bus.subscribe(journal)  # first: a record is on disk before anyone else hears of it
    if directory is not None:
        bus.subscribe(TagLogSink(directory, shlex.join(request.command)))
        for consumer in consumers(request.specs, directory):
            bus.subscribe(consumer)
    for subscriber in request.subscribers:
        bus.subscribe(subscriber)
    transports = HostTransports(
        request.scenario.hosts, accept_new_host_keys=request.accept_new_host_keys,
        notify=lambda text: bus.publish(Notice(level="warning", text=text)))
    if executor is None:
        executor = Executor(bus, transport_for=transports)
    else:  # a front end's own executor (the TUI's, so it can stop() it): same bus, same hosts
        executor.bus = bus
        executor.transport_for = transports
    loop = asyncio.get_running_loop()
    # SIGHUP: the terminal or SSH session of a headless run went away (the TUI handles its own).
    signals: Iterable[int] = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP) if install_signal_handlers else ()
    for sig in signals:
        loop.add_signal_handler(sig, executor.stop, signal.Signals(sig).name)
    try:
        for note in prepared.notes:
            bus.publish(Notice(level="warning", text=f"{JOURNAL_NAME}: {note}"))
        summary = await executor.run(request.specs, results_dir=directory or os.getcwd(),
                                     scenario=request.scenario.name, done=prepared.done, earlier=prepared.earlier)
        return Outcome(summary, journal)
    finally:
        for sig in signals:
            loop.remove_signal_handler(sig)
        await transports.close()
        journal.close()
