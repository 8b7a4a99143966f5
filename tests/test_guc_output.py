"""The -vb parser: real guc output, and the same items whatever the chunking."""

from hypothesis import given
from hypothesis import strategies as st

from gftpwb.kinds.guc.output import GucOutputParser, ProgressSample, TextLine

# Captured from globus-url-copy 10.12 (client-side get to file:///dev/null), stdout.
REAL = (b"Source: ftp://127.0.0.1:2811/dev/\nDest:   file:///dev/\n  zero  ->  null\n\n"
        b"   6042419200 bytes      2881.21 MB/sec avg      2881.21 MB/sec inst\r"
        b"  12181307392 bytes      2904.23 MB/sec avg      2927.26 MB/sec inst\r"
        b"  42949672960 bytes      3103.03 MB/sec avg      3096.17 MB/sec inst\r\n")


def parse_all(chunks: list[bytes], stream: str = "stdout"):
    parser = GucOutputParser()
    items = []
    for chunk in chunks:
        items.extend(parser.feed(stream, chunk))
    items.extend(parser.close())
    return items


def test_real_output():
    items = parse_all([REAL])
    assert items[:3] == [TextLine("stdout", "Source: ftp://127.0.0.1:2811/dev/"),
                         TextLine("stdout", "Dest:   file:///dev/"), TextLine("stdout", "  zero  ->  null")]
    assert items[3:] == [ProgressSample(6042419200, 2881.21, 2881.21), ProgressSample(12181307392, 2904.23, 2927.26),
                         ProgressSample(42949672960, 3103.03, 3096.17)]


def test_progress_is_emitted_before_the_line_ends_with_newline():
    parser = GucOutputParser()
    assert parser.feed("stdout", b" 1048576 bytes 1.00 MB/sec avg 1.00 MB/sec inst\r") == [
        ProgressSample(1048576, 1.0, 1.0)]


def test_unterminated_tail_is_flushed_on_close():
    parser = GucOutputParser()
    assert parser.feed("stderr", b"error: something") == []
    assert parser.close() == [TextLine("stderr", "error: something")]


def test_streams_are_independent():
    parser = GucOutputParser()
    parser.feed("stdout", b"  100 bytes 1.00 MB/sec")
    parser.feed("stderr", b"error: x\n")
    assert parser.feed("stdout", b" avg 2.00 MB/sec inst\r") == [ProgressSample(100, 1.0, 2.0)]


@given(st.data())
def test_any_chunking_gives_the_same_items(data):
    payload = data.draw(st.sampled_from([REAL, REAL + "é\r\nünïcode\n".encode(), b"\r\r\n\n" + REAL[::-1]]))
    cuts = sorted(data.draw(st.lists(st.integers(min_value=0, max_value=len(payload)), max_size=20)))
    chunks = [payload[a:b] for a, b in zip([0, *cuts], [*cuts, len(payload)], strict=True)]
    assert parse_all(chunks) == parse_all([payload])


@given(st.binary(max_size=300))
def test_arbitrary_bytes_never_raise(blob):
    for item in parse_all([blob]):
        assert isinstance(item, ProgressSample | TextLine)
