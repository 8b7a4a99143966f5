import pytest
from hypothesis import given
from hypothesis import strategies as st

from gftpwb.core.rates import mib_per_s
from gftpwb.core.units import GIB, MIB, format_duration, format_size_arg, parse_duration, parse_size
from gftpwb.tgftp.model import rate_text, size_text


@pytest.mark.parametrize(("text", "expected"), [
    ("4M", 4 * MIB), ("4m", 4 * MIB), ("4G", 4 * GIB), ("4g", 4 * GIB), ("512k", 512 * 1024), ("512K", 512 * 1024),
    ("100", 100), ("100B", 100), ("100b", 100), (7, 7), ("0", 0),
])
def test_parse_size_accepts_guc_and_tgftp_spellings(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["4X", "4.5G", "-1", "G", "", "4 GB", "4GiB", True, -3])
def test_parse_size_rejects_what_guc_rejects(bad):
    with pytest.raises(ValueError):
        parse_size(bad)


@given(st.integers(min_value=0, max_value=2**50))
def test_size_arg_round_trips_and_is_shortest(nbytes):
    text = format_size_arg(nbytes)
    assert parse_size(text) == nbytes
    assert len(text) <= len(str(nbytes))


@pytest.mark.parametrize(("text", "seconds"), [
    ("30s", 30), ("5m", 300), ("1h", 3600), ("1m30s", 90), ("250ms", 0.25), ("30", 30), (45, 45), (1.5, 1.5),
    ("1h2m3s", 3723), ("0", 0),
])
def test_parse_duration(text, seconds):
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("bad", ["30x", "s", "1m30", "m5", "", "-3s", "1.5.2s", False])
def test_parse_duration_rejects_garbage(bad):
    with pytest.raises(ValueError):
        parse_duration(bad)


@given(st.integers(min_value=0, max_value=10**6))
def test_duration_text_round_trips(seconds):
    assert parse_duration(format_duration(seconds)) == seconds


def test_rates_are_mib_per_second():
    assert mib_per_s(4 * GIB, 2.0) == 2048.0
    assert mib_per_s(None, 1.0) is None
    assert mib_per_s(10, 0) is None


def test_tgftp_tag_texts():
    # GSIFTP_TRANSFER_SIZE is the -len text as tgftp read it: one trailing letter off, then its unit.
    assert size_text("4G") == "4 GB"
    assert size_text("512M") == "512 MB"
    assert size_text("3K") == "3 KB"
    assert size_text("1000") == "1000 B"
    assert size_text("1024M") == "1024 MB"  # not 1 GB: tgftp never converts


def test_tgftp_rate_is_whole_seconds_and_integer_division():
    # GSIFTP_TRANSFER_RATE's number: the size in MiB over `date +%s` seconds, bash integer division.
    assert rate_text("4G", 10, 12) == "2048"
    assert rate_text("4G", 10, 10) == "4096"  # same second: elapsed 0 becomes 1
    assert rate_text(str(MIB - 1), 0, 1) == "0"  # sub-MiB sizes truncate to 0 MB
    assert rate_text(str(4 * GIB), 0, 3) == "1365"  # 4096 / 3, truncated
    assert rate_text("3K", 0, 1) == "0"
