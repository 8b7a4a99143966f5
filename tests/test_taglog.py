"""Tag logs in tgftp 0.7.0's layout: the tags, their order, and the values tgftp_log would print."""

from gftpwb.converters.taglog import format_taglog, parse_tags

from gftpwb.records import ResultRecord
from gftpwb.units import GIB


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
    assert [t for t, _ in tags][:8] == [
        "GSIFTP_TRANSFER_LOG_COMMENT", "TGFTP_COMMAND", "GSIFTP_TRANSFER_COMMAND", "GSIFTP_TRANSFER_COMMAND_OUTPUT",
        "GSIFTP_TRANSFER_START", "GSIFTP_TRANSFER_END", "GSIFTP_TRANSFER_SIZE", "GSIFTP_TRANSFER_RATE"]
    values = dict(tags)
    assert values["GSIFTP_TRANSFER_RATE"] == "1638 MB/s"
    assert values["GSIFTP_TRANSFER_SIZE"] == "4 GB"
    assert values["GSIFTP_TRANSFER_START"] == "2026-11-21_23:59:26"
    assert values["GSIFTP_TRANSFER_COMMAND"] == ("globus-url-copy -vb -p 4 -len 4G ftp://h/dev/zero "
                                                 "ftp://h/dev/null")
    assert values["GSIFTP_TRANSFER_COMMAND_OUTPUT"] == "Source: x\n 1 bytes\r\n"  # guc output + one empty line
    assert values["GSIFTP_TRANSFER_LOG_COMMENT"] == "#lab"
    assert "GSIFTP_TRANSFER_ERROR" not in values
    assert text.startswith("<GSIFTP_TRANSFER_LOG_COMMENT>\n#lab\n</GSIFTP_TRANSFER_LOG_COMMENT>\n<TGFTP_COMMAND>\n")


def test_failed_runs_have_tgftps_error_lines_and_no_rate():
    for status, line in (("failed", 'ERROR: "globus-url-copy" failed.'),
                         ("timeout", 'ERROR: "globus-url-copy" timed out.'),
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
