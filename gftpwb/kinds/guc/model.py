"""The typed model of guc and connection tests: guc's options and the test with its defaults merged in."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from gftpwb.core.commands import Command
from gftpwb.core.scenario.model import LOCAL
from gftpwb.core.units import parse_size
from gftpwb.kinds.simulated.link import LinkModel

from .options import GUC_OPTIONS, OPTIONS_BY_NAME


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



DEFAULT_BASELINE_S = 10.0


@dataclass(frozen=True)
class Baseline:
    """Where and how long the iperf3 run next to each guc run goes (streams and window per case)."""

    client: str
    server: str
    server_address: str
    reverse: bool = False
    port: int | None = None
    duration_s: float | None = DEFAULT_BASELINE_S
    bytes: int | None = None
    omit_s: float = 0.0
    timeout_s: float | None = None
    template: str = ""  # the iperf3 test it took its settings from, if any


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
    warmup: int = 0
    order: str = "sequential"
    order_seed: int = 0
    mode: str = ""  # "extended": the test asks for MODE E (then -vb may be added between two servers)
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
    stripe: bool = False  # -stripe -dbg, and per-stripe progress from the performance markers
    baseline: Baseline | None = None  # an iperf3 run before every guc run (efficiency = guc / iperf3)
    files: Any = None  # a files.FileSet: disk-to-disk runs of test files gftpwb makes and removes
    index: int = field(default=0, metadata={"derived": True})
