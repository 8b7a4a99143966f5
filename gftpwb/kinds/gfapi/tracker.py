"""The controller's view of one gfapi run, fed with worker messages. Pure.

The runner (``gftpwb/kinds/gfapi/run/runner.py``) owns processes, clocks and stdin; this class owns
the meaning: which process is ready, which thread does what, who failed and why, and the events
to publish. Every thread ends in exactly one final state whatever happens to its process (a
``d`` line, its process's fatal error, a crash, a lost host), so a failure never loses the other
threads' results.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.events import Event, OutputLine, WorkerProgress

from .job import GfapiJob
from .latency import Histogram
from .protocol import (
    EXIT_MEANINGS,
    End,
    Fatal,
    Hello,
    HistogramDelta,
    Message,
    ProcessReady,
    Sample,
    Text,
    ThreadDone,
    ThreadError,
    ThreadReady,
    ThreadStarted,
)
from .stats import ThreadResult

OUTPUT_LINES_KEPT = 400  # per process: the record keeps the tail of the workers' stderr
SIGNALS = {1: "SIGHUP", 2: "SIGINT", 6: "SIGABRT", 9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM"}


def describe_exit(code: int | None) -> str:
    if code is None:
        return "ended without an exit status"
    if code < 0:
        name = SIGNALS.get(-code, f"signal {-code}")
        return f"was killed by {name}"
    meaning = EXIT_MEANINGS.get(code)
    return f"exited with status {code}" + (f" ({meaning})" if meaning else "")


@dataclass
class ThreadState:
    host: str
    process: int
    thread: int
    state: str = "preparing"  # preparing, ready, running, done, failed
    status: str = ""  # final: ok, failed, stopped, not-started
    error: str = ""
    start_host_ns: int | None = None
    found_size: int = -1  # its first file's size before the start, as the worker found it (-1: none)
    elapsed_ns: int = 0
    files: int = 0
    ios: int = 0
    bytes: int = 0
    samples: list[tuple[int, int, int, int]] = field(default_factory=list)
    latency: dict[str, Histogram] = field(default_factory=dict)

    @property
    def final(self) -> bool:
        return bool(self.status)


@dataclass
class ProcessState:
    host: str
    process: int
    threads: list[int]
    pid: int | None = None
    capability: str = ""
    ready: bool = False
    started: bool = False
    ended: bool = False  # its `end` line arrived, or it exited, or it was given up
    exit_code: int | None = None
    error: str = ""
    output: deque[str] = field(default_factory=lambda: deque(maxlen=OUTPUT_LINES_KEPT))

    @property
    def label(self) -> str:
        return f"{self.host} p{self.process}"

    @property
    def settled(self) -> bool:
        """Nothing more to wait for before the start: ready, or out of the run."""
        return self.ready or self.ended


class GfapiRun:
    def __init__(self, job: GfapiJob, run_id: str, clock_offsets_ns: dict[str, int] | None = None):
        self.job = job
        self.run_id = run_id
        self.offsets = clock_offsets_ns or {}
        self.processes: dict[tuple[str, int], ProcessState] = {}
        self.threads: dict[tuple[str, int], ThreadState] = {}
        for host in job.hosts:
            for p in range(job.processes):
                labels = [p * job.threads + i for i in range(job.threads)]
                self.processes[(host, p)] = ProcessState(host, p, labels)
                for label in labels:
                    self.threads[(host, label)] = ThreadState(host, p, label)
        self._first_done_seen = False
        self._first_done_taken = False

    # --- events --------------------------------------------------------------------------------

    def _progress(self, t: ThreadState) -> WorkerProgress:
        return WorkerProgress(run_id=self.run_id, host=t.host, thread=t.thread, state=t.state, files=t.files,
                              bytes=t.bytes, ios=t.ios, elapsed_s=t.elapsed_ns / 1e9, files_total=self.job.files,
                              bytes_total=self.job.files * self.job.bytes_per_file, error=t.error,
                              started_unix_ns=None if t.start_host_ns is None
                              else t.start_host_ns - self.offsets.get(t.host, 0))

    def initial_events(self) -> list[Event]:
        return [self._progress(t) for t in self.threads.values()]

    def _thread(self, proc: ProcessState, label: int) -> ThreadState | None:
        return self.threads.get((proc.host, label)) if label in proc.threads else None

    def feed(self, host: str, process: int, message: Message) -> list[Event]:
        """Apply one message of worker ``process`` on ``host``; returns the events to publish."""
        proc = self.processes[(host, process)]
        if isinstance(message, Text):
            proc.output.append(f"[{proc.label}] {message.text}")
            return [OutputLine(run_id=self.run_id, stream=message.stream, text=f"[{proc.label}] {message.text}")]
        if isinstance(message, Hello):
            proc.pid, proc.capability = message.pid, message.mode
            return []
        if isinstance(message, ProcessReady):
            proc.ready = True
            return []
        if isinstance(message, Fatal):
            proc.error = message.message
            proc.output.append(f"[{proc.label}] fatal: {message.message}")
            return self._fail_open_threads(proc, f"{proc.label}: {message.message}")
        if isinstance(message, End):
            proc.ended = True
            proc.exit_code = message.exit_code
            return self._fail_open_threads(proc, f"{proc.label}: the worker ended without reporting this thread")
        t = self._thread(proc, getattr(message, "thread", -1))
        if t is None or t.final:
            return []
        if isinstance(message, ThreadReady):
            t.state = "ready"
            t.found_size = message.found_size
        elif isinstance(message, ThreadStarted):
            t.start_host_ns = message.start_unix_ns
            t.state = "running"
        elif isinstance(message, Sample):
            t.elapsed_ns, t.files, t.ios, t.bytes = message.elapsed_ns, message.files, message.ios, message.bytes
            t.samples.append((message.elapsed_ns, message.files, message.ios, message.bytes))
            t.state = "running"
        elif isinstance(message, HistogramDelta):
            t.latency.setdefault(message.op, Histogram()).add_delta(message.count, message.sum_ns, message.max_ns,
                                                                    message.buckets)
            return []
        elif isinstance(message, ThreadError):
            t.error = f"{proc.label} thread {t.thread}: {message.message}"
            return []
        elif isinstance(message, ThreadDone):
            t.elapsed_ns, t.files, t.ios, t.bytes = message.elapsed_ns, message.files, message.ios, message.bytes
            t.status = message.status
            t.state = "done" if message.status == "ok" else "failed"
            if message.status == "stopped" and not t.error:
                t.error = f"{proc.label} thread {t.thread}: stopped before finishing"
            if message.status == "ok":
                self._first_done_seen = True
        return [self._progress(t)]

    def _fail_open_threads(self, proc: ProcessState, reason: str, status: str = "failed") -> list[Event]:
        events: list[Event] = []
        for label in proc.threads:
            t = self.threads[(proc.host, label)]
            if t.final:
                continue
            t.status = status if t.start_host_ns is not None else "not-started"
            t.state = "failed"
            t.error = t.error or reason
            events.append(self._progress(t))
        return events

    def process_exited(self, host: str, process: int, exit_code: int | None, reason: str = "") -> list[Event]:
        """The process's output ended: any thread it did not finish failed with it."""
        proc = self.processes[(host, process)]
        was_ended = proc.ended
        proc.exit_code = exit_code if exit_code is not None else proc.exit_code
        proc.ended = True
        if was_ended and not reason:
            return []
        pid = f" (pid {proc.pid})" if proc.pid else ""
        why = reason or f"{describe_exit(exit_code)} before its threads finished"
        if not proc.error and not was_ended:
            proc.error = f"worker{pid} {why}"
        return self._fail_open_threads(proc, f"{proc.label}: worker{pid} {why}")

    def process_failed(self, host: str, process: int, reason: str) -> list[Event]:
        """Give up on a process (could not start, not ready in time, its host dropped out)."""
        proc = self.processes[(host, process)]
        proc.error = proc.error or reason
        proc.ended = True
        return self._fail_open_threads(proc, f"{proc.label}: {reason}")

    def host_failed(self, host: str, reason: str) -> list[Event]:
        events: list[Event] = []
        for (h, p) in self.processes:
            if h == host:
                events.extend(self.process_failed(h, p, reason))
        return events

    # --- what the runner asks ------------------------------------------------------------------

    def all_settled(self) -> bool:
        return all(p.settled for p in self.processes.values())

    def unsettled(self) -> list[ProcessState]:
        return [p for p in self.processes.values() if not p.settled]

    def startable(self) -> list[ProcessState]:
        return [p for p in self.processes.values() if p.ready and not p.ended]

    def live(self) -> list[ProcessState]:
        return [p for p in self.processes.values() if not p.ended]

    def take_first_done(self) -> bool:
        """True once: right after the first thread finished all of its work."""
        if self._first_done_seen and not self._first_done_taken:
            self._first_done_taken = True
            return True
        return False

    def totals(self) -> tuple[int, int, int]:
        """(files, ios, bytes) done so far by every thread."""
        ts = self.threads.values()
        return sum(t.files for t in ts), sum(t.ios for t in ts), sum(t.bytes for t in ts)

    def results(self) -> list[ThreadResult]:
        job = self.job
        out = []
        for t in self.threads.values():
            start = None if t.start_host_ns is None else t.start_host_ns - self.offsets.get(t.host, 0)
            out.append(ThreadResult(
                host=t.host, process=t.process, thread=t.thread, status=t.status or "failed", error=t.error,
                start_ns=start, host_start_ns=t.start_host_ns, elapsed_ns=t.elapsed_ns, files=t.files, ios=t.ios,
                bytes=t.bytes,
                samples=list(t.samples), latency=dict(t.latency), requested_files=job.files,
                requested_ios=job.files * job.ios_per_file, requested_bytes=job.files * job.bytes_per_file))
        return out

    def found_sizes(self) -> list[int]:
        """The sizes of the files the threads found before the start (their first file each), distinct:
        what a workload that makes no files (read, rewrite, unlink) worked on, whatever file_size says."""
        return sorted({t.found_size for t in self.threads.values() if t.found_size >= 0})

    def process_info(self) -> list[dict[str, Any]]:
        return [{"host": p.host, "process": p.process, "pid": p.pid, "capability": p.capability,
                 "exit_code": p.exit_code, "error": p.error} for p in self.processes.values()]

    def problems(self) -> list[str]:
        """One line per failed process, then per failed thread whose process did not fail as a whole."""
        lines = [f"{p.label}: {p.error}" for p in self.processes.values() if p.error]
        failed_procs = {(p.host, p.process) for p in self.processes.values() if p.error}
        lines += [t.error for t in self.threads.values()
                  if t.status not in ("", "ok") and (t.host, t.process) not in failed_procs and t.error]
        return lines

    def output_text(self) -> str:
        return "\n".join(line for p in self.processes.values() for line in p.output)
