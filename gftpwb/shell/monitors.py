"""The monitors of a scenario run, as a :class:`~gftpwb.shell.context.Service`: one sampler process
per host, started over the host's transport (this machine's, or SSH under the remote wrapper),
streaming raw readings for as long as the scenario runs.

* **One process per host**, whatever the number of monitors there, started once, not one SSH
  command per sample: the python3 program of :mod:`gftpwb.shell.hostsampler` where the host has
  python3, else a POSIX sh loop; one command starts either
  (:func:`gftpwb.core.monitors.sampler.sampler_command`), and ``GFTPWB_SAMPLER=python|sh`` forces
  one (default ``auto``). On a remote host it runs under the wrapper of
  :mod:`gftpwb.shell.transports.remote`, whose watchdog kills it when the SSH session goes; it also
  exits when its parent goes, when its output pipe closes, and is killed with its process group
  when the service stops. Nothing is left behind.
* **One time line.** The service takes the controller's monotonic and wall clocks at one moment
  (:class:`~gftpwb.core.monitors.timeline.ClockMap`); each host's readings are converted through its
  sampler clock and the host's clock offset (measured over SSH as for gfapi's synchronised starts)
  onto that line, where runs start and end (their events' ``t``).
* **Samples** are published as :class:`~gftpwb.core.events.MonitorSample` events (the files sink
  writes ``monitors.jsonl``; the TUI can show them), and each run's summary as a
  :class:`~gftpwb.core.events.MonitorSummary` once every sampler has read past the run's end.
* **A monitor never fails the scenario.** A host whose sampler cannot start, or that is lost, is
  reported as a warning and its monitors stop; the tests go on.

The parsing is the core's (:mod:`gftpwb.core.monitors`); this module only moves bytes and time.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import secrets
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from gftpwb.core.clockoffset import ZERO, ClockOffset
from gftpwb.core.events import (
    Event,
    MonitorSample,
    MonitorsFinished,
    MonitorSummary,
    Notice,
    RunFinished,
    RunStarted,
    SamplerEnded,
    SamplerStarted,
)
from gftpwb.core.monitors.model import Monitor
from gftpwb.core.monitors.plan import control_ports, probes_by_host
from gftpwb.core.monitors.readers import Reader, reader_for
from gftpwb.core.monitors.sampler import AUTO, SAMPLERS, SH, ClockLine, Probe, Reading, SamplerStream, sampler_command
from gftpwb.core.monitors.summary import RunSummary, Span, SummaryBook, figures_to_dict
from gftpwb.core.monitors.timeline import ClockMap, HostClock
from gftpwb.core.scenario.model import Scenario
from gftpwb.core.specs import RunSpec
from gftpwb.core.transport import Process

from .context import Service, ServiceContext

STDERR_LINES = 5  # a sampler's stderr lines reported as warnings, per host (then a count)
SAMPLER_ENV = "GFTPWB_SAMPLER"  # auto (python3 where the host has it, else sh), python or sh


@functools.cache
def host_program() -> str:
    """The python3 sampler's text, as it is sent to the hosts (read, not imported: it is a program)."""
    return (Path(__file__).parent / "hostsampler.py").read_text(encoding="utf-8")


def sampler_mode() -> tuple[str, str]:
    """The sampler ``GFTPWB_SAMPLER`` asks for, and a warning if its value is not one gftpwb knows."""
    mode = os.environ.get(SAMPLER_ENV, "").strip().lower() or AUTO
    if mode in SAMPLERS:
        return mode, ""
    return AUTO, f"{SAMPLER_ENV}={mode!r} is not one of {', '.join(SAMPLERS)}; using {AUTO}"


def monitor_services(scenario: Scenario, specs: Sequence[RunSpec]) -> list[Service]:
    """The service of a scenario's ``monitors:`` (none without them)."""
    if not scenario.monitors:
        return []
    return [MonitorService(scenario.monitors, control_ports(specs))]


