"""What a runner may use of the executor: the run context.

A *runner* carries out one run of a kind: ``async run(ctx, spec) -> ResultRecord``. It publishes its
own progress (RunStarted, Progress, OutputLine, kind-specific events) through the context and
returns the record; the executor publishes RunFinished for it. Runners get everything they need
from here (transports, the bus, the stop flag, earlier records, child runs), so no runner imports
the executor or another runner, and a new kind's runner needs nothing else.

When stopped (Ctrl-C, the TUI's ``s``) a runner raises :class:`Interrupted` with the record of the
interrupted run, after stopping what it started.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Protocol

from gftpwb.core.events import Event
from gftpwb.core.records import ResultRecord
from gftpwb.core.specs import RunSpec
from gftpwb.core.transport import Transport

#: The run (or batch of runs: a group, the copies of a run) whose code is running: the executor sets
#: it around each run, and every task the run's code creates inherits it. A transport that starts
#: many programs at once (Slurm: one job step per run) groups the starts of one run by it; the
#: others ignore it.
launch_group: ContextVar[str] = ContextVar("launch_group", default="")
#: True around the start of a run's own program (guc, a gfapi worker), False for the checks, builds,
#: uploads and probes gftpwb runs around it. A transport that applies a failure policy to a run's
#: programs (Slurm's on_failure: cancel) applies it only to these.
run_program: ContextVar[bool] = ContextVar("run_program", default=False)


def utc_now_iso() -> str:
    """Wall-clock time for records: ISO 8601 UTC with microseconds."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


class Interrupted(Exception):
    """Raised by a runner after it recorded an interrupted run, carrying that record."""

    def __init__(self, record: ResultRecord):
        super().__init__(record.run_id)
        self.record = record


class RunContext(Protocol):
    """The executor's services, as runners see them."""

    #: Seconds between a polite stop (SIGTERM) and a kill of what a runner started.
    kill_grace_s: float
    #: Whether local programs run under ``stdbuf -o0`` (so guc's progress arrives as it happens).
    unbuffer: bool
    #: Gets a copy of every output chunk of the run's programs (role, stream, bytes), or None.
    tee: Tee | None

    @property
    def stopping(self) -> bool:
        """A stop was asked for: start nothing more."""

    @property
    def history(self) -> Sequence[ResultRecord]:
        """Final records of earlier attempts of this results directory (``--resume``), including runs a
        runner started itself: a runner that decides its own runs replays them from here."""

    def publish(self, event: Event) -> None:
        """Tell every subscriber (journal, tag logs, console, TUI), synchronously and in order."""

    def transport_for(self, host: str) -> Transport:
        """The transport of an inventory host (``local``: this machine)."""

    async def run_child(self, spec: RunSpec) -> ResultRecord:
        """Run ``spec`` (any kind) as a run of its own within this run and publish its RunFinished;
        raises ``asyncio.CancelledError`` when it was interrupted (its record is published)."""


Runner = Callable[[RunContext, RunSpec], Awaitable[ResultRecord]]
Tee = Callable[[str, str, bytes], None]  # role ("transfer", "pre", "post", "comment_command"), stream, data


class ServiceContext(Protocol):
    """What a service may use of the executor: publish events, hear them, reach the hosts."""

    @property
    def stopping(self) -> bool:
        """A stop was asked for (Ctrl-C): the scenario run is ending early."""

    def publish(self, event: Event) -> None: ...

    def subscribe(self, handler: Callable[[Event], None]) -> Callable[[], None]:
        """Hear every event from now on; returns the function that stops it."""

    def transport_for(self, host: str) -> Transport: ...


class Service(Protocol):
    """Something that runs alongside a whole scenario run rather than inside one run: the polled
    monitors (:mod:`gftpwb.shell.monitors`), later tracing. The session starts every service after
    the bus, the journal and the host transports are wired and before the first run, with the
    executor as its context (:class:`ServiceContext`) and the results directory (None when there is
    none); it stops them after the last run and before ScenarioFinished (so what they publish on
    stopping is part of the scenario run's report), and in any case before the transports close,
    also when the run was interrupted or failed."""

    async def start(self, ctx: ServiceContext, results_dir: str | None) -> None: ...

    async def stop(self) -> None: ...
