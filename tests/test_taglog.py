"""Tag logs in tgftp 0.7.0's layout: the tags, their order, and the values tgftp_log would print; and
reading them back, from gftpwb's logs (exactly) and from tgftp's own."""

import json
import subprocess
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gftpwb.converters.taglog import (
    STANDARD_TAGS,
    TagLogError,
    attribute_is_empty,
    epoch_seconds,
    format_taglog,
    get_attribute,
    parse_log_name,
    parse_tags,
    record_from_taglog,
)
from gftpwb.core.records import STATUSES, ResultRecord
from gftpwb.core.units import GIB
from gftpwb.tgftp.model import rate_text


def make(status: str, **kw) -> ResultRecord:
    base = dict(scenario="s", test_id="a", run_id="a/0", case=0, repeat=0, kind="guc", host="local",
                argv=["globus-url-copy", "-vb", "-p", "4", "-len", "4G", "ftp://h/dev/zero", "ftp://h/dev/null"],
                status=status, started_at="2026-11-21T23:59:26.000000+00:00",
                ended_at="2026-11-21T23:59:28.500000+00:00", output="Source: x\n 1 bytes\r\n", comment="#lab")
    base.update(kw)
    return ResultRecord(**base)


def test_successful_run_has_size_and_integer_rate_after_the_standard_order(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    text = format_taglog(make("passed", bytes=4 * GIB, rate_incl_setup_mib_s=1638.39, rate_guc_avg_mib_s=1700.0,
                              seconds=2.5), "gftpwb run s.yaml")
    tags = parse_tags(text)
    # gftpwb's own tags first (tgftp_log reads downwards from a tag's name, so it never reaches them)
    assert [t for t, _ in tags] == [
        "GFTPWB_RUN_ID", "GFTPWB_STATUS", "GFTPWB_RATE_INCL_SETUP_MIB_S", "GFTPWB_RATE_GUC_AVG_MIB_S",
        "GFTPWB_SECONDS", "GFTPWB_RECORD",
        "GSIFTP_TRANSFER_LOG_COMMENT", "TGFTP_COMMAND", "GSIFTP_TRANSFER_COMMAND", "GSIFTP_TRANSFER_COMMAND_OUTPUT",
        "GSIFTP_TRANSFER_START", "GSIFTP_TRANSFER_END", "GSIFTP_TRANSFER_SIZE", "GSIFTP_TRANSFER_RATE"]
    values = dict(tags)
    # tgftp's formula: whole seconds (23:59:26 -> 23:59:28), 4096 MiB / 2 s
    assert values["GSIFTP_TRANSFER_RATE"] == "2048 MB/s"
    assert values["GSIFTP_TRANSFER_SIZE"] == "4 GB"
    assert values["GSIFTP_TRANSFER_START"] == "2026-11-21_23:59:26"
    assert values["GSIFTP_TRANSFER_COMMAND"] == ("globus-url-copy -vb -p 4 -len 4G ftp://h/dev/zero "
                                                 "ftp://h/dev/null")
    assert values["GSIFTP_TRANSFER_COMMAND_OUTPUT"] == "Source: x\n 1 bytes\r\n"  # guc output + one empty line
    assert values["GSIFTP_TRANSFER_LOG_COMMENT"] == "#lab"
    assert "GSIFTP_TRANSFER_ERROR" not in values and "GSIFTP_TRANSFER_LIST" not in values
    assert "\n<GSIFTP_TRANSFER_LOG_COMMENT>\n#lab\n</GSIFTP_TRANSFER_LOG_COMMENT>\n<TGFTP_COMMAND>\n" in text


@pytest.mark.parametrize(("argv_len", "bytes_", "seconds", "size", "rate"), [
    ("1024M", 1 << 30, (0, 0.2), "1024 MB", "1024"),  # a run under a second counts as one second
    ("1G", 1 << 30, (0.9, 2.1), "1 GB", "512"),  # 00:00:00.9 -> 00:00:02.1: two whole seconds
    ("512K", 512 << 10, (0, 1), "512 KB", "0"),
    ("1000000", 10 ** 6, (0, 1), "1000000 B", "0"),
    ("010M", 8 << 20, (0, 1), "010 MB", "8"),  # bash reads 010 as octal
    ("4g", 4 << 30, (0, 1), "4 B", ""),  # only upper-case units are tgftp's; bash cannot compute 4g * 1
])
def test_size_and_rate_are_what_tgftp_wrote(argv_len, bytes_, seconds, size, rate):
    def iso(offset: float) -> str:
        return datetime.fromtimestamp(1_700_000_000 + offset, UTC).isoformat(timespec="microseconds")

    record = make("passed", argv=["globus-url-copy", "-len", argv_len, "ftp://h/dev/zero", "ftp://h/dev/null"],
                  bytes=bytes_, started_at=iso(seconds[0]), ended_at=iso(seconds[1]), rate_incl_setup_mib_s=1.0)
    values = dict(parse_tags(format_taglog(record)))
    assert (values["GSIFTP_TRANSFER_SIZE"], values["GSIFTP_TRANSFER_RATE"]) == (size, f"{rate} MB/s")


def test_no_size_or_rate_for_connection_tests_and_for_tgftp_runs_it_could_not_size():
    connection = make("passed", kind="connection-test", bytes=1, rate_incl_setup_mib_s=0.001,
                      details={"connection_test": {}},
                      argv=["globus-url-copy", "-dbg", "-vb", "-len", "1", "ftp://h/dev/zero", "ftp://h/dev/null"])
    unsized = make("passed", argv=["globus-url-copy", "-p", "2", "ftp://h/dev/zero", "ftp://h/dev/null"], bytes=5,
                   rate_incl_setup_mib_s=1.0, details={"tgftp_style": True})
    for record in (connection, unsized):
        values = dict(parse_tags(format_taglog(record)))
        assert "GSIFTP_TRANSFER_SIZE" not in values and "GSIFTP_TRANSFER_RATE" not in values


def test_a_listed_transfer_has_tgftps_list_and_its_size_in_bytes():
    listing = '"ftp://h/a" "ftp://h/b" 0,-1 size=3145728;modify=1;mode=0644;'
    record = make("passed", argv=["globus-url-copy", "ftp://h/a", "ftp://h/b"], bytes=3 << 20,
                  rate_incl_setup_mib_s=3.0, details={"transfer_list": listing, "tgftp_style": True})
    values = dict(parse_tags(format_taglog(record)))
    assert values["GSIFTP_TRANSFER_LIST"] == listing
    assert values["GSIFTP_TRANSFER_SIZE"] == "3145728 B" and values["GSIFTP_TRANSFER_RATE"] == "1 MB/s"


def test_the_drop_ins_log_is_written_with_echo_e_as_tgftp_did():
    record = make("passed", comment="#a\\tb", details={"tgftp": {"params": "-len 1M", "command": "globus-url-copy "
                                                                 "-len 1M ftp://h/dev/zero ftp://h/dev/null",
                                                                 "echo_e": True}},
                  argv=["globus-url-copy", "-len", "1M", "ftp://h/dev/zero", "ftp://h/dev/null"])
    assert dict(parse_tags(format_taglog(record, "tgftp -x\\n")))["GSIFTP_TRANSFER_LOG_COMMENT"] == "#a\tb"
    assert "<TGFTP_COMMAND>\ntgftp -x\n\n</TGFTP_COMMAND>" in format_taglog(record, "tgftp -x\\n")


def test_failed_runs_have_tgftps_error_lines_and_no_rate():
    # tgftp 0.7.0 logged a timeout as "failed." (its "timed out." was unreachable); GFTPWB_STATUS tells them apart
    for status, line in (("failed", 'ERROR: "globus-url-copy" failed.'),
                         ("timeout", 'ERROR: "globus-url-copy" failed.'),
                         ("interrupted", 'ERROR: "globus-url-copy" was interrupted.')):
        values = dict(parse_tags(format_taglog(make(status, error="details here"))))
        assert values["GSIFTP_TRANSFER_ERROR"] == line
        assert "GSIFTP_TRANSFER_RATE" not in values
        assert values["GFTPWB_ERROR_DETAIL"] == "details here"


def test_argv_with_spaces_is_quoted_in_the_command_tag():
    values = dict(parse_tags(format_taglog(make("failed", argv=["globus-url-copy", "ftp://h/a b", "ftp://h/c"]))))
    assert values["GSIFTP_TRANSFER_COMMAND"] == "globus-url-copy 'ftp://h/a b' ftp://h/c"


def test_parse_tags_reads_an_unclosed_block_to_the_end():
    assert parse_tags("<A>\nx\n</A>\n<B>\ny\nz") == [("A", "x"), ("B", "y\nz")]


# --- reading logs back: gftpwb's own (exact) and tgftp's (standard tags) ----------------------------


TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60)
ISO = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 1, 1),
                   timezones=st.just(UTC)).map(lambda d: d.isoformat(timespec="microseconds"))
