"""One scenario run, wired: results directory, journal, tag logs, executor and extra subscribers.

Both front ends use this: the headless CLI adds the console sink, the TUI adds its own subscriber.
That shared path is what makes a ``--tui`` run and a headless run write the same results.
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
from gftpwb.core.records import ResultRecord, Summary
from gftpwb.core.specs import RunSpec
from gftpwb.kinds.gfapi.run.files import GfapiFilesSink
from gftpwb.shell.sinks.journal import JOURNAL_NAME, JournalSink
from gftpwb.shell.sinks.taglogs import TagLogSink
from gftpwb.shell.transports.hosts import HostTransports

from . import results_dir as rd
from .executor import Executor


@dataclass
class RunRequest:
    scenario: Scenario
    specs: list[RunSpec]
    results_dir: str
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


def prepare_run(request: RunRequest) -> PreparedRun:
    """Create (or, with resume, check and reopen) the results directory. Raises on refusal."""
    if request.resume:
        earlier, done, notes = rd.resume_state(request.results_dir, request.specs)
    else:
        rd.prepare(request.results_dir, request.scenario.text, request.specs, request.command)
        earlier, done, notes = [], frozenset(), []
    return PreparedRun(request, done, earlier, notes)


async def execute(prepared: PreparedRun, *, install_signal_handlers: bool = True,
                  executor: Executor | None = None) -> Summary:
    """Run what is left of the plan; Ctrl-C / SIGTERM stop it after recording the run in flight.

    ``executor`` lets a front end keep a handle on the run (the TUI calls its ``stop()``); it is wired
    to this run's bus and to the scenario's host transports, exactly as the default one would be.
    """
    request = prepared.request
    bus = EventBus()
    journal = JournalSink(os.path.join(request.results_dir, JOURNAL_NAME))
    bus.subscribe(journal)
    bus.subscribe(TagLogSink(request.results_dir, shlex.join(request.command)))
    bus.subscribe(GfapiFilesSink(request.results_dir))
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
    signals: Iterable[int] = (signal.SIGINT, signal.SIGTERM) if install_signal_handlers else ()
    for sig in signals:
        loop.add_signal_handler(sig, executor.stop)
    try:
        for note in prepared.notes:
            bus.publish(Notice(level="warning", text=f"{JOURNAL_NAME}: {note}"))
        return await executor.run(request.specs, results_dir=request.results_dir, scenario=request.scenario.name,
                                  done=prepared.done, earlier=prepared.earlier)
    finally:
        for sig in signals:
            loop.remove_signal_handler(sig)
        await transports.close()
        journal.close()
