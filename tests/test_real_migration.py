"""tgftp migration end to end, against the real globus-url-copy and globus-gridftp-server.

A converted batchfile runs with `gftpwb run`, its tag logs are read by the tgftp_log drop-in and by
the sed commands tgftp_log itself runs, its logs come back as records with `gftpwb import taglogs`,
connection tests name the failing step (connect, login, data channel) for real failures, and the
drop-in `tgftp` behaves like tgftp 0.7.0 on screen, in its log and in its exit codes.
"""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.clihelp import gftpwb
from support.polling import eventually
from support.processes import guc_processes
from support.results import records

from gftpwb.converters.taglog import STANDARD_TAGS, epoch_seconds, get_attribute, parse_tags
from gftpwb.shell.lab.gridftp import GridftpLab, free_port
from gftpwb.tgftp.model import rate_text

pytestmark = pytest.mark.real
BIN = Path(sys.executable).parent


def tgftp_log_by_sed(path: Path, attribute: str) -> str:
    """What tgftp_log prints: sed -n '/<A>/,/<\\/A>/p' FILE | sed '/^<.*A>$/d'."""
    first = subprocess.run(["sed", "-n", "-e", f"/<{attribute}>/,/<\\/{attribute}>/p", str(path)],
                           capture_output=True, check=True).stdout
    return subprocess.run(["sed", "-e", f"/^<.*{attribute}>$/d"], input=first, capture_output=True,
                          check=True).stdout.decode()


