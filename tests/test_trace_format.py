"""The binary I/O trace format (core/trace/iofmt.py): round trips of both versions, the wide-slot escape,
limits, cut and damaged files."""

import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gftpwb.core.trace.iofmt import (
    BLOCK,
    BLOCK_MARKER,
    BLOCK_SIZE,
    BYTES_MAX,
    EVENT_SIZE,
    FLAG_ERROR,
    HEADER_SIZE,
    OP_LEVEL,
    VERSION,
    FormatError,
    Header,
    IoEvent,
    count_events,
    decode,
    encode,
)

U64 = st.integers(0, 2**64 - 1)
U32 = st.integers(0, 2**32 - 1)
headers_v1 = st.builds(Header, every=U32, pid=U32, thread_base=U32, mono_base=U64, real_base=U64, version=st.just(1))
headers = st.builds(Header, every=U32, pid=U32, thread_base=U32, mono_base=U64, real_base=U64)
events_v1 = st.builds(IoEvent, start_ns=U64, duration_ns=U64, bytes=U64, thread=U32, op=st.integers(0, 2**16 - 1),
                      flags=st.integers(0, 2**16 - 1))
# Version 2: what the worker can record (ops 0-14 and the level switch, the error flag), with durations
# and sizes on both sides of the one-slot limits (2**32 - 1 ns, 2**26 - 1 bytes), and few threads so
# that blocks hold several events.
edges = st.sampled_from([0, 1, BYTES_MAX, BYTES_MAX + 1, 2**32 - 1, 2**32, 2**64 - 1])
events = st.builds(IoEvent, start_ns=U64, duration_ns=st.one_of(edges, U64, st.integers(0, 10**6)),
                   bytes=st.one_of(edges, U64, st.integers(0, 2**20)), thread=st.sampled_from([0, 1, 7, 2**32 - 1]),
                   op=st.one_of(st.integers(0, 14), st.just(OP_LEVEL)), flags=st.sampled_from([0, FLAG_ERROR]))


def wide(event: IoEvent) -> bool:
    return event.duration_ns > 2**32 - 1 or event.bytes > BYTES_MAX


def blocks(items: list[IoEvent]) -> int:
    return sum(1 for i, e in enumerate(items) if i == 0 or e.thread != items[i - 1].thread)


def test_sizes_are_what_the_worker_writes():
    assert HEADER_SIZE == 64 and BLOCK_SIZE == 16 and VERSION == 2
    assert EVENT_SIZE == 16  # the target: at most 32 bytes per event


@given(headers, st.lists(events, max_size=50))
def test_round_trip(header, items):
    data = encode(header, items)
    slots = sum(2 if wide(e) else 1 for e in items)
    assert len(data) == HEADER_SIZE + BLOCK_SIZE * blocks(items) + EVENT_SIZE * slots
    assert decode(data) == (header, items)
    assert count_events(data) == len(items)


def test_an_event_that_does_not_fit_one_slot_takes_two_and_keeps_its_values():
    header = Header(every=1, pid=1, thread_base=0, mono_base=0, real_base=0)
    long_op = IoEvent(5, 5 * 10**9, 0, 3, 0)  # 5 s: more than a u32 of ns
    big = IoEvent(6, 10, 128 * 2**20, 3, 2)  # 128 MiB written
    fits = IoEvent(7, 2**32 - 1, BYTES_MAX, 3, 1, FLAG_ERROR)
    data = encode(header, [long_op, big, fits])
    assert len(data) == HEADER_SIZE + BLOCK_SIZE + 5 * EVENT_SIZE
    assert BLOCK.unpack_from(data, HEADER_SIZE) == (BLOCK_MARKER, 3, 5, 3)
    assert decode(data)[1] == [long_op, big, fits]


