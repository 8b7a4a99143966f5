"""The typed model of a ``kind: iperf3`` test (sizes in bytes, durations in seconds, rates in MiB/s)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gftpwb.core.commands import Command
from gftpwb.core.scenario.model import LOCAL
from gftpwb.core.units import parse_duration, parse_rate, parse_size

BDP = "bdp"  # window: computed from bandwidth x RTT / streams
DEFAULT_DURATION_S = 10.0


@dataclass(frozen=True)
class Iperf3Test:
    """An iperf3 baseline: a server on ``server``, a client on ``client`` connecting to
    ``server_address``; ``window`` is bytes, :data:`BDP`, or None (not passed)."""

    __test__ = False

    id: str
    kind: str
    description: str = ""
    client: str = LOCAL
    server: str = LOCAL
    server_address: str = ""  # resolved by the planner when empty
    port: int | None = None
    streams: int = 1
    window: int | str | None = None
    bandwidth: float | None = None  # MiB/s
    rtt: float | None = None  # seconds; None: measured
    duration: float | None = DEFAULT_DURATION_S  # None when bytes is set
    bytes: int | None = None
    reverse: bool = False
    omit: float = 0.0
    matrix: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    repeat: int = 1
    timeout_s: float | None = field(default=None, metadata={"key": "timeout"})
    comment: str = ""
    pre: Command | None = None
    post: Command | None = None
    comment_command: Command | None = None
    on: tuple[str, ...] = (LOCAL,)
    index: int = field(default=0, metadata={"derived": True})


def convert_value(name: str, value: Any) -> Any:
    """A DSL value of a sweepable key as the model holds it."""
    if name == "window":
        return value if value == BDP else parse_size(value)
    if name == "bytes":
        return parse_size(value)
    if name in ("duration", "omit"):
        return parse_duration(value)
    if name == "bandwidth":
        return parse_rate(value)
    return value
