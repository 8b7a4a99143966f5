"""Figures from raw readings: one reader per monitor and host, keeping the previous reading, since
most figures are rates (the kernel's counters are cumulative). Pure.

A reader's :meth:`Reader.read` takes one :class:`~.sampler.Reading` and returns the figures of the
interval since the previous one (gauges such as load or memory are the values read). The first
reading of a counter gives no rate; a counter that went backwards (an interface re-created, a
wrapped 32-bit counter) gives none for that interval. A reading the parsers refuse, or a non-zero
exit status, is an error of that sample, never a wrong number.

Figure names carry their unit: ``_pct``, ``_mib_s`` (MiB per second), ``_s`` (per second),
``_mib``, ``_ms``, ``_mbit_s``; per-interface and per-device figures are named ``<name>.<figure>``.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .model import ANY_PROCESS, COMM_LENGTH, COMMAND, CPU, DISK, DISK_EXCLUDED, MEMORY, NET, TCP, Monitor
from .numbers import parse_command_values
from .procfs import (
    SECTOR_BYTES,
    CpuTimes,
    DiskCounters,
    NetCounters,
    parse_cpu_line,
    parse_diskstats,
    parse_loadavg,
    parse_meminfo,
    parse_net_dev,
)
from .sampler import Reading
from .ss import TcpSocket, parse_ss

MIB = 1048576.0
TIMEOUT_STATUS = 124  # timeout(1): the command took too long


@dataclass(frozen=True)
class Figures:
    """What one reading gave: figures (possibly none, for a first reading of counters) or an error."""

    values: dict[str, float] = field(default_factory=dict)
    error: str = ""


class Reader:
    """Base: error handling and the time since the previous reading (the subclasses' ``figures``)."""

    def __init__(self, monitor: Monitor):
        self.monitor = monitor
        self.previous_cs: int | None = None

    def read(self, reading: Reading) -> Figures:
        if reading.status != 0:
            return Figures(error=self.status_error(reading))
        span = None if self.previous_cs is None else (reading.uptime_cs - self.previous_cs) / 100
        try:
            values = self.figures(reading.lines, span if span is not None and span > 0 else None)
        except ValueError as exc:
            return Figures(error=str(exc))
        self.previous_cs = reading.uptime_cs
        return Figures({k: round(v, 6) for k, v in values.items()})

    def status_error(self, reading: Reading) -> str:
        first = next((line.strip() for line in reading.lines if line.strip()), "")
        return f"exit status {reading.status}" + (f": {first[:120]}" if first else "")

    def figures(self, lines: tuple[str, ...], span: float | None) -> dict[str, float]:
        raise NotImplementedError


def _rate(now: int, before: int, span: float) -> float | None:
    return (now - before) / span if now >= before else None


def _counter_rates(counters: Mapping[str, Any], before: Mapping[str, Any], span: float,
                   fields: tuple[tuple[str, str, float], ...], caps: Mapping[str, float] | None = None,
                   ) -> dict[str, float]:
    """``name.figure`` rates of per-device counters between two readings, one per ``(figure,
    attribute, divisor)`` of ``fields``; a counter that went backwards (a reset) gives no figure, and
    ``caps`` bound a figure (utilisation over 100 % is a rounding of the kernel's clock)."""
    out: dict[str, float] = {}
    for name, now in counters.items():
        then = before.get(name)
        if then is None:
            continue
        for figure, attribute, divisor in fields:
            rate = _rate(getattr(now, attribute), getattr(then, attribute), span)
            if rate is not None:
                value = rate / divisor
                out[f"{name}.{figure}"] = min(value, caps[figure]) if caps and figure in caps else value
    return out


class CpuReader(Reader):
    """``busy_pct`` (and user, system, iowait, irq, steal) of all CPUs, ``load1/5/15``, ``running``."""

    def __init__(self, monitor: Monitor):
        super().__init__(monitor)
        self.before: CpuTimes | None = None

    def figures(self, lines: tuple[str, ...], span: float | None) -> dict[str, float]:
        if len(lines) < 2:
            raise ValueError("cpu: expected the cpu line of /proc/stat and /proc/loadavg")
        times, load = parse_cpu_line(lines[0]), parse_loadavg(lines[1])
        out = {"load1": load.load1, "load5": load.load5, "load15": load.load15, "running": float(load.running)}
        before, self.before = self.before, times
        if before is not None:
            total = times.total - before.total
            if total > 0 and times.idle_all >= before.idle_all:
                def pct(now: int, then: int) -> float:
                    return max(0.0, 100.0 * (now - then) / total)
                out["busy_pct"] = 100.0 - pct(times.idle_all, before.idle_all)
                out["user_pct"] = pct(times.user + times.nice, before.user + before.nice)
                out["system_pct"] = pct(times.system, before.system)
                out["iowait_pct"] = pct(times.iowait, before.iowait)
                out["irq_pct"] = pct(times.irq + times.softirq, before.irq + before.softirq)
                out["steal_pct"] = pct(times.steal, before.steal)
        return out


class MemoryReader(Reader):
    """``used_mib`` (total minus available), ``available_mib``, ``free_mib``, ``cached_mib``,
    ``dirty_mib``, ``swap_used_mib``."""

    def figures(self, lines: tuple[str, ...], span: float | None) -> dict[str, float]:
        info = parse_meminfo(lines)
        available = info.get("MemAvailable", info.get("MemFree", 0) + info.get("Buffers", 0) + info.get("Cached", 0))
        return {
            "used_mib": (info["MemTotal"] - available) / MIB,
            "available_mib": available / MIB,
            "free_mib": info.get("MemFree", 0) / MIB,
            "cached_mib": info.get("Cached", 0) / MIB,
            "dirty_mib": info.get("Dirty", 0) / MIB,
            "swap_used_mib": (info.get("SwapTotal", 0) - info.get("SwapFree", 0)) / MIB,
        }


def matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)


