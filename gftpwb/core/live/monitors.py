"""The monitors' latest readings per monitor and host, for the run view's monitors panel (the monitors'
``monitors:``: cpu, memory, net, disk, tcp and command readings, each host sampled about once a second).

:class:`MonitorBoard` is fed the monitor events by :class:`~gftpwb.core.live.state.LiveState` (O(1)
per sample: the latest figures and one headline value appended to a bounded history);
:meth:`MonitorBoard.rows` makes the rows the panel draws, on the front end's timer. Each type has one
headline figure (the sparkline) and a few figures shown beside it; the whole set is in
``monitors.jsonl``. Pure: no clock, no I/O.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from gftpwb.core.events import MonitorSample, SamplerEnded, SamplerStarted
from gftpwb.core.monitors.model import CPU, DISK, MEMORY, NET, TCP

SPARK = "▁▂▃▄▅▆▇█"
HISTORY = 120  # samples kept per monitor and host (two minutes at the default 1 Hz)

Figures = Mapping[str, float]
Shown = tuple[float | None, tuple[tuple[str, str], ...]]  # (headline value, (label, text) pairs)


@dataclass(frozen=True)
class MonitorRow:
    """One monitor on one host: the headline's history (oldest first), the figures of the latest sample
    as ``(label, text)`` pairs, and whether the sampler still runs."""

    monitor: str
    type: str
    host: str
    headline: str  # what the sparkline shows: "busy %", "busiest NIC MiB/s", ...
    series: tuple[float, ...]
    scale_max: float | None  # a fixed top of the sparkline (percentages: 100), else its own peak
    figures: tuple[tuple[str, str], ...]
    samples: int
    error: str = ""  # the latest reading failed: why
    ended: str = ""  # the host's sampler ended before it was stopped: why
    stopped: bool = False  # the host's sampler ended (stopped after the last run, or lost: ``ended``)


def _num(value: float | None, unit: str = "") -> str:
    if value is None:
        return "-"
    if abs(value) >= 100:
        text = f"{value:.0f}"
    elif abs(value) >= 10:
        text = f"{value:.1f}"
    else:
        text = f"{value:.2f}".rstrip("0").rstrip(".") if value else "0"
    return f"{text} {unit}".rstrip() if unit and not unit.startswith("/") else f"{text}{unit}"


def _per_name(values: Figures, suffix: str) -> dict[str, float]:
    """``{"eth0": 1.5}`` of ``{"eth0.rx_mib_s": 1.5}`` for ``suffix`` ``rx_mib_s``."""
    tail = "." + suffix
    return {name[: -len(tail)]: value for name, value in values.items() if name.endswith(tail)}


def _cpu(values: Figures) -> Shown:
    busy = values.get("busy_pct")
    return busy, (("busy", _num(busy, "%")), ("iowait", _num(values.get("iowait_pct"), "%")),
                  ("load", _num(values.get("load1"))))


def _memory(values: Figures) -> Shown:
    used = values.get("used_mib")
    return used, (("used", _num(used, "MiB")), ("dirty", _num(values.get("dirty_mib"), "MiB")))


def _net(values: Figures) -> Shown:
    rx, tx = _per_name(values, "rx_mib_s"), _per_name(values, "tx_mib_s")
    names = sorted(set(rx) | set(tx))
    if not names:
        return None, (("rates", "after the second sample"),)
    busiest = max(names, key=lambda n: (rx.get(n, 0.0) + tx.get(n, 0.0), n))
    drops = sum(v for n, v in values.items() if n.endswith(("rx_drops_s", "tx_drops_s")))
    figures = [(busiest, f"rx {_num(rx.get(busiest))} tx {_num(tx.get(busiest))} MiB/s")]
    if drops:
        figures.append(("drops", _num(drops, "/s")))
    return rx.get(busiest, 0.0) + tx.get(busiest, 0.0), tuple(figures)


def _disk(values: Figures) -> Shown:
    util = _per_name(values, "util_pct")
    if not util:
        return None, (("rates", "after the second sample"),)
    busiest = max(util, key=lambda n: (util[n], n))
    read = sum(_per_name(values, "read_mib_s").values())
    write = sum(_per_name(values, "write_mib_s").values())
    return util[busiest], ((busiest, _num(util[busiest], "% busy")), ("r", _num(read, "MiB/s")),
                           ("w", _num(write, "MiB/s")))


def _tcp(values: Figures) -> Shown:
    retrans = values.get("retrans_s")
    connections = values.get("connections")
    figures = [("conns", _num(connections)), ("retrans", _num(retrans, "/s"))]
    if "rtt_ms_mean" in values:
        figures.append(("rtt", _num(values["rtt_ms_mean"], "ms")))
    return retrans, tuple(figures)


def _command(values: Figures) -> Shown:
    names = list(values)
    return (values[names[0]] if names else None), tuple((n, _num(values[n])) for n in names[:3])


# type -> (headline label, fixed scale top or None, figures of a sample)
HEADLINES: dict[str, tuple[str, float | None, Callable[[Figures], Shown]]] = {
    CPU: ("busy %", 100.0, _cpu),
    MEMORY: ("used MiB", None, _memory),
    NET: ("busiest NIC MiB/s", None, _net),
    DISK: ("busiest disk % busy", 100.0, _disk),
    TCP: ("retransmits/s", None, _tcp),
}
COMMAND_HEADLINE = ("first value", None, _command)


class _Track:
    __slots__ = ("error", "figures", "samples", "series", "type")

    def __init__(self, kind: str, length: int):
        self.type = kind
        self.series: deque[float] = deque(maxlen=length)
        self.figures: tuple[tuple[str, str], ...] = ()
        self.samples = 0
        self.error = ""


class MonitorBoard:
    """The monitors' state for the live views; see the module docstring."""

    def __init__(self, history: int = HISTORY):
        self.history = history
        self.tracks: dict[tuple[str, str], _Track] = {}  # (monitor, host) -> its track, in arrival order
        self.ended: dict[str, str] = {}  # host -> why its sampler ended ("": stopped after the last run)
        self.hosts: dict[str, tuple[str, ...]] = {}  # host -> the monitors its sampler reads
        # The scenario run these belong to has ended: the next run's first event starts afresh. (The
        # samplers start before the run's ScenarioStarted, so that event cannot be the moment to clear.)
        self.stale = False
        self.version = 0  # moves with every change: a front end redraws the panel only when it moved

    def _fresh(self) -> None:
        if self.stale:
            self.tracks.clear()
            self.ended.clear()
            self.hosts.clear()
            self.stale = False

    def started(self, event: SamplerStarted) -> None:
        self._fresh()
        self.version += 1
        self.hosts[event.host] = tuple(event.monitors)
        self.ended.pop(event.host, None)

    def stopped(self, event: SamplerEnded) -> None:
        self.version += 1
        self.ended[event.host] = event.reason

    def sample(self, event: MonitorSample) -> None:
        self._fresh()
        self.version += 1
        track = self.tracks.get((event.monitor, event.host))
        if track is None:
            track = self.tracks[(event.monitor, event.host)] = _Track(event.type, self.history)
        track.samples += 1
        if event.error:
            track.error = event.error
            return
        track.error = ""
        _, _, figures_of = HEADLINES.get(event.type, COMMAND_HEADLINE)
        headline, track.figures = figures_of(event.values)
        if headline is not None:
            track.series.append(headline)

    def rows(self) -> list[MonitorRow]:
        """One row per monitor and host, in the order their first samples came."""
        out = []
        for (monitor, host), track in self.tracks.items():
            label, top, _ = HEADLINES.get(track.type, COMMAND_HEADLINE)
            out.append(MonitorRow(monitor, track.type, host, label, tuple(track.series), top, track.figures,
                                  track.samples, track.error, self.ended.get(host, ""), host in self.ended))
        return out


def sparkline(values: tuple[float, ...] | list[float], width: int, top: float | None = None) -> str:
    """The last ``width`` values as block characters, scaled to ``top`` (else the values' peak), padded
    on the left so the newest value is always at the right edge."""
    if width <= 0:
        return ""
    shown = list(values)[-width:]
    peak = top if top is not None else max(shown, default=0.0)
    if peak <= 0:
        chars = [SPARK[0]] * len(shown)
    else:
        last = len(SPARK) - 1
        chars = [SPARK[max(0, min(last, round(last * v / peak)))] for v in shown]
    return "".join(chars).rjust(width)
