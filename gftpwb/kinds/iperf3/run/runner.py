"""The runner of ``kind: iperf3`` tests: a server where the test says, a client where the test says.

One run:

1. start ``iperf3 -s`` on the server host on a free port (a random one in 20000-32000, another when
   iperf3 says the address is in use; or the test's ``port``) and wait for "Server listening";
2. with ``window: bdp`` and no ``rtt``, run a 1 s probe client and take its smallest RTT;
3. run the client (``-J``) on the client host; the server's interval reports (``--forceflush``) are
   the live progress, per stream and in total; the client's JSON is the result;
4. stop the server (with ``-1`` it has usually exited by itself).

A timeout or Ctrl-C stops the client, the probe and the server (their whole process groups, on
whichever hosts they run: the transports kill groups locally and over SSH); every path ends in one
record. Both hosts are reached through ``ctx.transport_for`` (``local`` or SSH).
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable

from gftpwb.core.events import OutputLine, Progress, RunStarted
from gftpwb.core.output import ParsedItem, ProgressSample, TextLine
from gftpwb.core.records import INTERRUPTED, ResultRecord
from gftpwb.core.specs import RunSpec
from gftpwb.core.transport import Process, ProcessLost, StartError, Transport
from gftpwb.kinds.iperf3.job import MAX_WINDOW, Iperf3Job
from gftpwb.kinds.iperf3.result import Iperf3OutputError, probe_rtt_s
from gftpwb.kinds.iperf3.session import Iperf3Session
from gftpwb.shell.commands import with_commands
from gftpwb.shell.context import Interrupted, RunContext, utc_now_iso
from gftpwb.shell.runners import record_of, unstoppable

PORT_RANGE = (20000, 32000)  # below Linux's ephemeral ports (32768-60999), so outgoing sockets rarely hold one
PORT_ATTEMPTS = 5
SERVER_READY_S = 30.0  # from starting the server to "Server listening"
SERVER_EXIT_S = 3.0  # after the client: the one-off server prints its summary and exits by itself


class RunError(Exception):
    """A run that cannot go on (the server did not start, the probe failed); the text says why."""


class _Run:
    """The processes of one run in flight, so that every way out stops all of them."""

    def __init__(self, ctx: RunContext, spec: RunSpec, session: Iperf3Session):
        self.ctx, self.spec, self.session = ctx, spec, session
        self.t0 = time.monotonic()
        self.running: dict[str, Process] = {}  # role -> process not known to have exited
        self.server_pump: asyncio.Task[int | None] | None = None
        self.changed = asyncio.Event()

    def emit(self, items: list[ParsedItem]) -> None:
        for item in items:
            if isinstance(item, ProgressSample):
                self.ctx.publish(Progress(run_id=self.spec.run_id, bytes=item.bytes, rate_avg_mib_s=item.avg_mib_s,
                                          rate_inst_mib_s=item.inst_mib_s, elapsed_s=time.monotonic() - self.t0,
                                          length_bytes=self.spec.length_bytes if item.channel is None else None,
                                          channel=item.channel))
            elif isinstance(item, TextLine):
                self.ctx.publish(OutputLine(run_id=self.spec.run_id, stream=item.stream, text=item.text))

    async def stop_all(self) -> None:
        grace = self.ctx.kill_grace_s
        await asyncio.gather(*(proc.stop(grace) for proc in self.running.values()), return_exceptions=True)
        self.running.clear()
        if self.server_pump is not None and not self.server_pump.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self.server_pump), grace + SERVER_EXIT_S)
            self.server_pump.cancel()
        if self.server_pump is not None:
            with contextlib.suppress(BaseException):
                await self.server_pump


class Iperf3Runner:
    """``runner(ctx, spec) -> ResultRecord`` for iperf3 tests (see the module docstring)."""

    def __init__(self, pick_port: Callable[[], int] | None = None, server_ready_s: float = SERVER_READY_S):
        self.pick_port = pick_port or (lambda: random.randrange(*PORT_RANGE))
        self.server_ready_s = server_ready_s

    async def __call__(self, ctx: RunContext, spec: RunSpec) -> ResultRecord:
        job = Iperf3Job.from_params(spec.params)
        session = Iperf3Session(job)
        run = _Run(ctx, spec, session)
        started_at = utc_now_iso()
        ctx.publish(RunStarted(spec=spec, argv=spec.argv, started_at=started_at))
        exit_code: int | None = None
        timed_out = interrupted = False
        error = ""
        try:
            try:
                async with asyncio.timeout(spec.timeout_s):
                    exit_code = await self._run(run)
            finally:
                await unstoppable(run.stop_all())
        except TimeoutError:
            timed_out = True
        except asyncio.CancelledError:
            interrupted = True
        except (RunError, StartError, ProcessLost) as exc:
            error = str(exc)
        seconds = round(time.monotonic() - run.t0, 6)
        run.emit(session.close())
        outcome = session.outcome(exit_code, seconds, timed_out=timed_out, interrupted=interrupted,
                                  timeout_s=spec.timeout_s, start_error=error)
        record = record_of(spec, outcome, started_at=started_at, ended_at=utc_now_iso(), seconds=seconds,
                           exit_code=exit_code)
        if record.status == INTERRUPTED:
            raise Interrupted(record)
        return record

    async def _run(self, run: _Run) -> int:
        job, session = run.session.job, run.session
        server_t, client_t = run.ctx.transport_for(job.server), run.ctx.transport_for(job.client)
        await asyncio.gather(server_t.prepare(), client_t.prepare())
        port = await self._start_server(run, server_t)
        rtt = await self._probe(run, client_t, port) if job.needs_probe else None
        if job.needs_probe:  # the server is ready for the test itself once it listens again
            await self._wait_listening(run, 2)
        window = job.window_bytes(rtt)
        if window is not None and window > MAX_WINDOW:
            raise RunError(f"window {window} bytes (bandwidth x RTT / streams) exceeds iperf3's limit of "
                           f"{MAX_WINDOW} bytes")
        session.window = window
        session.client_argv = job.client_argv(port, window)
        started = time.monotonic()
        client = await client_t.start(session.client_argv)
        run.running["client"] = client
        async for stream, data in client.output():
            run.emit(session.feed_client(stream, data))
        exit_code = await client.wait()
        run.running.pop("client", None)
        session.client_seconds = round(time.monotonic() - started, 6)
        if run.server_pump is not None:  # the one-off server ends by itself: keep its closing lines
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(run.server_pump), SERVER_EXIT_S)
        return exit_code

    async def _start_server(self, run: _Run, transport: Transport) -> int:
        job, session = run.session.job, run.session
        attempts = 1 if job.port is not None else PORT_ATTEMPTS
        for _ in range(attempts):
            port = job.port if job.port is not None else self.pick_port()
            session.ports_tried.append(port)
            session.port = port
            session.server_argv = job.server_argv(port)
            errors_before = len(session.server_log.errors)
            server = await transport.start(session.server_argv)
            run.running["server"] = server
            run.server_pump = asyncio.create_task(self._pump_server(run, server))
            if await self._wait_listening(run, 1, fail=False):
                return port
            new_errors = session.server_log.errors[errors_before:]
            if run.server_pump.done():
                exit_code = run.server_pump.result()
                run.running.pop("server", None)
                if job.port is None and any("Address already in use" in e for e in new_errors):
                    session.note(f"port {port} is in use on {job.server}; trying another")
                    continue
                why = "; ".join(new_errors) or f"it exited with status {exit_code}"
                raise RunError(f"the iperf3 server on {job.server} did not start on port {port}: {why}")
            raise RunError(f"the iperf3 server on {job.server} did not report listening on port {port} within "
                           f"{self.server_ready_s:g}s")
        raise RunError(f"the iperf3 server on {job.server} found no free port in {attempts} attempts "
                       f"({', '.join(map(str, session.ports_tried))})")

    async def _pump_server(self, run: _Run, server: Process) -> int | None:
        try:
            async for stream, data in server.output():
                run.emit(run.session.feed_server(stream, data))
                run.changed.set()
            code = await server.wait()
        except ProcessLost:
            code = None
        if run.running.get("server") is server:
            del run.running["server"]  # ended (a one-off server after its test): nothing left to stop
        run.changed.set()
        return code

    async def _wait_listening(self, run: _Run, count: int, *, fail: bool = True) -> bool:
        """Until the server has said "Server listening" ``count`` times; False when it ended first or
        took too long (with ``fail``: :class:`RunError` instead)."""
        deadline = time.monotonic() + self.server_ready_s
        log = run.session.server_log
        while log.listening < count:
            pump = run.server_pump
            remaining = deadline - time.monotonic()
            if pump is None or pump.done() or remaining <= 0:
                if fail:
                    raise RunError(f"the iperf3 server on {run.session.job.server} stopped listening "
                                   "after the RTT probe")
                return False
            run.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(run.changed.wait(), remaining)
        return True

    async def _probe(self, run: _Run, transport: Transport, port: int) -> float:
        job, session = run.session.job, run.session
        argv = job.probe_argv(port)
        session.note(f"RTT probe from {job.client}: {' '.join(argv)}")
        probe = await transport.start(argv)
        run.running["probe"] = probe
        chunks: dict[str, list[bytes]] = {"stdout": [], "stderr": []}
        async for stream, data in probe.output():
            chunks.setdefault(stream, []).append(data)
        await probe.wait()
        run.running.pop("probe", None)
        try:
            rtt = probe_rtt_s(b"".join(chunks["stdout"]).decode("utf-8", errors="replace"))
        except Iperf3OutputError as exc:
            stderr = b"".join(chunks["stderr"]).decode("utf-8", errors="replace").strip()
            raise RunError(f"the RTT probe from {job.client} failed: {exc}{'; ' + stderr if stderr else ''}") from None
        session.measured_rtt(rtt)
        return rtt


run = with_commands(Iperf3Runner())  # the iperf3 kind's runner