NUMBER = st.one_of(st.none(), st.floats(min_value=0, max_value=1e7, allow_nan=False))


@st.composite
def records(draw):
    return ResultRecord(
        scenario=draw(st.from_regex(r"[a-z][a-z0-9.]{0,8}", fullmatch=True)), test_id=draw(TEXT), run_id=draw(TEXT),
        case=draw(st.integers(0, 999)), repeat=draw(st.integers(0, 99)),
        kind=draw(st.sampled_from(["guc", "connection-test"])), host=draw(TEXT), argv=draw(st.lists(TEXT, max_size=6)),
        status=draw(st.sampled_from(STATUSES)), params=draw(st.dictionaries(st.sampled_from(["parallel", "length"]),
                                                                            st.integers(1, 1 << 40))),
        started_at=draw(ISO), ended_at=draw(ISO), seconds=draw(NUMBER),
        bytes=draw(st.one_of(st.none(), st.integers(0, 1 << 44))), rate_incl_setup_mib_s=draw(NUMBER),
        rate_guc_avg_mib_s=draw(NUMBER), exit_code=draw(st.one_of(st.none(), st.integers(-9, 255))),
        error=draw(TEXT), output=draw(st.text(max_size=200).filter(lambda t: "\udc80" not in t)), comment=draw(TEXT),
        taglog=draw(TEXT), details=draw(st.dictionaries(st.sampled_from(["commands", "x"]), TEXT, max_size=2)),
    )