def test_a_converted_batchfile_runs_end_to_end(tmp_path, gridftp):
    url = gridftp.url
    batch = tmp_path / "site.csv"
    batch.write_text("\n".join([
        "#%tgftp%v0.6.1",
        "#  source;target;gsiftp-params;connection-test;timeout;log-filename;log-comment;pre-command;post-command;"
        "execs",
        "# memory to memory, two streams, with the congestion control in the comment",
        f'{url}/dev/zero;{url}/dev/null;-vb -p 2 -len 256M;no;60;;"cat cc.txt";'
        f'"sysctl -n net.ipv4.tcp_congestion_control > cc.txt";"touch post-ran";2',
        "# is the server there at all?",
        f"{url}/dev/zero;{url}/dev/null;;yes;30;conn.log;\"#connection test\";;;",
        f"{url}/dev/zero;file:///dev/null;-len 64M;no;60;;\"#to a local file\";;;",
    ]) + "\n")
    results = tmp_path / "r"
    out = gftpwb("run", str(batch), "--results", str(results), cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert f"{batch}:6:" in out.stderr and "bug B1: the connection-test flag of line 6 stuck" in out.stderr
    recs = records(results)
    assert [(r["run_id"], r["kind"], r["status"]) for r in recs] == [
        ("test-000/0", "guc", "passed"), ("test-000/1", "guc", "passed"),
        ("test-001/0", "connection-test", "passed"), ("test-002/0", "guc", "passed")]
    first = recs[0]
    assert first["bytes"] == 256 << 20 and first["rate_incl_setup_mib_s"] > 10
    congestion = Path("/proc/sys/net/ipv4/tcp_congestion_control").read_text().strip()
    assert first["comment"] == congestion  # the pre-command wrote it, the comment command read it
    assert first["details"]["commands"]["pre"]["exit_code"] == 0 and (tmp_path / "post-ran").exists()
    assert recs[2]["details"]["connection_test"]["failed_step"] is None
    # tag logs under tgftp's names, readable by tgftp_log's own sed commands and by the drop-in
    names = sorted(p.name for p in results.glob("*.log"))
    assert names == ["conn_000.log", "site.csv_#000_000.log", "site.csv_#000_001.log", "site.csv_#002_000.log"]
    log = results / "site.csv_#000_001.log"
    # tgftp's own rate: the size over the whole seconds between START and END
    rate = f"{rate_text('256M', *(epoch_seconds(recs[1][k]) for k in ('started_at', 'ended_at')))} MB/s\n"
    assert tgftp_log_by_sed(log, "GSIFTP_TRANSFER_RATE") == rate
    for attribute in STANDARD_TAGS:
        assert "".join(f"{line}\n" for line in get_attribute(log.read_bytes().decode(), attribute)) == \
            tgftp_log_by_sed(log, attribute)
    drop_in = subprocess.run([str(BIN / "tgftp_log"), "-a", "GSIFTP_TRANSFER_RATE", "-f", str(log)],
                             capture_output=True, text=True)
    assert (drop_in.returncode, drop_in.stdout) == (0, rate)
    conn = dict(parse_tags((results / "conn_000.log").read_text()))
    assert "debug: operation complete" in conn["GSIFTP_TRANSFER_COMMAND_OUTPUT"]
    assert "GSIFTP_TRANSFER_RATE" not in conn and conn["GSIFTP_TRANSFER_LOG_COMMENT"] == "#connection test"

    # old logs back into records: exactly the journal's, in a directory of their own
    out = gftpwb("import", "taglogs", *map(str, sorted(results.glob("*.log"))), "--results", str(tmp_path / "imp"))
    assert out.returncode == 0, out.stderr
    back = sorted(records(tmp_path / "imp"), key=lambda r: r["run_id"])
    assert all(r["details"].pop("imported_from").startswith(str(results)) for r in back)
    assert all(r["details"].pop("tgftp_command").startswith(("gftpwb run", "tgftp")) for r in back)
    assert back == sorted(recs, key=lambda r: r["run_id"])


def test_connection_tests_name_the_failing_step(tmp_path, gridftp, monkeypatch):
    # A second server whose only data port is taken: its PASV fails, so the data channel step fails.
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        monkeypatch.setenv("GLOBUS_TCP_PORT_RANGE", f"{busy.getsockname()[1]},{busy.getsockname()[1]}")
        blocked = GridftpLab(str(tmp_path / "blocked-lab"))
        status = blocked.up(port=free_port())
        monkeypatch.delenv("GLOBUS_TCP_PORT_RANGE")
        try:
            dead = f"ftp://127.0.0.1:{free_port()}"
            scenario = tmp_path / "ct.yaml"
            scenario.write_text(f"""\
version: 1
name: ct
tests:
  - {{id: ok, kind: connection-test, source: {gridftp.url}/dev/zero, target: {gridftp.url}/dev/null}}
  - {{id: connect, kind: connection-test, source: {dead}/dev/zero, target: {gridftp.url}/dev/null}}
  - {{id: login, kind: connection-test, source: "ftp://bob:secret@127.0.0.1:{gridftp.port}/dev/zero",
      target: file:///dev/null}}
  - {{id: data, kind: connection-test, source: {gridftp.url}/dev/zero, target: {status.url}/dev/null}}
""")
            results = tmp_path / "r"
            out = gftpwb("run", str(scenario), "--results", str(results))
        finally:
            blocked.down()
    assert out.returncode == 1
    steps = {r["test_id"]: (r["status"], r["details"]["connection_test"]["failed_step"]) for r in records(results)}
    assert steps == {"ok": ("passed", None), "connect": ("failed", "connect"), "login": ("failed", "login"),
                     "data": ("failed", "data channel")}
    by_id = {r["test_id"]: r for r in records(results)}
    assert "Connection refused" in by_id["connect"]["error"]
    assert "Login incorrect" in by_id["login"]["error"] and "secret" not in by_id["login"]["error"]
    assert "globus_ftp_control_local_pasv failed" in by_id["data"]["error"]
    assert all(r["argv"][1:5] == ["-dbg", "-vb", "-len", "1"] for r in records(results))
    assert "connection test failed at login" in out.stdout


def test_the_drop_in_tgftp_single_test(tmp_path, gridftp):
    out = subprocess.run([str(BIN / "tgftp"), "-s", f"{gridftp.url}/dev/zero", "-t", f"{gridftp.url}/dev/null",
                          "--log-comment", "#drop-in", "--post-command", "touch done", "--", "-vb", "-p", "4", "-len",
                          "512M"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    (log,) = [p for p in tmp_path.iterdir() if p.name.endswith("_testgftp.sh.log")]
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Source: ftp://127.0.0.1:")
    assert lines[-1] == f'tgftp: please see "{log.name}" for details.'
    rate_line = lines[-3]
    assert rate_line.endswith(" MB/s") and int(rate_line.split()[0]) > 10
    assert "#drop-in" in lines  # tgftp's grep echoed a text comment
    tags = dict(parse_tags(log.read_text()))
    assert tags["GSIFTP_TRANSFER_RATE"] == rate_line and tags["GSIFTP_TRANSFER_SIZE"] == "512 MB"
    assert tags["GSIFTP_TRANSFER_LOG_COMMENT"] == "#drop-in"
    assert tags["GSIFTP_TRANSFER_COMMAND"].startswith("globus-url-copy -vb -p 4 -len 512M ftp://127.0.0.1:")
    assert tags["TGFTP_COMMAND"].split()[1:3] == ["-s", f"{gridftp.url}/dev/zero"]
    assert (tmp_path / "done").exists()


def test_the_drop_in_tgftp_exit_codes_for_timeout_failure_and_connection_test(tmp_path, gridftp):
    started = time.monotonic()
    out = gftpwb("tgftp", "-s", f"{gridftp.url}/dev/zero", "-t", f"{gridftp.url}/dev/null", "-k", "2",
                 "--log-filename", "slow.log", "--", "-p", "2", cwd=tmp_path)
    # tgftp 0.7.0 reported a timeout as a failure (exit 1, "failed."); gftpwb's own tag says what happened
    assert out.returncode == 1 and time.monotonic() - started < 30
    assert 'tgftp: "globus-url-copy" failed. Please see "slow.log" for details.' in out.stderr
    slow = (tmp_path / "slow.log").read_text()
    assert get_attribute(slow, "GSIFTP_TRANSFER_ERROR") == ['ERROR: "globus-url-copy" failed.']
    assert get_attribute(slow, "GFTPWB_STATUS") == ["timeout"]

    out = gftpwb("tgftp", "-s", f"ftp://127.0.0.1:{free_port()}/dev/zero", "-t", f"{gridftp.url}/dev/null",
                 "--log-filename", "refused.log", "--", "-len", "1M", cwd=tmp_path)
    assert out.returncode == 1 and "Connection refused" in out.stdout
    assert 'tgftp: "globus-url-copy" failed. Please see "refused.log" for details.' in out.stderr

    out = gftpwb("tgftp", "-c", "-s", f"{gridftp.url}/dev/zero", "-t", f"{gridftp.url}/dev/null",
                 "--log-filename", "conn.log", "--", "-p", "64", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[-3:] == ["tgftp: connection test => no performance calculation done!", "",
                                            'tgftp: please see "conn.log" for details.']
    assert get_attribute((tmp_path / "conn.log").read_text(), "GSIFTP_TRANSFER_COMMAND")[0].startswith(
        "globus-url-copy -dbg -vb -len 1 ftp://")  # guc parameters ignored, as tgftp does


def test_the_drop_in_tgftp_batch_mode(tmp_path, gridftp):
    batch = tmp_path / "b.csv"
    batch.write_text(f"#%tgftp%v0.7.0\n{gridftp.url}/dev/zero;{gridftp.url}/dev/null;-len 64M;no;60;;;;;2\n"
                     f"ftp://127.0.0.1:{free_port()}/dev/zero;{gridftp.url}/dev/null;-len 1M;no;60;;;;;\n")
    out = subprocess.run([str(BIN / "tgftp"), "-f", "b.csv"], capture_output=True, text=True, cwd=tmp_path,
                         timeout=180)
    assert out.returncode == 0  # tgftp's batch mode exits 0 even when tests fail
    lines = out.stdout.splitlines()
    assert [line.strip(".") for line in lines if "Test #" in line or "test #" in line] == [
        " Test #0_0 was successful!", " Test #0_1 was successful!", "tgftp: test #0 was successful!",
        " Test #1_0 failed!", "tgftp: test #1 failed (for at least one run)!"]
    # the command line tgftp generated, with the drop-in as $0
    assert lines[0] == (f"{BIN / 'tgftp'} --source {gridftp.url}/dev/zero --target {gridftp.url}/dev/null --timeout 60 "
                        "--log-filename b.csv_#000_000.log    -- -len 64M")
    assert sorted(p.name for p in tmp_path.glob("*.log")) == ["b.csv_#000_000.log", "b.csv_#000_001.log",
                                                              "b.csv_#001_000.log"]
    before = (tmp_path / "b.csv_#000_000.log").read_text()
    again = subprocess.run([str(BIN / "tgftp"), "-f", "b.csv"], capture_output=True, text=True, cwd=tmp_path)
    # as tgftp: every child refuses to overwrite its log, so every test fails; batch mode still exits 0
    assert again.returncode == 0 and again.stdout.count("failed!") == 3
    assert (tmp_path / "b.csv_#000_000.log").read_text() == before


@pytest.mark.parametrize(("sig", "code", "cause"), [(signal.SIGINT, 130, "interrupted by the user (Ctrl-C)"),
                                                    (signal.SIGTERM, -signal.SIGTERM, "interrupted by SIGTERM"),
                                                    (signal.SIGHUP, -signal.SIGHUP, "interrupted by SIGHUP")])
def test_a_signal_on_the_drop_in_records_an_interrupted_run_and_ends_like_tgftp(tmp_path, gridftp, sig, code, cause):
    """Ctrl-C as tgftp (130, `was interrupted.`); SIGTERM and SIGHUP killed tgftp (with guc left running
    and no log): the drop-in stops guc, writes the log naming the signal, then dies of the same signal
    (tests/compat/test_compat_signals.py compares it with the real tgftp)."""
    proc = subprocess.Popen([str(BIN / "tgftp"), "-s", f"{gridftp.url}/dev/zero", "-t", "file:///dev/null",
                             "--log-filename", "int.log", "--", "-vb"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path)
    for line in proc.stdout:
        if " bytes " in line:  # guc's first progress line: the transfer is in flight
            break
    proc.send_signal(sig)
    assert proc.wait(timeout=30) == code
    assert 'tgftp: "globus-url-copy" was interrupted.' in proc.stderr.read()
    log = (tmp_path / "int.log").read_text()
    assert get_attribute(log, "GSIFTP_TRANSFER_ERROR") == ['ERROR: "globus-url-copy" was interrupted.']
    assert get_attribute(log, "GFTPWB_STATUS") == ["interrupted"]
    assert get_attribute(log, "GFTPWB_ERROR_DETAIL")[0].startswith(cause)
    out = subprocess.run(["pgrep", "-f", f"globus-url-copy.*{gridftp.port}/dev/zero file:///dev/null"],
                         capture_output=True, text=True)
    assert out.stdout.strip() == ""


def test_sigterm_stops_a_batch_after_the_run_in_flight_and_dies_of_it(tmp_path, gridftp):
    """The batch stops at the execution SIGTERM interrupted (as at Ctrl-C): its log says so, nothing after runs."""
    batch = tmp_path / "b.csv"
    batch.write_text(f"#%tgftp%v0.7.0\n{gridftp.url}/dev/zero;file:///dev/null;-vb;no;60;;;;;2\n"
                     f"{gridftp.url}/dev/zero;file:///dev/null;-len 1M;no;60;;;;;\n")
    proc = subprocess.Popen([str(BIN / "tgftp"), "-f", "b.csv"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=tmp_path)
    first = proc.stdout.readline()  # the first execution's command line, printed as it starts
    assert "--log-filename b.csv_#000_000.log" in first
    guc = f"{gridftp.port}/dev/zero file:///dev/null"
    eventually(lambda: guc_processes(guc), "guc running (an endless transfer: no -len)")
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == -signal.SIGTERM  # as tgftp's batch mode (a shell shows 143)
    out = first + proc.stdout.read()
    assert " Test #0_0 failed!" in out and "Test #0_1" not in out and "test #1" not in out
    assert [p.name for p in tmp_path.glob("*.log")] == ["b.csv_#000_000.log"]
    log = (tmp_path / "b.csv_#000_000.log").read_text()
    assert get_attribute(log, "GFTPWB_ERROR_DETAIL")[0].startswith("interrupted by SIGTERM")


def _dropin_with_password(tmp_path: Path, url: str, name: str,
                          env: dict[str, str]) -> tuple[subprocess.CompletedProcess, str]:
    """The drop-in on ``url`` with a password in it (the lab lets anonymous in with any password)."""
    with_password = url.replace("ftp://", "ftp://anonymous:s3cr3t@", 1)
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GFTPWB_")} | env
    proc = subprocess.run([str(BIN / "tgftp"), "-s", f"{with_password}/dev/zero", "-t",
                           f"{with_password}/dev/null", "--log-filename", name, "--", "-vb", "-len", "1M"],
                          capture_output=True, text=True, cwd=tmp_path, env=environ, timeout=120)
    return proc, (tmp_path / name).read_text()


@pytest.mark.parametrize("refused", [False, True], ids=["passed", "refused"])
def test_passwords_in_urls_are_masked_in_drop_in_logs_unless_faithful_logs_are_asked_for(tmp_path, gridftp, refused):
    """By default the drop-in's tag log and screen have ``anonymous:***@`` wherever tgftp wrote
    the password (also when guc failed: tgftp wrote its log then too); GFTPWB_TGFTP_FAITHFUL_LOGS=1 gives
    tgftp's log and screen, password and all; a value that is not yes/no is warned about and masks.
    tests/compat compares the guc argv (the real URL), both logs and the screens with the real tgftp."""
    url = f"ftp://127.0.0.1:{free_port()}" if refused else gridftp.url
    masked, log = _dropin_with_password(tmp_path, url, "masked.log", {})
    assert masked.returncode == (1 if refused else 0), masked.stderr
    for tag in ("TGFTP_COMMAND", "GSIFTP_TRANSFER_COMMAND"):
        assert "ftp://anonymous:***@127.0.0.1:" in get_attribute(log, tag)[0]
    assert "s3cr3t" not in log
    if not refused:  # guc logged in with the URL it was given: its -vb banner shows the user
        assert "Source: ftp://anonymous:***@" in log
        assert "Source: ftp://anonymous:***@" in masked.stdout  # guc's own output on the screen: masked too
        assert "s3cr3t" not in masked.stdout + masked.stderr
    faithful, log = _dropin_with_password(tmp_path, url, "faithful.log", {"GFTPWB_TGFTP_FAITHFUL_LOGS": "1"})
    assert faithful.returncode == masked.returncode
    for tag in ("TGFTP_COMMAND", "GSIFTP_TRANSFER_COMMAND"):
        assert "ftp://anonymous:s3cr3t@127.0.0.1:" in get_attribute(log, tag)[0]
    assert "***" not in log
    if not refused:
        assert "Source: ftp://anonymous:s3cr3t@" in faithful.stdout  # tgftp's screen, password and all
    odd, log = _dropin_with_password(tmp_path, url, "odd.log", {"GFTPWB_TGFTP_FAITHFUL_LOGS": "please"})
    assert "GFTPWB_TGFTP_FAITHFUL_LOGS='please' is neither 1 nor 0" in odd.stderr
    assert "s3cr3t" not in log
