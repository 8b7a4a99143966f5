"""guc run outcomes: statuses, bytes, both rates, and readable errors."""

from gftpwb.core.units import GIB
from gftpwb.kinds.guc.driver import summarize_error
from gftpwb.kinds.guc.session import GucRun

PROGRESS = b"  4294967296 bytes      2048.00 MB/sec avg      2000.00 MB/sec inst\r\n"


def test_passed_run_uses_length_and_wall_time():
    run = GucRun(length_bytes=4 * GIB)
    run.feed("stdout", PROGRESS)
    out = run.outcome(0, 2.5)
    assert out.status == "passed" and out.bytes == 4 * GIB
    assert out.rate_incl_setup_mib_s == 4096 / 2.5
    assert out.rate_guc_avg_mib_s == 2048.0
    assert "2048.00 MB/sec avg" in out.output


def test_without_length_bytes_come_from_guc():
    run = GucRun()
    run.feed("stdout", PROGRESS)
    assert run.outcome(0, 4.0).bytes == 4 * GIB


def test_no_progress_and_no_length_means_no_rate():
    out = GucRun().outcome(0, 1.0)
    assert out.status == "passed" and out.bytes is None and out.rate_incl_setup_mib_s is None


def test_failure_keeps_guc_error_text():
    run = GucRun(length_bytes=1)
    run.feed("stderr", b"error: globus_xio: Unable to connect to 127.0.0.1:2999\n"
                       b"globus_xio: System error in connect: Connection refused\n")
    out = run.outcome(1, 0.1)
    assert out.status == "failed" and out.rate_incl_setup_mib_s is None
    assert out.error.splitlines()[0] == "globus_xio: Unable to connect to 127.0.0.1:2999"


def test_timeout_and_interrupt_and_start_error():
    assert GucRun().outcome(-15, 3.0, timed_out=True, timeout_s=3).error.startswith("timed out after 3s")
    assert GucRun().outcome(-15, 3.0, timed_out=True).status == "timeout"
    assert GucRun().outcome(-15, 3.0, interrupted=True).status == "interrupted"
    out = GucRun().outcome(None, 0.0, start_error="globus-url-copy: command not found")
    assert (out.status, out.error) == ("failed", "globus-url-copy: command not found")


def test_server_reply_codes_are_stripped_and_the_specific_line_comes_first():
    lines = ["error: globus_ftp_client: the server responded with an error",
             "500 500-Command failed. : globus_l_gfs_file_open failed.",
             "500-globus_xio: Unable to open file /nonexist/file",
             "500-globus_xio: System error in open: No such file or directory", "500 End."]
    assert summarize_error(lines).splitlines() == [
        "globus_xio: Unable to open file /nonexist/file",
        "globus_ftp_client: the server responded with an error",
        "Command failed. : globus_l_gfs_file_open failed.",
        "globus_xio: System error in open: No such file or directory"]