@settings(max_examples=300, deadline=None)
@given(records(), TEXT)
def test_record_to_taglog_to_record_is_exact(record, command):
    text = format_taglog(record, command)
    back = record_from_taglog(text, "whatever.log")
    assert back.written_by == "gftpwb"
    assert back.record == record


@settings(max_examples=200, deadline=None)
@given(records())
def test_the_standard_tags_alone_tell_tgftps_story(record):
    """Stripped of gftpwb's own tags, a log still reads as tgftp's: status, integer rate, size."""
    record.comment = record.comment.replace("\n", " ").replace("<", "(")
    record.output = ""
    record.argv = ["globus-url-copy", "-len", "4G", "ftp://h/dev/zero", "ftp://h/dev/null"]
    text = format_taglog(record)
    tgftp_only = text[text.index("<GSIFTP_TRANSFER_LOG_COMMENT>\n"):]
    back = record_from_taglog(tgftp_only, "s_#007_002.log").record
    assert (back.test_id, back.case, back.repeat, back.scenario) == ("test-007", 7, 2, "s")
    expected_status = {"skipped": "failed", "timeout": "failed"}.get(record.status, record.status)
    assert back.status == expected_status
    assert back.comment == record.comment and back.argv == record.argv
    if record.status == "passed" and "connection_test" not in record.details:  # real connection tests carry it
        expected = rate_text("4G", *(epoch_seconds(t) for t in (record.started_at, record.ended_at)))
        assert back.rate_incl_setup_mib_s == (int(expected) if expected.isdigit() else None)
        assert back.bytes == 4 << 30
    else:
        assert back.rate_incl_setup_mib_s is None