class NetReader(Reader):
    """Per interface (``interfaces`` patterns, default all): ``rx_mib_s``, ``tx_mib_s``,
    ``rx_packets_s``, ``tx_packets_s``, ``rx_drops_s``, ``tx_drops_s``, ``rx_errs_s``, ``tx_errs_s``."""

    def __init__(self, monitor: Monitor):
        super().__init__(monitor)
        self.before: dict[str, NetCounters] = {}

    def figures(self, lines: tuple[str, ...], span: float | None) -> dict[str, float]:
        counters = {name: c for name, c in parse_net_dev(lines).items()
                    if not self.monitor.interfaces or matches(name, self.monitor.interfaces)}
        before, self.before = self.before, counters
        if span is None:
            return {}
        return _counter_rates(counters, before, span, (
            ("rx_mib_s", "rx_bytes", MIB), ("tx_mib_s", "tx_bytes", MIB),
            ("rx_packets_s", "rx_packets", 1.0), ("tx_packets_s", "tx_packets", 1.0),
            ("rx_drops_s", "rx_drop", 1.0), ("tx_drops_s", "tx_drop", 1.0),
            ("rx_errs_s", "rx_errs", 1.0), ("tx_errs_s", "tx_errs", 1.0)))


class DiskReader(Reader):
    """Per device (``devices`` patterns; default all but loop, RAM and optical devices): ``reads_s``,
    ``writes_s``, ``read_mib_s``, ``write_mib_s``, ``util_pct`` (time with I/O in flight) and
    ``queue`` (average requests in flight)."""

    def __init__(self, monitor: Monitor):
        super().__init__(monitor)
        self.before: dict[str, DiskCounters] = {}

    def wanted(self, name: str) -> bool:
        if self.monitor.devices:
            return matches(name, self.monitor.devices)
        return not matches(name, DISK_EXCLUDED)

    def figures(self, lines: tuple[str, ...], span: float | None) -> dict[str, float]:
        counters = {name: c for name, c in parse_diskstats(lines).items() if self.wanted(name)}
        before, self.before = self.before, counters
        if span is None:
            return {}
        return _counter_rates(counters, before, span, (
            ("reads_s", "reads", 1.0), ("writes_s", "writes", 1.0),
            ("read_mib_s", "read_sectors", MIB / SECTOR_BYTES), ("write_mib_s", "write_sectors", MIB / SECTOR_BYTES),
            ("util_pct", "io_ms", 10.0),  # ms per s -> percent
            ("queue", "weighted_ms", 1000.0)), caps={"util_pct": 100.0})


