"""The gfapi worker's line protocol: every message type, malformed input, and arbitrary chunking."""

import itertools

from hypothesis import given
from hypothesis import strategies as st

from gftpwb.kinds.gfapi.protocol import (
    End,
    Fatal,
    Hello,
    HistogramDelta,
    ProcessReady,
    Sample,
    Text,
    ThreadDone,
    ThreadError,
    ThreadReady,
    ThreadStarted,
    WorkerStream,
    parse_line,
)

TRANSCRIPT = (
    b"hello 1 4242 2 gfapi seq-wr 4\n"
    b"r 4 65536\nr 5 -1\nready 2\n"
    b"s 4 1795309646497492330\n"
    b"p 4 250131320 1646 1646 6742016\n"
    b"h 4 open 1646 235673559 331546 208:2,209:1,210:8\n"
    b"e 5 2 open open /gftpwb/local/t005/f0000000: No such file or directory\n"
    b"d 5 failed 0 0 0 0\n"
    b"d 4 ok 343528946 2000 2000 8192000\n"
    b"end 1\n"
)
EXPECTED = [
    Hello(1, 4242, 2, "gfapi", "seq-wr", 4), ThreadReady(4, 65536), ThreadReady(5, -1), ProcessReady(2),
    ThreadStarted(4, 1795309646497492330), Sample(4, 250131320, 1646, 1646, 6742016),
    HistogramDelta(4, "open", 1646, 235673559, 331546, {208: 2, 209: 1, 210: 8}),
    ThreadError(5, 2, "open", "open /gftpwb/local/t005/f0000000: No such file or directory"),
    ThreadDone(5, "failed", 0, 0, 0, 0), ThreadDone(4, "ok", 343528946, 2000, 2000, 8192000), End(1),
]


def test_every_message_type_parses():
    assert WorkerStream().feed("stdout", TRANSCRIPT) == EXPECTED
    assert parse_line("fatal 3 cannot connect to volume 'x' on h:24007 (tcp): glfs_init failed") == Fatal(
        3, "cannot connect to volume 'x' on h:24007 (tcp): glfs_init failed")


def test_histogram_buckets_are_compared_by_value():
    message = parse_line("h 0 write 3 30 20 5:1,6:2")
    assert isinstance(message, HistogramDelta) and message.buckets == {5: 1, 6: 2}


def test_malformed_lines_become_text_not_errors():
    for line in ("p 1 2 3", "p x 1 2 3 4", "d 0 weird 1 2 3 4", "h 0 nosuchop 1 1 1 1:1", "hello 1 2", "zzz",
                 "", "ready", "end x", "r 4"):
        message = parse_line(line)
        assert message == Text("stdout", line, malformed=True), line


def test_stderr_is_text_and_unterminated_lines_come_out_at_close():
    stream = WorkerStream()
    assert stream.feed("stderr", b"[2026] E glfs: failed\npartial") == [Text("stderr", "[2026] E glfs: failed")]
    assert stream.feed("stdout", b"p 0 1 2 3 ") == []
    # A worker killed mid-write leaves a cut line: it is never trusted as protocol.
    assert stream.close() == [Text("stdout", "p 0 1 2 3 ", malformed=True), Text("stderr", "partial")]
    assert stream.close() == []


@given(st.lists(st.integers(min_value=0, max_value=len(TRANSCRIPT)), max_size=40))
def test_any_chunking_gives_the_same_messages(cuts):
    stream = WorkerStream()
    points = sorted({0, len(TRANSCRIPT), *cuts})
    got = []
    for a, b in itertools.pairwise(points):
        got.extend(stream.feed("stdout", TRANSCRIPT[a:b]))
    got.extend(stream.close())
    assert got == EXPECTED


@given(st.binary(max_size=300))
def test_garbage_never_raises(data):
    stream = WorkerStream()
    messages = stream.feed("stdout", data) + stream.close()
    assert all(not isinstance(m, Text) or m.stream == "stdout" for m in messages)