TGFTP_070_PASSED = """\
<GSIFTP_TRANSFER_LOG_COMMENT>

</GSIFTP_TRANSFER_LOG_COMMENT>
<TGFTP_COMMAND>
/usr/local/bin/tgftp -s gsiftp://src.example/dev/zero -t gsiftp://dst.example:2812/dev/null -- -vb -p 4 -len 4G
</TGFTP_COMMAND>
<GSIFTP_TRANSFER_COMMAND>
globus-url-copy -vb -p 4 -tcp-bs 8M -len 4G gsiftp://src.example/dev/zero gsiftp://dst.example:2812/dev/null
</GSIFTP_TRANSFER_COMMAND>
<GSIFTP_TRANSFER_COMMAND_OUTPUT>
Source: gsiftp://src.example/dev/
Dest:   gsiftp://dst.example:2812/dev/
  zero  ->  null

  2147483648 bytes 1024.00 MB/sec avg 1020.00 MB/sec inst\r  4294967296 bytes 1950.50 MB/sec avg 2000.00 MB/sec inst

</GSIFTP_TRANSFER_COMMAND_OUTPUT>
<GSIFTP_TRANSFER_START>
2026-11-21_23:59:26
</GSIFTP_TRANSFER_START>
<GSIFTP_TRANSFER_END>
2026-11-21_23:59:28
</GSIFTP_TRANSFER_END>
<GSIFTP_TRANSFER_LIST>
"gsiftp://src.example/dev/zero" "gsiftp://dst.example:2812/dev/null" 0,-1 size=0;modify=1;mode=0644;
</GSIFTP_TRANSFER_LIST>
<GSIFTP_TRANSFER_SIZE>
4 GB
</GSIFTP_TRANSFER_SIZE>
<GSIFTP_TRANSFER_RATE>
2048 MB/s
</GSIFTP_TRANSFER_RATE>
"""


