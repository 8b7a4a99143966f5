"""The typed scenario model: what a validated scenario means, with defaults merged in.

Field metadata ``key`` names the DSL key a field comes from; ``derived`` marks fields computed by the
loader rather than written by the user. ``tests/test_schema.py`` checks these against the schema.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from ..commands import Command
from ..errors import Diagnostic
from ..simlink import LinkModel
from ..units import GIB, parse_size
from .gfapi_settings import DEFAULT_PORT, SETTINGS_BY_NAME
from .guc_options import GUC_OPTIONS, OPTIONS_BY_NAME


@dataclass(frozen=True)
class GucOptions:
    """Typed guc options; None (or False for flags) means "not passed to guc"."""

    parallel: int | None = None
    tcp_buffer: int | None = None
    block_size: int | None = None
    length: int | None = None
    offset: int | None = None
    concurrency: int | None = None
    pipeline: bool = False
    fast: bool = False
    stripe: bool = False
    sync: bool = False
    sync_level: int | None = None

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> GucOptions:
        """Build from DSL values (sizes may be text such as ``4M``); keys must be option names."""
        return cls(**{name: convert_option_value(name, value) for name, value in data.items()})

    def with_values(self, values: dict[str, Any]) -> GucOptions:
        merged = {f.name: getattr(self, f.name) for f in fields(self)}
        merged.update({name: convert_option_value(name, value) for name, value in values.items()})
        return GucOptions(**merged)

    def set_options(self) -> dict[str, int | bool]:
        """The options that are set, in guc table order (flags only when true)."""
        out: dict[str, int | bool] = {}
        for option in GUC_OPTIONS:
            value = getattr(self, option.name)
            if value is None or value is False:
                continue
            out[option.name] = value
        return out


def convert_option_value(name: str, value: Any) -> Any:
    option = OPTIONS_BY_NAME[name]
    if option.type == "size":
        return None if value is None else parse_size(value)
    return value


LOCAL = "local"  # the implicit host: this machine, no SSH


@dataclass(frozen=True)
class Host:
    """One host of the inventory, reached over SSH. Paths are resolved against the scenario's
    directory by the loader (``~`` is left for the transport to expand)."""

    name: str = field(metadata={"derived": True})
    address: str
    port: int = 22
    user: str = ""  # "" = the user running gftpwb
    identity: str = ""  # "" = the SSH agent and ~/.ssh/id_* keys
    known_hosts: str = ""  # "" = ~/.ssh/known_hosts
    jump: str = ""  # name of another inventory host to connect through
    workdir: str = ""
    env: tuple[tuple[str, str], ...] = ()
    connect_timeout_s: float = field(default=10.0, metadata={"key": "connect_timeout"})

    @property
    def label(self) -> str:
        """``host NAME (user@address:port)``: how messages name the host."""
        user = f"{self.user}@" if self.user else ""
        return f"host {self.name} ({user}{self.address}:{self.port})"


@dataclass(frozen=True)
class Test:
    """One test with the scenario's defaults merged in."""

    __test__ = False  # not a pytest test class

    id: str
    kind: str
    description: str = ""
    source: str = ""
    target: str = ""
    options: GucOptions = field(default_factory=GucOptions)
    extra_args: tuple[str, ...] = ()
    args: tuple[str, ...] | None = None  # guc's parameters exactly as given (instead of options/extra_args)
    add_vb: bool = True
    tgftp_style: bool = False
    repeat: int = 1
    timeout_s: float | None = field(default=None, metadata={"key": "timeout"})
    comment: str = ""
    matrix: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    pre: Command | None = None
    post: Command | None = None
    comment_command: Command | None = None
    log_filename: str = ""
    on: tuple[str, ...] = (LOCAL,)
    engine: str = "real"
    link: LinkModel | None = None
    index: int = field(default=0, metadata={"derived": True})


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

    The settings mirror :data:`gftpwb.dsl.gfapi_settings.GFAPI_SETTINGS`; sizes are bytes and
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



@dataclass(frozen=True)
class AutotuneTest:
    """An auto-tune: which guc parameters move data fastest between source and target."""

    __test__ = False

    id: str
    kind: str
    description: str = ""
    source: str = ""
    target: str = ""
    extra_args: tuple[str, ...] = ()
    comment: str = ""
    engine: str = "real"
    link: LinkModel | None = None
    timeout_s: float | None = field(default=30.0, metadata={"key": "timeout"})
    memory_to_memory: bool = True
    candidates: tuple[GucOptions, ...] = ()
    strategy: str = "exhaustive"
    repetitions: int = 10
    budget: int = 120
    length: int = 4 * GIB
    margin_mib_s: float = field(default=20.0, metadata={"key": "margin"})
    on: tuple[str, ...] = (LOCAL,)  # one host: where the transfers are started from
    candidate_set: str = field(default="tgftp-37", metadata={"derived": True})  # "tgftp-37", "grid", "list"
    index: int = field(default=0, metadata={"derived": True})


AnyTest = Test | AutotuneTest | GfapiTest


@dataclass(frozen=True)
class Scenario:
    version: int
    name: str
    tests: tuple[AnyTest, ...]
    description: str = ""
    defaults: dict[str, Any] = field(default_factory=dict)
    hosts: tuple[Host, ...] = ()
    path: str = field(default="", metadata={"derived": True})
    text: str = field(default="", metadata={"derived": True})
    warnings: tuple[Diagnostic, ...] = field(default=(), metadata={"derived": True})

    def test(self, test_id: str) -> AnyTest | None:
        return next((t for t in self.tests if t.id == test_id), None)

    def host(self, name: str) -> Host | None:
        return next((h for h in self.hosts if h.name == name), None)
