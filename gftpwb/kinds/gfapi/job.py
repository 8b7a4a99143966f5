"""The gfapi driver: one planned small-file run (a :class:`GfapiJob`) and the worker argv it needs. Pure.

A job is a gfapi test with one matrix combination applied, plus the hosts it runs on. It travels
in ``RunSpec.params`` (plain JSON), so ``plan.json`` shows it and ``--resume`` fingerprints it.
Each host runs ``processes`` worker processes of ``threads`` threads; thread numbers are unique
per host (process p has threads p*threads .. p*threads+threads-1), and each host works in
``<directory>/<host>/t<thread>/`` so hosts and processes never touch each other's files.
"""

from __future__ import annotations

import zlib
from dataclasses import asdict, dataclass, fields
from typing import Any

from gftpwb.kinds.gfapi.model import GfapiTest, convert_gfapi_value

from .settings import RANDOM_WORKLOADS, SETTINGS_BY_NAME

WORKER_NAME = "gfapi-worker"


@dataclass(frozen=True)
class GfapiJob:
    mode: str  # "gfapi" or "posix"
    directory: str
    hosts: tuple[str, ...]
    workload: str
    threads: int
    processes: int
    files: int
    file_size: int
    record_size: int
    files_per_dir: int
    dirs_per_dir: int
    io_requests: int
    read_pct: int
    direct: bool
    fsync: bool
    trace_level: int
    seed: int
    start_lead_s: float
    ready_timeout_s: float
    volume: str = ""
    server: str = ""
    port: int = 24007
    transport: str = "tcp"

    @classmethod
    def from_test(cls, test: GfapiTest, point: dict[str, Any], hosts: tuple[str, ...]) -> GfapiJob:
        values = {name: getattr(test, name) for name in SETTINGS_BY_NAME}
        values.update({name: convert_gfapi_value(name, value) for name, value in point.items()})
        values["record_size"] = min(values["record_size"], values["file_size"])
        volume = test.volume
        return cls(mode=test.mode, directory=test.directory, hosts=hosts, start_lead_s=test.start_lead_s,
                   ready_timeout_s=test.ready_timeout_s, volume=volume.name if volume else "",
                   server=volume.server if volume else "", port=volume.port if volume else 24007,
                   transport=volume.transport if volume else "tcp", **values)

    def to_params(self) -> dict[str, Any]:
        data = asdict(self)
        data["hosts"] = list(self.hosts)
        return data

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> GfapiJob:
        known = {f.name for f in fields(cls)}
        data = {k: v for k, v in params.items() if k in known}
        data["hosts"] = tuple(data.get("hosts", ("local",)))
        return cls(**data)

    # --- what the job asks of each thread -------------------------------------------------------

    @property
    def records_per_file(self) -> int:
        return -(-self.file_size // self.record_size)

    @property
    def ios_per_file(self) -> int:
        if self.workload == "unlink":
            return 0
        if self.workload in RANDOM_WORKLOADS:
            return self.io_requests or self.records_per_file
        return self.records_per_file

    @property
    def bytes_per_file(self) -> int:
        if self.workload == "unlink":
            return 0
        if self.workload in RANDOM_WORKLOADS:
            return self.ios_per_file * self.record_size
        return self.file_size

    @property
    def threads_per_host(self) -> int:
        return self.processes * self.threads

    @property
    def total_threads(self) -> int:
        return len(self.hosts) * self.threads_per_host

    @property
    def total_bytes(self) -> int:
        return self.total_threads * self.files * self.bytes_per_file

    def host_directory(self, host: str) -> str:
        return f"{self.directory.rstrip('/') or ''}/{host}"

    @property
    def target(self) -> str:
        """Where the files go, as one line: gfapi://server:port/volume/dir or the POSIX directory."""
        if self.mode == "gfapi":
            return f"gfapi://{self.server}:{self.port}/{self.volume}{self.directory}"
        return self.directory


def worker_args(job: GfapiJob, binary: str, host: str, process: int, *, io_trace: str = "",
                io_trace_every: int = 1, io_trace_level: str = "io") -> list[str]:
    """The argv of worker process ``process`` on ``host`` (never run through a shell); ``io_trace``: the
    file on that host the worker writes its per-I/O trace to, one event in ``io_trace_every`` per
    thread, from the start (``io_trace_level`` io) or once switched on (run)."""
    argv = [binary]
    if job.mode == "gfapi":
        argv += ["--gfapi", "--volume", job.volume, "--server", job.server, "--transport", job.transport,
                 "--port", str(job.port)]
    seed = (job.seed * 1_000_003 + zlib.crc32(host.encode())) % (1 << 63)
    argv += ["--dir", job.host_directory(host), "--threads", str(job.threads),
             "--thread-base", str(process * job.threads), "--workload", job.workload, "--files", str(job.files),
             "--file-size", str(job.file_size), "--record-size", str(job.record_size),
             "--files-per-dir", str(job.files_per_dir), "--dirs-per-dir", str(job.dirs_per_dir),
             "--trace-level", str(job.trace_level), "--seed", str(seed)]
    if job.workload in RANDOM_WORKLOADS:
        argv += ["--io-requests", str(job.io_requests)]
    if job.workload == "rw-mix":
        argv += ["--read-pct", str(job.read_pct)]
    if job.direct:
        argv.append("--direct")
    if job.fsync:
        argv.append("--fsync")
    if io_trace:
        argv += ["--io-trace", io_trace, *(["--io-trace-every", str(io_trace_every)] if io_trace_every > 1 else []),
                 *(["--io-trace-level", io_trace_level] if io_trace_level != "io" else [])]
    return argv


def display_argv(job: GfapiJob) -> tuple[str, ...]:
    """What ``--dry-run``, plan.json and the record show: process 0 of the first host."""
    return tuple(worker_args(job, WORKER_NAME, job.hosts[0], 0))