def test_a_passed_tgftp_070_log(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    imported = record_from_taglog(TGFTP_070_PASSED, "tests.csv_#003_001.log")
    r = imported.record
    assert imported.written_by == "tgftp"
    assert (r.scenario, r.test_id, r.run_id, r.case, r.repeat) == ("tests.csv", "test-003", "test-003/1", 3, 1)
    assert r.status == "passed" and r.exit_code == 0 and r.bytes == 4 << 30
    assert r.rate_incl_setup_mib_s == 2048 and r.details["tgftp_rate_mb_s"] == 2048
    assert r.rate_guc_avg_mib_s == 1950.5  # guc's own last -vb average, from the captured output
    assert r.started_at == "2026-11-21T23:59:26.000000+00:00" and r.seconds == 2
    assert r.params == {"parallel": 4, "tcp_buffer": 8 << 20, "length": 4 << 30}
    assert r.argv[-2:] == ["gsiftp://src.example/dev/zero", "gsiftp://dst.example:2812/dev/null"]
    assert r.details["tgftp_command"].startswith("/usr/local/bin/tgftp -s")
    assert r.details["transfer_list"].startswith('"gsiftp://src.example/dev/zero"')
    assert r.output.endswith("2000.00 MB/sec inst\n")


@pytest.mark.parametrize(("error", "status"), [
    ('ERROR: "globus-url-copy" failed.', "failed"),
    ('ERROR: "globus-url-copy" timed out.', "timeout"),
    ('ERROR: "globus-url-copy" was interrupted.', "interrupted"),
])
def test_failed_timed_out_and_interrupted_tgftp_logs(error, status):
    text = ("<GSIFTP_TRANSFER_LOG_COMMENT>\n#site A\n</GSIFTP_TRANSFER_LOG_COMMENT>\n<GSIFTP_TRANSFER_COMMAND>\n"
            "globus-url-copy -len 1G ftp://a:2999/dev/zero ftp://b/dev/null\n</GSIFTP_TRANSFER_COMMAND>\n"
            "<GSIFTP_TRANSFER_COMMAND_OUTPUT>\nerror: globus_xio: Unable to connect to a:2999\n"
            "globus_xio: System error in connect: Connection refused\n\n</GSIFTP_TRANSFER_COMMAND_OUTPUT>\n"
            "<GSIFTP_TRANSFER_START>\n2012-02-12_10:00:00\n</GSIFTP_TRANSFER_START>\n<GSIFTP_TRANSFER_END>\n"
            f"2012-02-12_10:00:30\n</GSIFTP_TRANSFER_END>\n<GSIFTP_TRANSFER_ERROR>\n{error}\n</GSIFTP_TRANSFER_ERROR>\n")
    r = record_from_taglog(text, "20120212_10:00h_4711_testgftp.sh.log").record
    assert r.status == status and r.rate_incl_setup_mib_s is None and r.bytes is None and r.exit_code is None
    assert r.error.splitlines()[0] == error
    assert "Unable to connect to a:2999" in r.error
    assert r.comment == "#site A" and r.seconds == 30
    assert r.test_id == "20120212_10_00h_4711_testgftp.sh" and r.repeat == 0


def test_tgftp_04_logs_with_a_note_in_the_rate_tag():
    text = ("<GSIFTP_TRANSFER_LOG_COMMENT>\n</GSIFTP_TRANSFER_LOG_COMMENT>\n<GSIFTP_TRANSFER_COMMAND>\nglobus-url-copy "
            "-dbg -vb gsiftp://a/dev/zero gsiftp://b/dev/null\n</GSIFTP_TRANSFER_COMMAND>\n<GSIFTP_TRANSFER_RATE>\n"
            "INFO: Connection test => no performance calculation made!\n</GSIFTP_TRANSFER_RATE>\n")
    imported = record_from_taglog(text, "conn.log")
    assert imported.record.kind == "connection-test" and imported.record.rate_incl_setup_mib_s is None
    assert imported.notes == ["rate tag holds no rate: INFO: Connection test => no performance calculation made!"]


def test_log_names():
    assert parse_log_name("/x/tests.csv_#012_003.log") == type(parse_log_name("a"))("tests.csv", "test-012", 12, 3)
    assert parse_log_name("mylog_002.log").test == "mylog" and parse_log_name("mylog_002.log").repeat == 2
    assert parse_log_name("weird name!.log").test == "weird_name_"


def test_text_that_is_no_tag_log_is_refused():
    with pytest.raises(TagLogError):
        record_from_taglog("just some text\n<A>\nb\n</A>\n", "x.log")


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from([f"<{t}>" for t in (*STANDARD_TAGS, "GFTPWB_RECORD")] +
                                          [f"</{t}>" for t in (*STANDARD_TAGS, "GFTPWB_RECORD")] +
                                          ["{}", '{"scenario": 1}', "4 GB", "12 MB/s", "2026-01-01_00:00:00",
                                           'ERROR: "globus-url-copy" timed out.', "globus-url-copy -len 1x a b",
                                           "globus-url-copy 'unbalanced"]),
                          st.text(max_size=20)), max_size=25))
def test_fuzzed_tag_logs_import_or_are_refused_cleanly(lines):
    try:
        imported = record_from_taglog("\n".join(lines), "fuzz_#001_000.log")
    except TagLogError:
        return
    assert imported.record.status in STATUSES
    json.loads(imported.record.to_json())


# --- tgftp_log's extraction, checked against the sed commands tgftp_log runs ------------------------


def sed_attribute(text: str, attribute: str) -> str:
    first = subprocess.run(["sed", "-n", "-e", f"/<{attribute}>/,/<\\/{attribute}>/p"], input=text.encode(),
                           capture_output=True, check=True).stdout
    return subprocess.run(["sed", "-e", f"/^<.*{attribute}>$/d"], input=first, capture_output=True,
                          check=True).stdout.decode()