class MonitorService:
    """Samplers on every monitored host, their samples on the bus, and per-run summaries."""

    def __init__(self, monitors: Sequence[Monitor], default_control_ports: tuple[int, ...] = (2811,), *,
                 start_timeout_s: float = 20.0, stop_grace_s: float = 1.0):
        self.monitors = tuple(monitors)
        self.by_host = probes_by_host(self.monitors, default_control_ports)
        self.default_control_ports = default_control_ports
        self.start_timeout_s = start_timeout_s
        self.stop_grace_s = stop_grace_s
        self.samplers: list[HostSampler] = []
        self.samples = 0
        self._ctx: ServiceContext | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._changed = asyncio.Event()
        self.clock = ClockMap(time.monotonic(), time.time())
        self.book = SummaryBook()
        self.mode = AUTO

    @property
    def ctx(self) -> ServiceContext:
        assert self._ctx is not None, "the service has not been started"
        return self._ctx

    async def start(self, ctx: ServiceContext, results_dir: str | None) -> None:
        self._ctx = ctx
        self.clock = ClockMap(time.monotonic(), time.time())
        self.book = SummaryBook((m.id, host) for host, items in self.by_host.items() for m, _ in items)
        self._unsubscribe = ctx.subscribe(self._on_event)
        self.mode, problem = sampler_mode()
        if problem:
            self.warn(problem)
        self.samplers = [HostSampler(self, host, items) for host, items in self.by_host.items()]
        await asyncio.gather(*(sampler.start() for sampler in self.samplers))

    async def stop(self) -> None:
        """Wait (at most about one interval) for the readings that complete the last runs' summaries,
        unless the run was stopped; then stop every sampler and publish what is left."""
        if self._ctx is None:
            return
        if self.book.waiting and not self.ctx.stopping:
            longest = max(m.interval_s for m in self.monitors)
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(longest + 2.0):
                    while self.book.waiting:
                        self._changed.clear()
                        await self._changed.wait()
        await asyncio.gather(*(sampler.stop() for sampler in self.samplers))
        for summary in self.book.flush():
            self._publish_summary(summary)
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.ctx.publish(MonitorsFinished(samples=self.samples, figures=figures_to_dict(self.book.overall),
                                          types={m.id: m.type for m in self.monitors}))
        self._ctx = None

    # --- from the samplers and the bus ----------------------------------------------------------

    def warn(self, text: str) -> None:
        self.ctx.publish(Notice(level="warning", text=f"monitors: {text}"))

    def sampled(self, event: MonitorSample, span: Span) -> None:
        self.samples += 1
        self.ctx.publish(event)
        for summary in self.book.add(span):
            self._publish_summary(summary)
        self._changed.set()

    def stream_ended(self, monitor: str, host: str) -> None:
        for summary in self.book.ended((monitor, host)):
            self._publish_summary(summary)
        self._changed.set()

    def _on_event(self, event: Event) -> None:
        if isinstance(event, RunStarted):
            self.book.started(event.spec.run_id, event.t)
        elif isinstance(event, RunFinished):
            for summary in self.book.finished(event.record.run_id, event.t):
                self._publish_summary(summary)

    def _publish_summary(self, summary: RunSummary) -> None:
        self.ctx.publish(MonitorSummary(
            run_id=summary.run_id, started_utc=self.clock.utc(summary.start), ended_utc=self.clock.utc(summary.end),
            figures=figures_to_dict(summary.figures)))


