"""The binary I/O trace format (core/trace/iofmt.py): round trips, limits, damaged files."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gftpwb.core.trace.iofmt import (
    EVENT_SIZE,
    HEADER_SIZE,
    OP_LEVEL,
    FormatError,
    Header,
    IoEvent,
    decode,
    encode,
)

U64 = st.integers(0, 2**64 - 1)
U32 = st.integers(0, 2**32 - 1)
headers = st.builds(Header, every=U32, pid=U32, thread_base=U32, mono_base=U64, real_base=U64)
events = st.builds(IoEvent, start_ns=U64, duration_ns=U64, bytes=U64, thread=U32, op=st.integers(0, 2**16 - 1),
                   flags=st.integers(0, 2**16 - 1))


def test_sizes_are_what_the_worker_writes():
    assert HEADER_SIZE == 64
    assert EVENT_SIZE == 32  # the target: at most 32 bytes per event


@given(headers, st.lists(events, max_size=50))
def test_round_trip(header, items):
    data = encode(header, items)
    assert len(data) == HEADER_SIZE + EVENT_SIZE * len(items)
    assert decode(data) == (header, items)


@given(headers, st.lists(events, min_size=1, max_size=20), st.integers(1, EVENT_SIZE - 1))
def test_a_torn_last_event_is_dropped_not_misread(header, items, cut):
    data = encode(header, items)[:-cut]
    assert decode(data) == (header, items[:-1])


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
])
def test_damaged_headers_are_refused_with_a_reason(data, message):
    with pytest.raises(FormatError, match=message):
        decode(data)
