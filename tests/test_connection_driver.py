"""The connection-test driver reads guc's -dbg conversation and names the step that failed.

The inputs under tests/data/guc_dbg are stderr captured from the real globus-url-copy 10.12 against
the lab's globus-gridftp-server 13.24 (a refused port, a refused login, a PASV that cannot bind
because the server's GLOBUS_TCP_PORT_RANGE is taken, a passing third-party test).
"""

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gftpwb.kinds.connection_test.driver import ConnectionTestRun, DebugConversation, build_connection_argv, redact

DATA = Path(__file__).parent / "data" / "guc_dbg"


def run_over(name: str, exit_code: int, chunk: int = 65536, **kw):
    session = ConnectionTestRun()
    data = (DATA / name).read_bytes()
    for i in range(0, len(data), chunk):
        session.feed("stderr", data[i:i + chunk])
    session.close()
    return session, session.outcome(exit_code, 0.25, **kw)


def test_argv_moves_one_byte_with_the_debug_conversation():
    assert build_connection_argv("ftp://a/dev/zero", "ftp://b/dev/null", ("-nodcau",)) == (
        "globus-url-copy", "-dbg", "-vb", "-len", "1", "-nodcau", "ftp://a/dev/zero", "ftp://b/dev/null")


def test_passing_third_party_test_has_every_step_ok_and_no_rate():
    session, outcome = run_over("third_party_ok.stderr", 0)
    assert outcome.status == "passed" and outcome.bytes == 1
    assert outcome.rate_incl_setup_mib_s is None and outcome.rate_guc_avg_mib_s is None
    report = session.details()
    assert report["failed_step"] is None
    assert {(s["url"].rsplit("/", 1)[-1], s["step"], s["status"]) for s in report["steps"]} == {
        (end, step, "ok") for end in ("null", "zero") for step in ("connect", "login", "data channel")}


@pytest.mark.parametrize(("name", "step", "url_end", "detail"), [
    ("refused.stderr", "connect", "28399/dev/zero", "Unable to connect to 127.0.0.1:28399"),
    ("login_refused.stderr", "login", "28311/dev/zero", "Login incorrect."),
    ("pasv_refused_third_party.stderr", "data channel", "28312/dev/null", "globus_ftp_control_local_pasv failed"),
    ("pasv_refused_client.stderr", "data channel", "28312/dev/zero", "Address already in use"),
])
def test_failures_name_their_step(name, step, url_end, detail):
    session, outcome = run_over(name, 1)
    assert outcome.status == "failed"
    report = session.details()
    assert report["failed_step"] == step
    assert report["failed_url"].endswith(url_end)
    assert detail in report["detail"]
    assert outcome.error.startswith(f"connection test failed at {step} (")
    assert len(outcome.error.splitlines()) == len(set(outcome.error.splitlines()))  # no line said twice


def test_passwords_never_reach_the_report():
    session, outcome = run_over("login_refused.stderr", 1)
    assert "secret" not in outcome.error and "secret" not in str(session.details())
    assert redact("ftp://bob:secret@host:1/x") == "ftp://bob:***@host:1/x"
    assert redact("gsiftp://host/x") == "gsiftp://host/x"


def test_a_silent_timeout_blames_the_step_in_flight():
    conversation = DebugConversation()
    for line in ("debug: starting to transfer ftp://a/x to ftp://b/y", "debug: connecting to ftp://b/y"):
        conversation.feed_line(line)
    report = conversation.report(passed=False, timed_out=True)
    assert (report.failed_step, report.failed_url, report.detail) == ("connect", "ftp://b/y",
                                                                      "no answer before the timeout")


def test_a_data_channel_that_never_completes_is_the_data_channel_step():
    session = ConnectionTestRun()
    text = "\n".join([
        "debug: connecting to ftp://h/x", "debug: response from ftp://h/x:", "220 ready.", "",
        "debug: authenticating with ftp://h/x", "debug: response from ftp://h/x:", "230 ok.", "",
        "debug: sending command to ftp://h/x:", "PASV", "", "debug: response from ftp://h/x:",
        "227 Entering Passive Mode (127,0,0,1,1,2)", "", "debug: sending command to ftp://h/x:", "RETR x", ""])
    session.feed("stderr", text.encode())
    session.close()
    outcome = session.outcome(None, 30.0, timed_out=True, timeout_s=30)
    assert outcome.status == "timeout"
    assert outcome.error.startswith("connection test failed at data channel (ftp://h/x): no answer before the timeout")


def test_recovered_pasv_keeps_the_test_passed_and_says_so():
    conversation = DebugConversation()
    for line in ["debug: connecting to ftp://h/x", "debug: response from ftp://h/x:", "220 ok", "",
                 "debug: authenticating with ftp://h/x", "debug: response from ftp://h/x:", "230 ok", "",
                 "debug: sending command to ftp://h/x:", "PASV", "debug: response from ftp://h/x:",
                 "500-Command failed.", "500 End.", "", "debug: sending command to ftp://h/x:", "PORT 1,2,3,4,5,6",
                 "debug: response from ftp://h/x:", "226 Transfer Complete.", ""]:
        conversation.feed_line(line)
    report = conversation.report(passed=True)
    assert report.failed_step is None
    data = next(s for s in report.steps if s.step == "data channel")
    assert data.status == "ok" and data.detail == "recovered after: Command failed."


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=400))
def test_chunking_does_not_change_the_verdict(chunk):
    _, whole = run_over("pasv_refused_third_party.stderr", 1)
    _, pieces = run_over("pasv_refused_third_party.stderr", 1, chunk=chunk)
    assert pieces == whole


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=80), max_size=30), st.booleans(), st.booleans())
def test_any_stderr_gives_a_verdict_without_raising(lines, passed, timed_out):
    session = ConnectionTestRun()
    session.feed("stderr", "\n".join(lines).encode("utf-8", errors="replace"))
    session.close()
    outcome = session.outcome(0 if passed else 1, 1.0, timed_out=timed_out and not passed)
    assert outcome.status in ("passed", "failed", "timeout")
    if outcome.status != "passed":
        assert outcome.error.startswith("connection test failed at ")