class HostSampler:
    """The sampler process of one host and the reading of its stream."""

    def __init__(self, service: MonitorService, host: str, items: list[tuple[Monitor, Probe]]):
        self.service = service
        self.host = host
        self.items = {probe.index: (monitor, probe) for monitor, probe in items}
        self.readers: dict[int, Reader] = {
            probe.index: reader_for(monitor, service.default_control_ports) for monitor, probe in items}
        self.previous_cs: dict[int, int] = {}
        self.nonce = secrets.token_hex(6)
        self.stream = SamplerStream(self.nonce)
        self.process: Process | None = None
        self.task: asyncio.Task[None] | None = None
        self.offset: ClockOffset = ZERO
        self.host_clock: HostClock | None = None
        self.first_round = asyncio.Event()
        self.stopping = False
        self.stderr_lines = 0
        self.failing: set[int] = set()  # monitors whose latest reading failed (warned once per failure)

    async def start(self) -> None:
        try:
            async with asyncio.timeout(self.service.start_timeout_s):
                await self._launch()
                await self.first_round.wait()
        except TimeoutError:
            reason = "no readings" if self.process is not None else "could not be reached"
            self.service.warn(f"the sampler on {self.host} {reason} within {self.service.start_timeout_s:g}s; "
                              "its monitors are off")
            await self.stop(reason)
        except Exception as exc:  # a monitor never fails the scenario: say why and go on without it
            self.service.warn(f"cannot start the sampler on {self.host}: {exc}; its monitors are off")
            await self.stop(str(exc))

    async def _launch(self) -> None:
        transport = self.service.ctx.transport_for(self.host)
        self.offset = await transport.clock_offset()
        probes = [probe for _, probe in self.items.values()]
        mode = self.service.mode
        self.process = await transport.start(
            sampler_command(probes, self.nonce, host_program() if mode != SH else "", mode))
        self.task = asyncio.create_task(self._read(self.process))
        self.service.ctx.publish(SamplerStarted(
            host=self.host, monitors=tuple(m.id for m, _ in self.items.values()),
            clock_offset_s=self.offset.offset_s, clock_uncertainty_s=self.offset.uncertainty_s))

    async def stop(self, reason: str = "") -> None:
        """Kill the sampler's process group and wait for its stream to end."""
        if self.stopping:
            return
        self.stopping = True
        if self.process is not None:
            with contextlib.suppress(Exception):
                await self.process.stop(self.service.stop_grace_s)
        if self.task is not None:
            try:
                await asyncio.wait_for(self.task, self.service.stop_grace_s + 5)
            except (TimeoutError, asyncio.CancelledError):
                self.task.cancel()
                await asyncio.gather(self.task, return_exceptions=True)
        else:
            self._ended(reason or "not started")

    async def _read(self, process: Process) -> None:
        reason = ""
        try:
            async for name, data in process.output():
                if name == "stdout":
                    for item in self.stream.feed(data):
                        self._item(item)
                else:
                    self._stderr(data)
            status = await process.wait()
            if not self.stopping:
                reason = f"the sampler exited with status {status}"
        except asyncio.CancelledError:
            reason = ""
            raise
        except Exception as exc:  # ProcessLost, a dropped connection: the monitors of this host end
            reason = str(exc) or type(exc).__name__
        finally:
            if reason and not self.stopping:
                self.service.warn(f"the sampler on {self.host} stopped: {reason}; its monitors are off")
            self._ended(reason)

    def _ended(self, reason: str) -> None:
        self.first_round.set()
        self.service.ctx.publish(SamplerEnded(host=self.host, reason=reason))
        for monitor, _ in self.items.values():
            self.service.stream_ended(monitor.id, self.host)

    def _stderr(self, data: bytes) -> None:
        if self.stopping:
            return  # the shell's "Terminated" for the sleep it waited on, as the group is killed
        for line in data.decode("utf-8", "replace").splitlines():
            if not line.strip():
                continue
            self.stderr_lines += 1
            if self.stderr_lines <= STDERR_LINES:
                self.service.warn(f"{self.host}: {line.strip()[:200]}")

    def _item(self, item: ClockLine | Reading) -> None:
        if isinstance(item, ClockLine):
            self.host_clock = HostClock.of(item, self.offset, fallback_epoch=time.time())
            return
        if self.host_clock is None or item.index not in self.items:
            return
        monitor, _ = self.items[item.index]
        figures = self.readers[item.index].read(item)
        previous = self.previous_cs.get(item.index)
        self.previous_cs[item.index] = item.uptime_cs
        if len(self.previous_cs) == len(self.items):
            self.first_round.set()
        if figures.error:
            if item.index not in self.failing:  # once, until the monitor reads again
                self.service.warn(f"{monitor.id} on {self.host}: {figures.error}")
            self.failing.add(item.index)
        else:
            self.failing.discard(item.index)
        if not figures.values and not figures.error:
            return  # the first reading of counters: the base of the next one's rates
        sampled = self.service.clock.to_mono(self.host_clock.to_epoch(item.uptime_cs))
        span_s = (item.uptime_cs - previous) / 100 if previous is not None else monitor.interval_s
        event = MonitorSample(monitor=monitor.id, type=monitor.type, host=self.host, sampled_t=sampled,
                              utc=self.service.clock.utc(sampled), span_s=span_s, values=figures.values,
                              error=figures.error)
        self.service.sampled(event, Span(monitor.id, self.host, sampled - span_s, sampled, figures.values))