def test_get_attribute_matches_tgftp_log_on_our_logs(monkeypatch):
    monkeypatch.setenv("TZ", "UTC")
    text = format_taglog(make("passed", bytes=4 * GIB, rate_incl_setup_mib_s=1638.39, rate_guc_avg_mib_s=1700.0,
                              seconds=2.5), "gftpwb run s.yaml")
    for attribute in STANDARD_TAGS:
        lines = get_attribute(text, attribute)
        assert "".join(line + "\n" for line in lines) == sed_attribute(text, attribute), attribute
    assert get_attribute(text, "GSIFTP_TRANSFER_RATE") == ["2048 MB/s"]
    assert attribute_is_empty(get_attribute(text, "GSIFTP_TRANSFER_ERROR"))
    assert attribute_is_empty(get_attribute(format_taglog(make("passed", comment="")), "GSIFTP_TRANSFER_LOG_COMMENT"))


LOG_LINE = st.one_of(st.sampled_from(["<GSIFTP_TRANSFER_RATE>", "</GSIFTP_TRANSFER_RATE>", "x<GSIFTP_TRANSFER_RATE>y",
                                      "<a GSIFTP_TRANSFER_RATE>", "<GSIFTP_TRANSFER_RATE_X>", "12 MB/s", ""]),
                     st.text(alphabet="ab <>/_", max_size=8))


@settings(max_examples=100, deadline=None)
@given(st.lists(LOG_LINE, max_size=12), st.booleans())
def test_get_attribute_matches_sed_on_odd_logs(lines, final_newline):
    text = "\n".join(lines) + ("\n" if final_newline and lines else "")
    ours = "".join(line + "\n" for line in get_attribute(text, "GSIFTP_TRANSFER_RATE"))
    theirs = sed_attribute(text, "GSIFTP_TRANSFER_RATE")
    assert ours.rstrip("\n") == theirs.rstrip("\n")


def test_a_tag_name_in_a_comment_never_makes_tgftp_log_read_gftpwbs_tags(monkeypatch):
    """A comment that opens a tag it never closes makes tgftp_log read to the end of the file; gftpwb's tags
    are at the start, and the record's JSON holds no '<', so it reads what it reads in tgftp's own log."""
    monkeypatch.setenv("TZ", "UTC")
    record = make("failed", comment="#see <GSIFTP_TRANSFER_RATE> and <GSIFTP_TRANSFER_LIST>", error="boom")
    text = format_taglog(record)
    tgftp_only = text[text.index("<GSIFTP_TRANSFER_LOG_COMMENT>\n"):]
    for attribute in STANDARD_TAGS:
        assert sed_attribute(text, attribute) == sed_attribute(tgftp_only, attribute), attribute
    assert "<GSIFTP" not in text.split("<GSIFTP_TRANSFER_LOG_COMMENT>\n")[0]
    assert record_from_taglog(text, "x.log").record == record


def test_logs_of_earlier_gftpwb_versions_with_their_tags_at_the_end_still_import():
    record = make("passed", bytes=4 * GIB, rate_incl_setup_mib_s=2.0)
    text = format_taglog(record)
    own, standard = text.split("<GSIFTP_TRANSFER_LOG_COMMENT>\n", 1)
    assert record_from_taglog("<GSIFTP_TRANSFER_LOG_COMMENT>\n" + standard + own, "x.log").record == record


