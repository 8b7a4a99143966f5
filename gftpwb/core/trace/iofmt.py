"""The binary format of per-I/O trace events (``io`` level), as the gfapi worker writes them. Pure.

NetLogger's text lines cost ~150 bytes per read or write; here an event is 16 bytes, timestamps stay
integers (nanoseconds) until an export formats them, and a file is a 64-byte header followed by blocks,
each one chunk of one thread's events written whole by the worker's writer thread (never by the
measuring threads), so a file cut short by a crash loses at most the last chunk of each thread and
:func:`decode` stops cleanly at a cut or damaged block, keeping every whole event before it.

Header (little endian): magic ``GFTPWBIO``, version u16, event size u16, ``every`` u32 (one event
recorded in N per thread), pid u32, thread base u32, monotonic ns and realtime ns of one instant
(``mono_base``, ``real_base``: event times are monotonic, the pair turns them into Unix time on the
worker's clock), 24 reserved bytes.

Version 2 (what the worker writes; 16-byte slots). A block is a 16-byte block header, marker
``GBLK``, thread u32, slots u32, events u32, then ``slots`` 16-byte slots. An event is one slot:
start (monotonic ns) u64, duration ns u32, and a word u32 holding bytes (bits 0-25), the error flag
(bit 26), the wide flag (bit 27) and op (bits 28-31). A *wide* event (duration over 2**32-1 ns, about
4.29 s, or 64 MiB or more moved) takes the next slot too, which holds duration u64 and bytes u64 in full
(its first slot's duration and bytes are 0): nothing is ever truncated, and ``events`` = ``slots`` minus
the wide events. Why 16 bytes: in a real run the cost of tracing is the cache lines the measuring
thread stores (docs/benchmarks/tracing.md), so it is proportional to the bytes per event.

Version 1 (older results directories still hold such files; read, never written): 32-byte events
straight after the header, start u64, duration u64, bytes u64, thread u32, op u16, flags u16.

In both, an event whose op is :data:`OP_LEVEL` (op field 15 in version 2) is not an I/O: the worker's
trace level changed at ``start`` (``bytes`` holds the new level: 0 off, 1 run, 2 io; thread -1, that is
2**32-1: the process), so a switch is itself an event.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

MAGIC = b"GFTPWBIO"
VERSION = 2  # what the worker writes and :func:`encode` writes by default
VERSIONS = (1, 2)
HEADER = struct.Struct("<8sHHIIIQQ24x")
HEADER_SIZE = HEADER.size  # 64

EVENT_V1 = struct.Struct("<QQQIHH")
SLOT = struct.Struct("<QII")  # version 2: start, duration, word
WIDE = struct.Struct("<QQ")  # version 2: a wide event's second slot, duration and bytes
BLOCK = struct.Struct("<IIII")  # version 2: marker, thread, slots, events
BLOCK_MARKER = 0x4B4C4247  # b"GBLK" little endian
EVENT_SIZES = {1: EVENT_V1.size, 2: SLOT.size}  # 32, 16
EVENT_SIZE = EVENT_SIZES[VERSION]  # 16: bytes of one event on disk (a wide one takes two)
BLOCK_SIZE = BLOCK.size  # 16

BYTES_BITS = 26
BYTES_MAX = (1 << BYTES_BITS) - 1
WORD_ERROR = 1 << 26
WORD_WIDE = 1 << 27
OP_SHIFT = 28
OP_FIELD_LEVEL = 15  # the op field of a level switch in version 2

# Operation codes, as the worker's enum op numbers them (gfapi_worker.c).
OPS = ("open", "read", "write", "fsync", "close", "unlink")
OP_LEVEL = 0xFFFF
FLAG_ERROR = 1  # the call failed (its result was negative)
LEVEL_NAMES = ("off", "run", "io")
THREAD_PROCESS = 0xFFFFFFFF  # the thread of a level switch


class FormatError(ValueError):
    """Not a trace file of this format (wrong magic, version or event size), or an event version 2
    cannot hold."""


@dataclass(frozen=True)
class Header:
    every: int
    pid: int
    thread_base: int
    mono_base: int
    real_base: int
    version: int = VERSION

    def encode(self) -> bytes:
        return HEADER.pack(MAGIC, self.version, EVENT_SIZES.get(self.version, EVENT_SIZE), self.every, self.pid,
                           self.thread_base, self.mono_base, self.real_base)

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

    def encode_v1(self) -> bytes:
        return EVENT_V1.pack(self.start_ns, self.duration_ns, self.bytes, self.thread, self.op, self.flags)

    def encode_slots(self) -> bytes:
        """The event's one or two version-2 slots (its thread goes in the block header)."""
        if self.op == OP_LEVEL:
            field = OP_FIELD_LEVEL
        elif 0 <= self.op < OP_FIELD_LEVEL:
            field = self.op
        else:
            raise FormatError(f"op {self.op} does not fit version 2's 4-bit op field")
        if self.flags & ~FLAG_ERROR:
            raise FormatError(f"flags {self.flags:#x}: version 2 keeps only the error flag")
        word = field << OP_SHIFT | (WORD_ERROR if self.flags & FLAG_ERROR else 0)
        if self.duration_ns <= 0xFFFFFFFF and self.bytes <= BYTES_MAX:
            return SLOT.pack(self.start_ns, self.duration_ns, word | self.bytes)
        return SLOT.pack(self.start_ns, 0, word | WORD_WIDE) + WIDE.pack(self.duration_ns, self.bytes)

    @property
    def op_name(self) -> str:
        if self.op == OP_LEVEL:
            return "level"
        return OPS[self.op] if self.op < len(OPS) else f"op{self.op}"


