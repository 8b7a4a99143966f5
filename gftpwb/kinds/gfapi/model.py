"""The typed model of a ``kind: gfapi`` test (sizes in bytes, durations in seconds)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.scenario.model import LOCAL
from gftpwb.core.units import parse_size

from .settings import DEFAULT_PORT, SETTINGS_BY_NAME


def _gfapi_default(name: str) -> Any:
    return field(default=SETTINGS_BY_NAME[name].default)


@dataclass(frozen=True)
class GfapiVolume:
    name: str
    server: str
    port: int = DEFAULT_PORT
    transport: str = "tcp"


@dataclass(frozen=True)
class GfapiTest:
    """A ``kind: gfapi`` test: small-file workers on a volume (libgfapi) or a directory (POSIX).

    The settings mirror :data:`gftpwb.kinds.gfapi.settings.GFAPI_SETTINGS`; sizes are bytes and
    durations seconds. ``directory`` is resolved: inside the volume (default ``/gftpwb``) in
    libgfapi mode, a host path in POSIX mode.
    """

    __test__ = False

    id: str
    kind: str
    description: str = ""
    volume: GfapiVolume | None = None
    directory: str = ""
    workload: str = _gfapi_default("workload")
    threads: int = _gfapi_default("threads")
    processes: int = _gfapi_default("processes")
    files: int = _gfapi_default("files")
    file_size: int = _gfapi_default("file_size")
    record_size: int = _gfapi_default("record_size")
    files_per_dir: int = _gfapi_default("files_per_dir")
    dirs_per_dir: int = _gfapi_default("dirs_per_dir")
    io_requests: int = _gfapi_default("io_requests")
    read_pct: int = _gfapi_default("read_pct")
    direct: bool = _gfapi_default("direct")
    fsync: bool = _gfapi_default("fsync")
    trace_level: int = _gfapi_default("trace_level")
    seed: int = _gfapi_default("seed")
    start_lead_s: float = field(default=0.1, metadata={"key": "start_lead"})
    ready_timeout_s: float = field(default=120.0, metadata={"key": "ready_timeout"})
    repeat: int = 1
    warmup: int = 0
    order: str = "sequential"
    order_seed: int = 0
    timeout_s: float | None = field(default=None, metadata={"key": "timeout"})
    comment: str = ""
    matrix: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    on: tuple[str, ...] = (LOCAL,)  # every host takes part in each run (one run spans them all)
    index: int = field(default=0, metadata={"derived": True})

    @property
    def mode(self) -> str:
        return "gfapi" if self.volume is not None else "posix"


def convert_gfapi_value(name: str, value: Any) -> Any:
    """A DSL value of a gfapi setting as the model holds it (sizes as bytes)."""
    if SETTINGS_BY_NAME[name].type == "size":
        return parse_size(value)
    return value
