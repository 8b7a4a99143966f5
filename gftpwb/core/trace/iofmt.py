"""The binary format of per-I/O trace events (``io`` level), as the gfapi worker writes them. Pure.

NetLogger's text lines cost ~150 bytes per read or write; here an event is 32 bytes, timestamps stay
integers (nanoseconds) until an export formats them, and a file is a 64-byte header followed by
events, written in whole chunks by the worker's writer thread (never by the measuring threads), so a
file cut short by a crash loses at most its last chunk and :func:`decode` stops at the last whole event.

Header (little endian): magic ``GFTPWBIO``, version u16, event size u16, ``every`` u32 (one event
recorded in N per thread), pid u32, thread base u32, monotonic ns and realtime ns of one instant
(``mono_base``, ``real_base``: event times are monotonic, the pair turns them into Unix time on the
worker's clock), 24 reserved bytes.

Event: start (monotonic ns) u64, duration ns u64, bytes u64, thread u32, op u16, flags u16.
An event whose op is :data:`OP_LEVEL` is not an I/O: the worker's trace level changed at ``start``
(``bytes`` holds the new level: 0 off, 1 run, 2 io), so a switch is itself an event.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

MAGIC = b"GFTPWBIO"
VERSION = 1
HEADER = struct.Struct("<8sHHIIIQQ24x")
EVENT = struct.Struct("<QQQIHH")
HEADER_SIZE = HEADER.size  # 64
EVENT_SIZE = EVENT.size  # 32

# Operation codes, as the worker's enum op numbers them (gfapi_worker.c).
OPS = ("open", "read", "write", "fsync", "close", "unlink")
OP_LEVEL = 0xFFFF
FLAG_ERROR = 1  # the call failed (its result was negative)
LEVEL_NAMES = ("off", "run", "io")


class FormatError(ValueError):
    """Not a trace file of this format (wrong magic, version or event size)."""


@dataclass(frozen=True)
class Header:
    every: int
    pid: int
    thread_base: int
    mono_base: int
    real_base: int
    version: int = VERSION

    def encode(self) -> bytes:
        return HEADER.pack(MAGIC, self.version, EVENT_SIZE, self.every, self.pid, self.thread_base,
                           self.mono_base, self.real_base)

    def unix_ns(self, mono_ns: int) -> int:
        """A monotonic timestamp of this worker as Unix time on its host's clock."""
        return mono_ns - self.mono_base + self.real_base


@dataclass(frozen=True)
class IoEvent:
    start_ns: int  # monotonic, the worker's clock
    duration_ns: int
    bytes: int
    thread: int
    op: int
    flags: int = 0

    def encode(self) -> bytes:
        return EVENT.pack(self.start_ns, self.duration_ns, self.bytes, self.thread, self.op, self.flags)

    @property
    def op_name(self) -> str:
        if self.op == OP_LEVEL:
            return "level"
        return OPS[self.op] if self.op < len(OPS) else f"op{self.op}"


def encode(header: Header, events: list[IoEvent]) -> bytes:
    return header.encode() + b"".join(e.encode() for e in events)


def decode_header(data: bytes) -> Header:
    if len(data) < HEADER_SIZE:
        raise FormatError(f"{len(data)} bytes: shorter than the {HEADER_SIZE}-byte header of an I/O trace")
    magic, version, size, every, pid, base, mono, real = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise FormatError(f"not a gftpwb I/O trace (magic {magic!r})")
    if version != VERSION or size != EVENT_SIZE:
        raise FormatError(f"I/O trace version {version} with {size}-byte events; this gftpwb reads version "
                          f"{VERSION} with {EVENT_SIZE}-byte events")
    return Header(every, pid, base, mono, real, version)


def iter_events(data: bytes) -> Iterator[IoEvent]:
    """The whole events after the header (a trailing partial event, from a crash, is ignored)."""
    end = HEADER_SIZE + (len(data) - HEADER_SIZE) // EVENT_SIZE * EVENT_SIZE
    for fields in EVENT.iter_unpack(memoryview(data)[HEADER_SIZE:end]):
        yield IoEvent(*fields)


def decode(data: bytes) -> tuple[Header, list[IoEvent]]:
    return decode_header(data), list(iter_events(data))