def encode(header: Header, events: list[IoEvent]) -> bytes:
    """A whole file; in version 2 each run of consecutive events of one thread is one block."""
    if header.version == 1:
        return header.encode() + b"".join(e.encode_v1() for e in events)
    out = [header.encode()]
    start = 0
    while start < len(events):
        end = start
        while end < len(events) and events[end].thread == events[start].thread:
            end += 1
        slots = b"".join(e.encode_slots() for e in events[start:end])
        out.append(BLOCK.pack(BLOCK_MARKER, events[start].thread, len(slots) // SLOT.size, end - start))
        out.append(slots)
        start = end
    return b"".join(out)


def decode_header(data: bytes) -> Header:
    if len(data) < HEADER_SIZE:
        raise FormatError(f"{len(data)} bytes: shorter than the {HEADER_SIZE}-byte header of an I/O trace")
    magic, version, size, every, pid, base, mono, real = HEADER.unpack_from(data)
    if magic != MAGIC:
        raise FormatError(f"not a gftpwb I/O trace (magic {magic!r})")
    if EVENT_SIZES.get(version) != size:
        readable = ", ".join(f"{v} ({s}-byte events)" for v, s in EVENT_SIZES.items())
        raise FormatError(f"I/O trace version {version} with {size}-byte events; this gftpwb reads versions {readable}")
    return Header(every, pid, base, mono, real, version)


def _blocks(data: bytes) -> Iterator[tuple[int, int, int, int, bool]]:
    """Version 2's blocks: (thread, offset of the first slot, slots, events, whole). A cut last block
    is given with the slots that are there (whole False); a block header that is cut or not one (a
    damaged file) ends the walk."""
    offset = HEADER_SIZE
    while offset + BLOCK_SIZE <= len(data):
        marker, thread, slots, events = BLOCK.unpack_from(data, offset)
        if marker != BLOCK_MARKER or events > slots or slots > 2 * events:
            return
        first = offset + BLOCK_SIZE
        there = min(slots, (len(data) - first) // SLOT.size)
        yield thread, first, there, events, there == slots
        if there < slots:
            return
        offset = first + slots * SLOT.size


def _block_events(data: bytes, thread: int, first: int, slots: int) -> Iterator[IoEvent]:
    end = first + slots * SLOT.size
    offset = first
    while offset < end:
        start, duration, word = SLOT.unpack_from(data, offset)
        offset += SLOT.size
        field = word >> OP_SHIFT
        op = OP_LEVEL if field == OP_FIELD_LEVEL else field
        flags = FLAG_ERROR if word & WORD_ERROR else 0
        size = word & BYTES_MAX
        if word & WORD_WIDE:
            if offset >= end:  # the wide event's second slot was cut off
                return
            duration, size = WIDE.unpack_from(data, offset)
            offset += SLOT.size
        yield IoEvent(start, duration, size, thread, op, flags)


def iter_events(data: bytes) -> Iterator[IoEvent]:
    """The whole events after the header, in file order; a trailing partial event or block (from a
    crash) or a damaged block ends them."""
    header = decode_header(data)
    if header.version == 1:
        end = HEADER_SIZE + (len(data) - HEADER_SIZE) // EVENT_V1.size * EVENT_V1.size
        for fields in EVENT_V1.iter_unpack(memoryview(data)[HEADER_SIZE:end]):
            yield IoEvent(*fields)
        return
    for thread, first, slots, _events, _whole in _blocks(data):
        yield from _block_events(data, thread, first, slots)


def count_events(data: bytes) -> int:
    """How many whole events a file holds, without decoding them (block headers only, except in a cut
    last block). Raises FormatError as :func:`decode_header`."""
    header = decode_header(data)
    if header.version == 1:
        return max(0, (len(data) - HEADER_SIZE) // EVENT_V1.size)
    total = 0
    for thread, first, slots, events, whole in _blocks(data):
        total += events if whole else sum(1 for _ in _block_events(data, thread, first, slots))
    return total


def decode(data: bytes) -> tuple[Header, list[IoEvent]]:
    return decode_header(data), list(iter_events(data))
