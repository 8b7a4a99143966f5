"""One planned iperf3 run as pure data: which hosts, which settings, and the argv of its server, its
client and its RTT probe. The planner stores it in the spec's params; the runner reads it back.

iperf3 takes whole seconds for ``-t`` and ``-O`` and at most 512 MiB for ``-w`` (3.12); the checks
enforce both before a run starts. ``window: bdp`` is ``bandwidth x RTT / streams`` bytes, rounded up,
so that ``window x streams`` is about the bandwidth-delay product, as in the TeraGrid study.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from gftpwb.core.units import MIB, format_size_arg

from .model import BDP

IPERF3 = "iperf3"
MAX_WINDOW = 512 * MIB  # iperf3's MAX_TCP_BUFFER
PROBE_SECONDS = 1
PORT_PLACEHOLDER = "<port>"
WINDOW_PLACEHOLDER = "<bdp>"


def bdp_window(bandwidth_mib_s: float, rtt_s: float, streams: int) -> int:
    """Bytes per stream so that window x streams = bandwidth x RTT (at least 1 byte)."""
    return max(1, math.ceil(bandwidth_mib_s * MIB * rtt_s / streams))


@dataclass(frozen=True)
class Iperf3Job:
    client: str
    server: str
    server_address: str
    port: int | None = None
    streams: int = 1
    window: int | str | None = None  # bytes, BDP, or None (not passed)
    bandwidth_mib_s: float | None = None
    rtt_s: float | None = None  # given; None with window bdp: measured by a probe
    duration_s: float | None = 10.0
    bytes: int | None = None
    reverse: bool = False
    omit_s: float = 0.0

    def to_params(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Iperf3Job:
        return cls(**{k: v for k, v in params.items() if k in cls.__dataclass_fields__})

    @property
    def needs_probe(self) -> bool:
        """The RTT must be measured before the run (window bdp without a given rtt)."""
        return self.window == BDP and self.rtt_s is None

    def window_bytes(self, rtt_s: float | None = None) -> int | None:
        """The -w value: given, or bandwidth x RTT / streams with the given or measured RTT."""
        if self.window != BDP:
            return self.window if isinstance(self.window, int) else None
        rtt = self.rtt_s if self.rtt_s is not None else rtt_s
        if rtt is None or self.bandwidth_mib_s is None:
            raise ValueError("window bdp needs bandwidth and an RTT")
        return bdp_window(self.bandwidth_mib_s, rtt, self.streams)

    def server_argv(self, port: int | str) -> list[str]:
        """The server: one test and exit (``-1``), unless a probe comes first; interval reports
        flushed as they happen (``--forceflush``): the run's live progress."""
        one_off = [] if self.needs_probe else ["-1"]
        return [IPERF3, "-s", "-p", str(port), *one_off, "--forceflush"]

    def client_argv(self, port: int | str, window: int | str | None) -> list[str]:
        argv = [IPERF3, "-c", self.server_address, "-p", str(port), "-J", "-P", str(self.streams)]
        if window is not None:
            argv += ["-w", str(window)]
        if self.bytes is not None:
            argv += ["-n", str(self.bytes)]
        else:
            argv += ["-t", str(int(self.duration_s or 0))]
        if self.reverse:
            argv.append("-R")
        if self.omit_s:
            argv += ["-O", str(int(self.omit_s))]
        return argv

    def probe_argv(self, port: int | str) -> list[str]:
        """A 1 s single-stream run from the client to the server: its sender's smallest RTT."""
        return [IPERF3, "-c", self.server_address, "-p", str(port), "-J", "-t", str(PROBE_SECONDS)]

    def display_argv(self) -> tuple[str, ...]:
        """The client argv as planned; what is decided at run time is a placeholder."""
        port: int | str = self.port if self.port is not None else PORT_PLACEHOLDER
        window: int | str | None = self.window
        if window == BDP:
            window = self.window_bytes() if self.rtt_s is not None else WINDOW_PLACEHOLDER
        return tuple(self.client_argv(port, window))

    def settings_text(self) -> str:
        """``-P 4 -w 128K -t 10 -R``: the settings as iperf3 flags (reports, the console)."""
        parts = [f"-P {self.streams}"]
        if self.window == BDP:
            parts.append("-w bdp")
        elif isinstance(self.window, int):
            parts.append(f"-w {format_size_arg(self.window)}")
        parts.append(f"-n {format_size_arg(self.bytes)}" if self.bytes is not None else f"-t {self.duration_s:g}")
        if self.reverse:
            parts.append("-R")
        if self.omit_s:
            parts.append(f"-O {self.omit_s:g}")
        return " ".join(parts)