# A log the real tgftp 0.7.0 wrote on the lab: guc moved 1 GiB in about half a second, so its -vb
# average (2048.00 MB/sec) is a few 0.1 s steps, as quantised as a run of gftpwb's with this output.
TGFTP_070_SHORT = """<GSIFTP_TRANSFER_LOG_COMMENT>
#stream mode
</GSIFTP_TRANSFER_LOG_COMMENT>
<TGFTP_COMMAND>
/opt/tgftp/bin/tgftp --source ftp://127.0.0.1:2811/dev/zero --target ftp://127.0.0.1:2811/dev/null --timeout 60 \
--log-filename ex.csv_#000_000.log --log-comment #stream mode -- -vb -len 1G
</TGFTP_COMMAND>
<GSIFTP_TRANSFER_COMMAND>
globus-url-copy -vb -len 1G ftp://127.0.0.1:2811/dev/zero ftp://127.0.0.1:2811/dev/null
</GSIFTP_TRANSFER_COMMAND>
<GSIFTP_TRANSFER_COMMAND_OUTPUT>
Source: ftp://127.0.0.1:2811/dev/
Dest:   ftp://127.0.0.1:2811/dev/
  zero  ->  null

   1073741824 bytes      2048.00 MB/sec avg      2048.00 MB/sec inst

</GSIFTP_TRANSFER_COMMAND_OUTPUT>
<GSIFTP_TRANSFER_START>
2026-11-28_00:26:07
</GSIFTP_TRANSFER_START>
<GSIFTP_TRANSFER_END>
2026-11-28_00:26:08
</GSIFTP_TRANSFER_END>
<GSIFTP_TRANSFER_SIZE>
1 GB
</GSIFTP_TRANSFER_SIZE>
<GSIFTP_TRANSFER_RATE>
1024 MB/s
</GSIFTP_TRANSFER_RATE>
"""


def test_guc_s_average_in_a_tgftp_log_is_quantised_as_in_a_run_of_gftpwbs():
    from gftpwb.kinds.guc.session import GucRun

    short = record_from_taglog(TGFTP_070_SHORT, "ex.csv_#000_000.log").record
    assert short.rate_guc_avg_mib_s == 2048.0 and short.details["guc_avg_quantised"] is True
    run = GucRun()  # the same output, read by a run of gftpwb's
    run.feed("stdout", TGFTP_070_SHORT.split("<GSIFTP_TRANSFER_COMMAND_OUTPUT>\n")[1].split("</")[0].encode())
    assert run.outcome(0, 0.6).details.get("guc_avg_quantised") is True
    long = record_from_taglog(TGFTP_070_PASSED, "tests.csv_#003_001.log").record  # 4 GiB at 1950.5: 2.1 s
    assert "guc_avg_quantised" not in long.details


def test_import_taglogs_then_report_notes_the_quantised_guc_average(tmp_path):
    from support.clihelp import gftpwb

    for repeat in (0, 1):
        (tmp_path / f"ex.csv_#000_00{repeat}.log").write_text(TGFTP_070_SHORT)
    imported = gftpwb("import", "taglogs", *sorted(str(p) for p in tmp_path.glob("*.log")),
                      "--results", str(tmp_path / "r"))
    assert imported.returncode == 0, imported.stderr
    shown = gftpwb("report", str(tmp_path / "r"), env={"COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    assert "guc avg: 2 quantised" in shown.stdout
    data = json.loads(gftpwb("report", str(tmp_path / "r"), "--json").stdout)
    (case,) = data["directories"][0]["cases"]
    guc_avg = next(f for f in case["figures"] if f["key"] == "rate_guc_avg_mib_s")
    assert guc_avg["excluded"] == {"quantised": 2} and guc_avg["stats"] is None


def test_the_executions_of_one_batch_line_are_one_case():
    """tgftp names a line's executions after its log name (n_000.log, n_001.log, ...): imported together they
    are the runs of one case; another line under the same log name is another case; a batch log keeps the
    case its name says."""
    from gftpwb.converters.taglog import number_cases

    def log(name: str, params: str = "-vb -len 1G") -> str:
        return TGFTP_070_SHORT.replace("ex.csv_#000_000.log", name).replace("-vb -len 1G", params)

    names = ["n_000.log", "n_001.log", "n_002.log", "n_003.log", "ex.csv_#004_000.log"]
    logs = [record_from_taglog(log(name, "-vb -p 2 -len 1G" if name == "n_003.log" else "-vb -len 1G"), name,
                               case=index) for index, name in enumerate(names)]
    number_cases(logs)
    assert [(i.record.test_id, i.record.case, i.record.repeat) for i in logs] == [
        ("n", 0, 0), ("n", 0, 1), ("n", 0, 2), ("n", 1, 3), ("test-004", 4, 0)]
