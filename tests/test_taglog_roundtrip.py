"""Tag logs through ``import taglogs`` and ``export taglogs`` keep what tgftp_log reads from them.

Generated tgftp logs (any bytes in the values, UTF-8 or not, NUL included; blanks around tag lines;
missing and repeated tags) are read into a record, stored as a journal line, read back and written as
a tag log again; for each of tgftp_log's ten attributes, the copy gives what the original gave (the
reading is gftpwb's tgftp_log, held to the real one by tests/compat). Seeded per run
(GFTPWB_FUZZ_SEED=N repeats a run).
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from support.fuzzseed import FUZZ_SEED, say_seed

from gftpwb.converters.taglog import STANDARD_TAGS, format_taglog, record_from_taglog
from gftpwb.core.masking import mask, mask_text
from gftpwb.core.records import ResultRecord
from gftpwb.core.undecodable import as_text, escape, restore_undecodable, set_aside_undecodable, unescape
from gftpwb.tgftp.log import extract

ORDER = ("GSIFTP_TRANSFER_LOG_COMMENT", "TGFTP_COMMAND", "GSIFTP_TRANSFER_COMMAND", "GSIFTP_TRANSFER_COMMAND_OUTPUT",
         "GSIFTP_TRANSFER_START", "GSIFTP_TRANSFER_END", "GSIFTP_TRANSFER_ERROR", "GSIFTP_TRANSFER_LIST",
         "GSIFTP_TRANSFER_SIZE", "GSIFTP_TRANSFER_RATE")
# A value line: any bytes but the ones that would make it a line ending or a tag (those are tested in
# tests/compat on real logs); a CR only where it cannot look like a CRLF log.
VALUE_BYTES = st.binary(max_size=40).map(lambda b: b.translate(None, b"\n\r<>"))
BLANKS = st.sampled_from([b"", b"", b" ", b"  ", b"\t", b" \t"])


@st.composite
def tgftp_logs(draw) -> bytes:
    tags = draw(st.lists(st.sampled_from(ORDER), min_size=1, max_size=12))
    if "GSIFTP_TRANSFER_COMMAND" not in tags:
        tags.insert(0, "GSIFTP_TRANSFER_COMMAND")
    out = b""
    for tag in tags:
        if tag == "GSIFTP_TRANSFER_START" or tag == "GSIFTP_TRANSFER_END":
            lines = [draw(st.sampled_from([b"2024-05-06_07:08:09", b"2024-05-06_07:08:19", b"", b"garbage"]))]
        elif tag == "GSIFTP_TRANSFER_SIZE":
            lines = [draw(st.sampled_from([b"4 MB", b"1024 B", b"x", b""]))]
        elif tag == "GSIFTP_TRANSFER_RATE":
            lines = [draw(st.sampled_from([b"4 MB/s", b"0 MB/s", b" MB/s", b""]))]
        else:
            lines = draw(st.lists(VALUE_BYTES, min_size=0, max_size=4))
        name = tag.encode()
        out += draw(BLANKS) + b"<" + name + b">" + draw(BLANKS) + b"\n" + b"".join(line + b"\n" for line in lines)
        out += draw(BLANKS) + b"</" + name + b">" + draw(BLANKS) + b"\n"
    return out


def through_a_journal(data: bytes) -> bytes:
    """``import taglogs`` then ``export taglogs``, in memory: the record as stored (masked, bytes that are
    not UTF-8 set aside), one journal line, read back, written as a tag log."""
    imported = record_from_taglog(data.decode("utf-8", "surrogateescape"), "tests.csv_#001_002.log").record
    line = mask(set_aside_undecodable(imported)).to_json()
    line.encode("utf-8")  # a journal line is UTF-8: nothing undecodable is left in it
    stored = ResultRecord.from_dict(json.loads(line))
    return format_taglog(mask(restore_undecodable(stored))).encode("utf-8", "surrogateescape")


def masked(value: bytes) -> bytes:
    return mask_text(value.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


@seed(FUZZ_SEED)
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tgftp_logs())
def test_tgftp_log_reads_the_same_from_the_copy(data):
    say_seed()
    copy = through_a_journal(data)
    for attribute in STANDARD_TAGS:
        assert extract(copy, attribute) == masked(extract(data, attribute)), attribute


@seed(FUZZ_SEED)
@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=60))
def test_undecodable_bytes_are_escaped_and_come_back(data):
    text = data.decode("utf-8", "surrogateescape")
    escaped = escape(text)
    escaped.encode("utf-8")  # plain text: no lone surrogate left
    assert unescape(escaped) == text
    assert as_text(text) == data.decode("utf-8", "replace")


@seed(FUZZ_SEED)
@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=30), st.binary(max_size=30), st.lists(st.binary(max_size=10), max_size=3))
def test_a_record_sets_its_undecodable_bytes_aside_and_gets_them_back(output, comment, argv):
    def text(b: bytes) -> str:
        return b.decode("utf-8", "surrogateescape")

    record = ResultRecord(scenario="s", test_id="t", run_id="t/0", case=0, repeat=0, kind="guc", host="local",
                          argv=[text(a) for a in argv], status="passed", output=text(output), comment=text(comment),
                          details={"tgftp_log": [["GSIFTP_TRANSFER_COMMAND", text(output + comment)]]})
    stored = ResultRecord.from_dict(json.loads(set_aside_undecodable(record).to_json()))
    assert stored.output == output.decode("utf-8", "replace")
    assert restore_undecodable(stored) == record


def test_a_tag_line_with_blanks_keeps_size_and_rate():
    log = (b"<GSIFTP_TRANSFER_COMMAND>\nglobus-url-copy -len 4M ftp://h/dev/zero ftp://h/dev/null\n"
           b"</GSIFTP_TRANSFER_COMMAND>\n<GSIFTP_TRANSFER_START>\n2024-05-06_07:08:09\n</GSIFTP_TRANSFER_START>\n"
           b"<GSIFTP_TRANSFER_END>\n2024-05-06_07:08:10\n</GSIFTP_TRANSFER_END>\n"
           b"<GSIFTP_TRANSFER_SIZE> \n4 MB\n</GSIFTP_TRANSFER_SIZE> \n<GSIFTP_TRANSFER_RATE>\t\n4 MB/s\n"
           b"</GSIFTP_TRANSFER_RATE>\n")
    record = record_from_taglog(log.decode(), "x.log").record
    assert (record.bytes, record.rate_incl_setup_mib_s) == (4 << 20, 4.0)
    copy = through_a_journal(log)
    for attribute in ("GSIFTP_TRANSFER_SIZE", "GSIFTP_TRANSFER_RATE"):
        assert extract(copy, attribute) == extract(log, attribute) != b""
