"""The runner of ``kind: gfapi`` tests: build, launch, synchronised start, live telemetry, results.

Phases of one run, on every host of the job at once:

1. **build**: make sure the host has the worker binary of this source (``worker_build``);
2. **launch**: start ``processes`` workers per host with a pipe to their stdin; each connects
   (glfs_init can take seconds), creates its directories and reports ``ready``;
3. **start**: once every worker is ready (or out of the run: failed, or not ready within
   ``ready_timeout``), write ``start <T>`` to all of them, T being a common instant
   ``start_lead`` ahead, on each host's clock (controller time + that host's clock offset), so
   threads on all hosts start together however long the writes take; each thread reports its
   actual start, and the spread is the run's start skew;
4. **run**: parse the workers' line protocol as it streams, publish ``WorkerProgress`` per
   thread and an aggregate ``Progress``; when the first thread finishes, ask every worker for an
   immediate sample (``snap``) so the stonewalled "first done" figures are precise;
5. **end**: every thread ends in a final state; the record carries per-thread, per-process,
   per-host and cluster results in ``details["gfapi"]``.

A timeout or Ctrl-C writes ``stop`` (the workers finish their current operation and report what
they did), then stops what is left with the transport's SIGTERM/SIGKILL. A worker that dies or a
host that drops out fails only its own threads.

Clock offsets (host clock minus controller clock, seconds) are measured for every SSH host at the
start of each run, as ``hosts check`` does (NTP-style, ± half the best round trip, in the record),
unless given: ``GfapiRunner(clock_offsets={"c1": 0.0042})``. This machine's offset is 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any

from gftpwb.core.clockoffset import ZERO
from gftpwb.core.events import Event, IoTrace, Notice, Progress, RunStarted, TraceLevelChanged
from gftpwb.core.records import FAILED, INTERRUPTED, PASSED, TIMEOUT, ResultRecord, bound_output
from gftpwb.core.runrecord import record_for
from gftpwb.core.scenario.model import LOCAL
from gftpwb.core.specs import RunSpec
from gftpwb.core.trace.setting import IO, TraceSetting
from gftpwb.core.transport import Process, StartError, Transport
from gftpwb.kinds.gfapi.job import GfapiJob, worker_args
from gftpwb.kinds.gfapi.protocol import Message, WorkerStream
from gftpwb.kinds.gfapi.report import LAST_DONE_SPAN
from gftpwb.kinds.gfapi.stats import group_stats, partial, summarize
from gftpwb.kinds.gfapi.timing import timing
from gftpwb.kinds.gfapi.tracker import GfapiRun, ProcessState
from gftpwb.shell import tracecontrol
from gftpwb.shell.context import Interrupted, RunContext, run_program, utc_now_iso
from gftpwb.shell.runners import unstoppable

from .worker_build import WorkerBuilder, WorkerBuildError, default_cache_dir

MIB = 1024 * 1024
SINCE_THE_GUN = "since the starting gun"  # what a live sample's average spans: the controller's clock
TICK_S = 1.0  # aggregate Progress; per-thread WorkerProgress follows every worker sample (~250 ms)
EXIT_WAIT_S = 10.0  # after its `end` line a worker exits at once; this is only a safety net


class _Run:
    """The state of one run in flight: its processes, its tracker, and a wake-up for waiters."""

    def __init__(self, ctx: RunContext, spec: RunSpec, job: GfapiJob, offsets_ns: dict[str, int]):
        self.ctx = ctx
        self.spec = spec
        self.job = job
        self.tracker = GfapiRun(job, spec.run_id, offsets_ns)
        self.procs: dict[tuple[str, int], Process] = {}
        self.pump_of: dict[tuple[str, int], asyncio.Task[None]] = {}
        self.changed = asyncio.Event()
        self.start_mono: float | None = None
        self.start_target_ns = 0
        self.background: set[asyncio.Task[Any]] = set()
        self.last_sample: tuple[float, int] | None = None  # (monotonic, bytes) of the last Progress
        self.clocks: dict[str, dict[str, Any]] = {}  # per host: offset_s, uncertainty_ms, source
        self.trace = TraceSetting.of_details(spec.details)
        self.trace_token = secrets.token_hex(8)  # names this run's I/O trace files on the workers' hosts
        self.transports: dict[str, Transport] = {}
        self.io_traced = self.trace.io  # I/O events were on at some point: the files are worth fetching

    def io_trace_path(self, host: str, p: int) -> str:
        """Where worker ``p`` on ``host`` writes its I/O trace ("" when the run is not traced): a new,
        unguessable name in that host's /tmp (the worker creates it with O_EXCL, mode 0600). A run at
        the ``run`` level has one too, with I/O events off, so they can be switched on while it runs."""
        return f"/tmp/gftpwb-iotrace-{self.trace_token}-{host}-p{p}.bin" if self.trace.on else ""

    def switch_level(self, level: str, source: str) -> None:
        """Switch the running workers' I/O events on (io) or off (run): a line on their stdin."""
        self.io_traced |= level == IO
        for proc in self.tracker.live():
            self.spawn(self.send(proc, f"trace {level}\n"))
        for host in sorted({proc.host for proc in self.tracker.live()}):
            self.ctx.publish(TraceLevelChanged(run_id=self.spec.run_id, host=host, level=level, source=source))

    def publish(self, events: list[Event]) -> None:
        for event in events:
            self.ctx.publish(event)
        self.changed.set()

    def spawn(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def send(self, proc: ProcessState, line: str) -> None:
        process = self.procs.get((proc.host, proc.process))
        if process is None:
            return
        with contextlib.suppress(Exception):  # a worker that just exited cannot read: that is fine
            await process.write(line.encode())


class GfapiRunner:
    """``runner(ctx, spec) -> ResultRecord`` for gfapi tests (see the module docstring)."""

    def __init__(self, clock_offsets: Mapping[str, float] | None = None,
                 cache_dir_for: Callable[[str], str | None] = default_cache_dir,
                 builder: WorkerBuilder | None = None):
        self.clock_offsets = dict(clock_offsets or {})
        self._cache_dir_for = cache_dir_for
        self._builder = builder

    @property
    def builder(self) -> WorkerBuilder:
        if self._builder is None:
            self._builder = WorkerBuilder(self._cache_dir_for)
        return self._builder

    async def __call__(self, ctx: RunContext, spec: RunSpec) -> ResultRecord:
        job = GfapiJob.from_params(spec.params)
        offsets_ns = {h: round(self.clock_offsets.get(h, 0.0) * 1e9) for h in job.hosts}
        run = _Run(ctx, spec, job, offsets_ns)
        started_at = utc_now_iso()
        t0 = time.monotonic()
        ctx.publish(RunStarted(spec=spec, argv=spec.argv, started_at=started_at))
        run.publish(run.tracker.initial_events())
        timed_out = interrupted = False
        unregister = tracecontrol.register(run.switch_level) if run.trace.on else None
        try:
            async with asyncio.timeout(spec.timeout_s):
                await self._run(run)
        except TimeoutError:
            timed_out = True
            await unstoppable(self._stop_all(run))
        except asyncio.CancelledError:
            interrupted = True
            await unstoppable(self._stop_all(run))
        except BaseException:
            await unstoppable(self._stop_all(run))  # a bug of ours or a sink's: leave nothing running
            raise
        finally:
            if unregister is not None:
                unregister()
        if run.background:  # late `snap` writes and stops of dropped workers: let them finish
            await asyncio.wait(run.background, timeout=run.ctx.kill_grace_s * 2 + EXIT_WAIT_S)
        seconds = round(time.monotonic() - t0, 6)
        record = self._record(run, started_at=started_at, ended_at=utc_now_iso(), seconds=seconds,
                              timed_out=timed_out, interrupted=interrupted)
        if record.status == INTERRUPTED:
            raise Interrupted(record)
        return record

    # --- phases --------------------------------------------------------------------------------

    async def _run(self, run: _Run) -> None:
        job = run.job
        need_gfapi = job.mode == "gfapi"
        transports = run.transports = {host: run.ctx.transport_for(host) for host in job.hosts}
        built, _ = await asyncio.gather(
            asyncio.gather(*(self.builder.ensure(transports[h], h, need_gfapi=need_gfapi) for h in job.hosts),
                           return_exceptions=True),
            asyncio.gather(*(self._clock(run, transports[h], h) for h in job.hosts)))
        binaries: dict[str, str] = {}
        for host, result in zip(job.hosts, built, strict=True):
            if isinstance(result, BaseException):
                if not isinstance(result, WorkerBuildError | StartError | OSError):
                    raise result
                run.publish(run.tracker.host_failed(host, str(result)))
            else:
                binaries[host] = result
        await asyncio.gather(*(self._launch(run, transports[host], host, p, binaries[host])
                               for host in binaries for p in range(job.processes)))
        await self._wait_ready(run)
        await self._start(run)
        ticker = asyncio.create_task(self._tick(run))
        try:
            pumps = list(run.pump_of.values())
            if pumps:  # wait() rather than gather(): a timeout must not cancel the readers
                await asyncio.wait(pumps)
            errors = [pump.exception() for pump in pumps if not pump.cancelled() and pump.exception()]
            if errors:
                raise errors[0]
        finally:
            ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ticker
        self._publish_measured(run)

    async def _clock(self, run: _Run, transport: Transport, host: str) -> None:
        """The host's clock offset: given to the runner, else measured now over SSH (as ``hosts
        check`` does: NTP-style samples, the shortest round trip wins), else this machine's own (0)."""
        if host in self.clock_offsets:
            run.clocks[host] = {"offset_s": self.clock_offsets[host], "uncertainty_ms": None, "source": "given"}
            return
        try:
            clock = await transport.clock_offset()
        except (StartError, ValueError, OSError, TimeoutError) as exc:
            run.clocks[host] = {"offset_s": 0.0, "uncertainty_ms": None, "source": f"not measured: {exc}"}
            run.publish([Notice(level="warning", text=f"{run.spec.run_id}: clock offset of {host} not measured "
                                                      f"({exc}); its thread starts are taken as in sync")])
            return
        if clock is ZERO:  # the controller itself
            run.clocks[host] = {"offset_s": 0.0, "uncertainty_ms": 0.0, "source": "this machine"}
            return
        run.tracker.offsets[host] = round(clock.offset_s * 1e9)
        run.clocks[host] = {"offset_s": round(clock.offset_s, 6), "uncertainty_ms": round(clock.uncertainty_s * 1e3, 3),
                            "source": "measured"}

    async def _launch(self, run: _Run, transport: Transport, host: str, p: int, binary: str) -> None:
        argv = worker_args(run.job, binary, host, p, io_trace=run.io_trace_path(host, p),
                           io_trace_every=run.trace.every, io_trace_level=run.trace.level)
        marked = run_program.set(True)  # the run's own program (a Slurm step's failure policy applies)
        try:
            process = await transport.start(argv, stdin=True)
        except (StartError, OSError) as exc:
            run.publish(run.tracker.process_failed(host, p, f"cannot start the worker: {exc}"))
            return
        finally:
            run_program.reset(marked)
        run.procs[(host, p)] = process
        run.pump_of[(host, p)] = asyncio.create_task(self._pump(run, host, p, process))

    async def _pump(self, run: _Run, host: str, p: int, process: Process) -> None:
        """Read one worker's output to its end, feeding the tracker; then collect its exit.

        Only the transport's failures (a host that drops out) end a pump quietly, failing that
        process; an error in our own handling propagates and stops the run.
        """
        stream = WorkerStream()
        exit_code: int | None = None
        reason = ""
        chunks = process.output().__aiter__()
        while True:
            try:
                name, data = await chunks.__anext__()
            except StopAsyncIteration:
                break
            except Exception as exc:  # the transport lost its host: fail only this process
                reason = f"lost the worker's connection: {exc}"
                break
            for message in stream.feed(name, data):
                self._handle(run, host, p, message)
        for message in stream.close():
            self._handle(run, host, p, message)
        try:
            if reason:
                raise TimeoutError
            exit_code = await asyncio.wait_for(process.wait(), EXIT_WAIT_S)
        except TimeoutError:
            with contextlib.suppress(Exception):
                await process.stop(run.ctx.kill_grace_s)
                exit_code = await asyncio.wait_for(process.wait(), EXIT_WAIT_S)
        with contextlib.suppress(Exception):
            await process.close_stdin()
        if run.trace.on:
            await self._fetch_io_trace(run, host, p)
        run.publish(run.tracker.process_exited(host, p, exit_code, reason))

    async def _fetch_io_trace(self, run: _Run, host: str, p: int) -> None:
        """Bring a worker's I/O trace from its host (after the worker ended: never during the measurement)
        to the trace sink, and remove it there. A trace that cannot be fetched is a warning, not a failure."""
        path, transport = run.io_trace_path(host, p), run.transports[host]
        chunks: list[bytes] = []
        problem = ""
        if host == LOCAL:  # this machine: read and remove the file here rather than cat and rm it through
            # a pipe (about 20 ms of CPU per 8 MB otherwise; docs/benchmarks/tracing.md)
            try:
                data = await asyncio.to_thread(_take_file, path, run.io_traced)
            except OSError as exc:
                run.publish([Notice(level="warning", text=f"{run.spec.run_id}: no I/O trace from {host} process {p}: "
                                                          f"{exc.strerror or exc}")])
                return
            if run.io_traced:
                run.publish([IoTrace(run_id=run.spec.run_id, host=host, process=p, data=data,
                                     clock_offset_ns=run.tracker.offsets.get(host, 0))])
            return
        if not run.io_traced:  # never switched on: only a header; remove it
            with contextlib.suppress(StartError, OSError):
                await (await transport.start(["rm", "-f", "--", path])).wait()
            return
        try:
            process = await transport.start(["cat", "--", path])
            async for name, data in process.output():
                if name == "stdout":
                    chunks.append(data)
                else:
                    problem += data.decode("utf-8", errors="replace")
            code = await process.wait()
            if code != 0:
                problem = problem.strip() or f"cat exited with status {code}"
        except (StartError, OSError) as exc:
            problem = str(exc)
        with contextlib.suppress(StartError, OSError):
            remover = await transport.start(["rm", "-f", "--", path])
            await remover.wait()
        if problem:
            run.publish([Notice(level="warning", text=f"{run.spec.run_id}: no I/O trace from {host} process {p}: "
                                                      f"{problem.strip()}")])
            return
        run.publish([IoTrace(run_id=run.spec.run_id, host=host, process=p, data=b"".join(chunks),
                             clock_offset_ns=run.tracker.offsets.get(host, 0))])

    def _handle(self, run: _Run, host: str, p: int, message: Message) -> None:
        run.publish(run.tracker.feed(host, p, message))
        if run.tracker.take_first_done():
            for proc in run.tracker.live():
                if (proc.host, proc.process) != (host, p):  # that worker reported at once already
                    run.spawn(run.send(proc, "snap\n"))

    async def _wait_ready(self, run: _Run) -> None:
        deadline = time.monotonic() + run.job.ready_timeout_s
        while not run.tracker.all_settled():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            run.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(run.changed.wait(), remaining)
        for proc in run.tracker.unsettled():
            run.publish(run.tracker.process_failed(
                proc.host, proc.process, f"not ready within {run.job.ready_timeout_s:g}s (ready_timeout); dropped"))
            process = run.procs.get((proc.host, proc.process))
            if process is not None:
                run.spawn(process.stop(run.ctx.kill_grace_s))

    async def _start(self, run: _Run) -> None:
        startable = run.tracker.startable()
        if not startable:
            return
        lead_ns = round(run.job.start_lead_s * 1e9)
        target = time.time_ns() + lead_ns if lead_ns else 0
        run.start_target_ns = target
        run.start_mono = time.monotonic() + run.job.start_lead_s
        for proc in startable:
            proc.started = True
        # Each host gets the common instant on its own clock: controller time + the host's offset.
        lines = {(p.host, p.process): f"start {target + run.tracker.offsets.get(p.host, 0) if target else 0}\n"
                 for p in startable}
        await asyncio.gather(*(run.send(p, lines[(p.host, p.process)]) for p in startable))

    async def _tick(self, run: _Run) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            self._publish_progress(run)

    def _publish_progress(self, run: _Run) -> None:
        if run.start_mono is None:
            return
        elapsed = max(time.monotonic() - run.start_mono, 1e-9)
        _files, _ios, nbytes = run.tracker.totals()
        previous = run.last_sample
        inst = None
        now = time.monotonic()
        if previous is not None and now > previous[0]:
            inst = (nbytes - previous[1]) / MIB / (now - previous[0])
        run.last_sample = (now, nbytes)
        moves = run.job.bytes_per_file > 0  # an unlink moves no data: no rate of bytes, not 0 MiB/s
        run.ctx.publish(Progress(run_id=run.spec.run_id, bytes=nbytes, rate_avg_mib_s=nbytes / MIB / elapsed if moves
                                 else None, rate_inst_mib_s=inst if moves else None, elapsed_s=elapsed,
                                 length_bytes=run.job.total_bytes or None, span=SINCE_THE_GUN))

    def _publish_measured(self, run: _Run) -> None:
        """The last sample: every thread's work over the run's measured window (first thread start to last
        thread end, on the threads' own clocks), the window and rate the result reports. The samples
        before it ran on the controller's clock since the starting gun, which also counts the time the
        last reports took to arrive: without this one, a short run's live rate would end far below
        its result with no word why."""
        last = group_stats(run.tracker.results())["last_done"]
        if last is None or not last["seconds"]:
            self._publish_progress(run)
            return
        run.ctx.publish(Progress(run_id=run.spec.run_id, bytes=last["bytes"], rate_avg_mib_s=last["mib_s"],
                                 rate_inst_mib_s=None,
                                 elapsed_s=last["seconds"], length_bytes=run.job.total_bytes or None,
                                 span=LAST_DONE_SPAN))

    async def _stop_all(self, run: _Run) -> None:
        """Ask every live worker to stop and report; then stop what is left, and wait for the pumps."""
        await asyncio.gather(*(run.send(proc, "stop\n") for proc in run.tracker.live()))
        grace = run.ctx.kill_grace_s
        pending = {key: task for key, task in run.pump_of.items() if not task.done()}
        if pending:
            await asyncio.wait(pending.values(), timeout=grace)
            running = [key for key, task in pending.items() if not task.done()]
            if running:  # whatever the tracker thinks: a worker whose output is still open gets stopped
                await asyncio.gather(*(run.procs[key].stop(grace) for key in running), return_exceptions=True)
                await asyncio.wait([pending[key] for key in running], timeout=grace + EXIT_WAIT_S)
        for task in run.pump_of.values():
            if not task.done():
                task.cancel()
        for task in list(run.background):
            task.cancel()
        for proc in run.tracker.live():
            run.publish(run.tracker.process_failed(proc.host, proc.process, "stopped"))

    # --- the record ----------------------------------------------------------------------------

    def _record(self, run: _Run, *, started_at: str, ended_at: str, seconds: float, timed_out: bool,
                interrupted: bool) -> ResultRecord:
        spec, job, tracker = run.spec, run.job, run.tracker
        for proc in tracker.live():  # nothing may stay open-ended in a record
            tracker.process_failed(proc.host, proc.process, "never finished")
        summary = summarize(tracker.results())
        info = {(p["host"], p["process"]): p for p in tracker.process_info()}
        for row in summary["processes"]:
            row.update({k: v for k, v in info.get((row["host"], row["process"]), {}).items()
                        if k not in ("host", "process")})
        problems = tracker.problems()
        all_ok = all(t.status == "ok" for t in tracker.threads.values()) and not problems
        if interrupted:
            status, error = INTERRUPTED, "interrupted by the user"
        elif timed_out:
            status, error = TIMEOUT, f"timed out after {spec.timeout_s:g}s; the workers were stopped"
        elif all_ok:
            status, error = PASSED, ""
        else:
            status, error = FAILED, ""
        if problems:
            shown = problems[:20] + ([f"... and {len(problems) - 20} more"] if len(problems) > 20 else [])
            error = "\n".join(([error] if error else []) + shown)
        codes = [p.exit_code for p in tracker.processes.values() if p.exit_code not in (None, 0)]
        cluster_bytes = summary["cluster"]["bytes"]
        details = {"gfapi": {
            "mode": job.mode, "workload": job.workload, "target": job.target,
            "processes_per_host": job.processes, "threads_per_process": job.threads,
            "clock_offsets_s": {h: tracker.offsets.get(h, 0) / 1e9 for h in job.hosts},
            "clocks": run.clocks,
            "start_lead_ms": round(job.start_lead_s * 1000, 3),
            "start_target_unix_ns": run.start_target_ns or None,
            "found_file_sizes": tracker.found_sizes(),
            **summary,
        }}
        details["gfapi"]["timing"] = timing(details["gfapi"], run.clocks)
        if status != PASSED:  # what the threads that finished measured, apart (a host lost mid-run)
            details["gfapi"]["partial"] = partial(tracker.results())
        return record_for(
            spec, status, started_at=started_at, ended_at=ended_at, seconds=seconds, bytes=cluster_bytes,
            rate_incl_setup_mib_s=round(cluster_bytes / MIB / seconds, 3) if seconds > 0 and job.bytes_per_file
            else None,  # an unlink moves no data: no rate of bytes (not 0)
            exit_code=codes[0] if codes else 0, error=error, output=bound_output(tracker.output_text()),
            details=details)


run = GfapiRunner()  # the gfapi kind's runner (its worker builds are cached across runs)


def _take_file(path: str, wanted: bool) -> bytes:
    """The bytes of a local I/O trace file (``b""`` when not ``wanted``: a run never switched to io),
    which is removed in either case; a missing file is an error only when wanted."""
    try:
        with open(path, "rb") as handle:
            return handle.read() if wanted else b""
    except FileNotFoundError:
        if wanted:
            raise
        return b""
    finally:
        with contextlib.suppress(OSError):
            os.remove(path)
