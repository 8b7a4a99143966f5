"""Parsers of the Linux ``/proc`` files the monitors read: ``/proc/stat`` (its ``cpu`` line),
``/proc/loadavg``, ``/proc/meminfo``, ``/proc/net/dev`` and ``/proc/diskstats``. Pure: text in,
counters out. Each parser raises ValueError on text that is not what the kernel writes, so a
sample is recorded with an error instead of wrong numbers.

The formats (``man 5 proc``, Documentation/admin-guide/iostats.rst): counters are cumulative since
boot; the readers (:mod:`.readers`) turn two readings into rates.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

SECTOR_BYTES = 512  # /proc/diskstats counts 512-byte sectors whatever the device's sector size


@dataclass(frozen=True)
class CpuTimes:
    """The ``cpu`` line of /proc/stat: jiffies spent in each state, all CPUs together."""

    user: int
    nice: int
    system: int
    idle: int
    iowait: int = 0
    irq: int = 0
    softirq: int = 0
    steal: int = 0

    @property
    def total(self) -> int:
        # guest and guest_nice are already counted in user and nice: not added again.
        return self.user + self.nice + self.system + self.idle + self.iowait + self.irq + self.softirq + self.steal

    @property
    def idle_all(self) -> int:
        return self.idle + self.iowait


def parse_cpu_line(line: str) -> CpuTimes:
    """``cpu  696804 0 479107 418204 11970 0 153251 344 0 0`` (at least four counters)."""
    parts = line.split()
    if not parts or parts[0] != "cpu" or len(parts) < 5:
        raise ValueError(f"not the cpu line of /proc/stat: {line[:60]!r}")
    numbers = [_count(value, "/proc/stat") for value in parts[1:9]]
    return CpuTimes(*numbers)


@dataclass(frozen=True)
class LoadAvg:
    load1: float
    load5: float
    load15: float
    running: int  # runnable tasks now
    tasks: int


def parse_loadavg(line: str) -> LoadAvg:
    """``8.66 8.31 7.24 3/185 11458``."""
    parts = line.split()
    if len(parts) < 4 or "/" not in parts[3]:
        raise ValueError(f"not /proc/loadavg: {line[:60]!r}")
    try:
        loads = [float(value) for value in parts[:3]]
    except ValueError:
        raise ValueError(f"not /proc/loadavg: {line[:60]!r}") from None
    running, _, tasks = parts[3].partition("/")
    return LoadAvg(*loads, running=_count(running, "/proc/loadavg"), tasks=_count(tasks, "/proc/loadavg"))


def parse_meminfo(lines: Iterable[str]) -> dict[str, int]:
    """``MemTotal:       24683656 kB`` lines as name -> bytes (entries without a unit are counts,
    such as ``HugePages_Total``, and kept as they are)."""
    out: dict[str, int] = {}
    for line in lines:
        name, sep, rest = line.partition(":")
        if not sep:
            if line.strip():
                raise ValueError(f"not a /proc/meminfo line: {line[:60]!r}")
            continue
        parts = rest.split()
        if not parts:
            raise ValueError(f"not a /proc/meminfo line: {line[:60]!r}")
        value = _count(parts[0], "/proc/meminfo")
        if len(parts) > 1 and parts[1].lower() == "kb":
            value *= 1024
        out[name.strip()] = value
    if "MemTotal" not in out:
        raise ValueError("no MemTotal in /proc/meminfo")
    return out


@dataclass(frozen=True)
class NetCounters:
    rx_bytes: int
    rx_packets: int
    rx_errs: int
    rx_drop: int
    tx_bytes: int
    tx_packets: int
    tx_errs: int
    tx_drop: int


def parse_net_dev(lines: Iterable[str]) -> dict[str, NetCounters]:
    """Interfaces of /proc/net/dev (two header lines, then ``name: 16 counters``; a large first
    counter may touch the colon)."""
    out: dict[str, NetCounters] = {}
    for line in lines:
        if "|" in line or not line.strip():
            continue  # the two header lines
        name, sep, rest = line.partition(":")
        fields = rest.split()
        if not sep or len(fields) < 16 or not name.strip():
            raise ValueError(f"not a /proc/net/dev line: {line[:60]!r}")
        c = [_count(value, "/proc/net/dev") for value in fields[:16]]
        out[name.strip()] = NetCounters(c[0], c[1], c[2], c[3], c[8], c[9], c[10], c[11])
    return out


@dataclass(frozen=True)
class DiskCounters:
    reads: int
    read_sectors: int
    read_ms: int
    writes: int
    write_sectors: int
    write_ms: int
    in_flight: int
    io_ms: int  # time the device had I/O in flight (its utilisation)
    weighted_ms: int  # in-flight count integrated over time (its average queue)


def parse_diskstats(lines: Iterable[str]) -> dict[str, DiskCounters]:
    """Devices of /proc/diskstats: ``major minor name`` then at least 11 counters."""
    out: dict[str, DiskCounters] = {}
    for line in lines:
        parts = line.split()
        if not parts:
            continue
        if len(parts) < 14:
            raise ValueError(f"not a /proc/diskstats line: {line[:60]!r}")
        c = [_count(value, "/proc/diskstats") for value in parts[3:14]]
        out[parts[2]] = DiskCounters(reads=c[0], read_sectors=c[2], read_ms=c[3], writes=c[4], write_sectors=c[6],
                                     write_ms=c[7], in_flight=c[8], io_ms=c[9], weighted_ms=c[10])
    return out


def _count(text: str, where: str) -> int:
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"not a counter in {where}: {text[:30]!r}")
    return int(text)