def is_data_connection(sock: TcpSocket, names: frozenset[str], control_ports: frozenset[int]) -> bool:
    """A connection of one of the programs ``names`` (their first 15 characters: ``ss -p`` shows a
    process's ``comm``; ``*``: any) on no control port: a GridFTP data channel."""
    if sock.local_port in control_ports or sock.peer_port in control_ports:
        return False
    return ANY_PROCESS in names or any(owner[:COMM_LENGTH] in names for owner in sock.processes)


class TcpReader(Reader):
    """The guc data connections (``processes``, or every one with ``*``; not on ``control_ports``): ``connections``,
    ``cwnd_mean``, ``cwnd_max`` (segments), ``rtt_ms_mean``, ``rtt_ms_max``, ``delivery_mbit_s`` (sum
    of the connections' delivery rates) and ``retrans_s`` (segments retransmitted per second since the
    previous reading; a connection first seen counts with all its retransmissions)."""

    def __init__(self, monitor: Monitor, control_ports: Iterable[int] = ()):
        super().__init__(monitor)
        self.control_ports = frozenset(monitor.control_ports or control_ports)
        self.names = frozenset(p[:COMM_LENGTH] for p in monitor.processes)
        self.before: dict[tuple[str, int, str, int], int] = {}

    def wanted(self, sock: TcpSocket) -> bool:
        return is_data_connection(sock, self.names, self.control_ports)

    def figures(self, lines: tuple[str, ...], span: float | None) -> dict[str, float]:
        sockets = parse_ss(lines, keep=self.wanted)
        retrans = {s.key: s.retrans_total for s in sockets}
        before, self.before = self.before, retrans
        out: dict[str, float] = {"connections": float(len(sockets))}
        cwnds = [s.cwnd for s in sockets if s.cwnd is not None]
        rtts = [s.rtt_ms for s in sockets if s.rtt_ms is not None]
        if cwnds:
            out["cwnd_mean"], out["cwnd_max"] = sum(cwnds) / len(cwnds), float(max(cwnds))
        if rtts:
            out["rtt_ms_mean"], out["rtt_ms_max"] = sum(rtts) / len(rtts), max(rtts)
        out["delivery_mbit_s"] = sum(s.delivery_rate_bps or 0.0 for s in sockets) / 1e6
        if span is not None:
            new = sum(max(0, count - before.get(key, 0)) for key, count in retrans.items())
            out["retrans_s"] = new / span
        return out


class CommandReader(Reader):
    """The numbers the user command printed (:mod:`.numbers`)."""

    def status_error(self, reading: Reading) -> str:
        if reading.status == TIMEOUT_STATUS:
            return "the command took longer than its interval and was stopped"
        return super().status_error(reading)

    def figures(self, lines: tuple[str, ...], span: float | None) -> dict[str, float]:
        return parse_command_values("\n".join(lines))


def reader_for(monitor: Monitor, control_ports: Iterable[int] = ()) -> Reader:
    """The reader of a monitor's type; ``control_ports`` are a tcp monitor's default ones."""
    if monitor.type == TCP:
        return TcpReader(monitor, control_ports)
    readers: dict[str, type[Reader]] = {CPU: CpuReader, MEMORY: MemoryReader, NET: NetReader, DISK: DiskReader,
                                        COMMAND: CommandReader}
    return readers[monitor.type](monitor)