@pytest.mark.parametrize("event, reason", [
    (IoEvent(0, 0, 0, 0, 15), "4-bit op field"),
    (IoEvent(0, 0, 0, 0, 1, flags=2), "only the error flag"),
])
def test_what_version_2_cannot_hold_is_refused_not_altered(event, reason):
    with pytest.raises(FormatError, match=reason):
        encode(Header(1, 1, 0, 0, 0), [event])


@given(headers_v1, st.lists(events_v1, max_size=50))
def test_version_1_files_are_still_read(header, items):
    data = encode(header, items)
    assert len(data) == HEADER_SIZE + 32 * len(items)
    assert decode(data) == (header, items)
    assert count_events(data) == len(items)


@given(headers_v1, st.lists(events_v1, min_size=1, max_size=20), st.integers(1, 31))
def test_version_1_a_torn_last_event_is_dropped_not_misread(header, items, cut):
    data = encode(header, items)[:-cut]
    assert decode(data) == (header, items[:-1])
    assert count_events(data) == len(items) - 1


@given(headers, st.lists(events, min_size=1, max_size=30), st.data())
def test_a_cut_file_keeps_every_whole_event_before_the_cut(header, items, data):
    """A crash can cut the file anywhere (inside a block header, an event, between the two slots of a
    wide event): what is decoded is exactly the events whose bytes are all there, in order."""
    whole = encode(header, items)
    cut = data.draw(st.integers(HEADER_SIZE, len(whole) - 1))
    got = decode(whole[:cut])[1]
    assert got == items[:len(got)]
    assert count_events(whole[:cut]) == len(got)
    ends, offset = [], HEADER_SIZE  # where each event's last byte is, to know what must be kept
    for i, e in enumerate(items):
        if i == 0 or e.thread != items[i - 1].thread:
            offset += BLOCK_SIZE
        offset += EVENT_SIZE * (2 if wide(e) else 1)
        ends.append(offset)
    assert len(got) == sum(1 for end in ends if end <= cut)


def test_a_damaged_block_ends_the_events_before_it():
    """A block header that is not one (the marker, or counts that no writer makes) stops decoding there:
    the events of the blocks before it are kept, nothing after it is misread."""
    header = Header(every=1, pid=1, thread_base=0, mono_base=0, real_base=0)
    first, second = [IoEvent(1, 2, 3, 0, 2)], [IoEvent(4, 5, 6, 1, 2), IoEvent(7, 8, 9, 1, 4)]
    data = bytearray(encode(header, first + second))
    at = HEADER_SIZE + BLOCK_SIZE + EVENT_SIZE  # the second block's header
    for damage in (b"XXXX", struct.pack("<I", BLOCK_MARKER) + struct.pack("<III", 1, 2, 3),
                   struct.pack("<I", BLOCK_MARKER) + struct.pack("<III", 1, 9, 2)):
        bad = bytes(data[:at]) + damage + bytes(data[at + len(damage):])
        assert decode(bad) == (header, first)
        assert count_events(bad) == 1


def test_unix_time_of_a_monotonic_stamp():
    header = Header(every=1, pid=1, thread_base=0, mono_base=1_000, real_base=1_700_000_000_000_000_000)
    assert header.unix_ns(1_500) == 1_700_000_000_000_000_500


def test_op_names():
    assert [IoEvent(0, 0, 0, 0, op).op_name for op in range(6)] == ["open", "read", "write", "fsync", "close",
                                                                    "unlink"]
    assert IoEvent(0, 0, 2, 0, OP_LEVEL).op_name == "level"


@pytest.mark.parametrize("data, message", [
    (b"short", "shorter than the 64-byte header"),
    (b"NOTTRACE" + bytes(56), "not a gftpwb I/O trace"),
    (Header(1, 1, 0, 0, 0, version=9).encode(), "version 9"),
    (b"GFTPWBIO" + struct.pack("<HH", 2, 32) + bytes(52), "version 2 with 32-byte events"),
])
def test_damaged_headers_are_refused_with_a_reason(data, message):
    with pytest.raises(FormatError, match=message):
        decode(data)
    with pytest.raises(FormatError, match=message):
        count_events(data)
