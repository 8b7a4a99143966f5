"""End-to-end against the real globus-gridftp-server and globus-url-copy, started by the project's lab.

These never skip: `make test` installs the packages, and a missing binary is a failure.
"""

import json
import signal
import textwrap
import time

import pytest
from support.clihelp import gftpwb, popen
from support.polling import eventually
from support.processes import guc_processes
from support.results import records

from gftpwb.converters.taglog import epoch_seconds, parse_tags
from gftpwb.shell.lab.gridftp import free_port
from gftpwb.tgftp.model import rate_text

pytestmark = pytest.mark.real


def scenario(tmp_path, body: str, name: str = "real") -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(textwrap.dedent(f"""\
        version: 1
        name: {name}
        tests:
        """) + textwrap.dedent(body))
    return str(path)


def test_memory_to_memory_transfers_pass_with_both_rates(tmp_path, gridftp):
    path = scenario(tmp_path, f"""\
        - id: mem
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
          options: {{length: 1G}}
          matrix: {{parallel: [1, 4]}}
          timeout: 60s
    """)
    results = tmp_path / "r"
    out = gftpwb("run", path, "--results", str(results))
    assert out.returncode == 0, out.stdout + out.stderr
    recs = records(results)
    assert [r["status"] for r in recs] == ["passed", "passed"]
    for r in recs:
        assert r["bytes"] == 1 << 30
        assert r["rate_incl_setup_mib_s"] == pytest.approx(1024 / r["seconds"])
        assert r["rate_incl_setup_mib_s"] > 50
        assert r["exit_code"] == 0
    tags = dict(parse_tags((results / "real_#001_000.log").read_text()))
    # tgftp's rate: the -len size over the whole seconds between the START and END tags
    seconds = [epoch_seconds(recs[1][key]) for key in ("started_at", "ended_at")]
    assert tags["GSIFTP_TRANSFER_RATE"] == f"{rate_text('1G', *seconds)} MB/s"
    assert tags["GSIFTP_TRANSFER_SIZE"] == "1 GB"
    assert tags["GSIFTP_TRANSFER_COMMAND"].startswith("globus-url-copy -vb -p 4 -len 1G ftp://127.0.0.1:")
    assert "Source:" in tags["GSIFTP_TRANSFER_COMMAND_OUTPUT"]


def test_progress_is_shown_live_in_plain_mode(tmp_path, gridftp):
    # A client-side transfer (to file:///dev/null): guc reports every 2 s, so a ~4 s run shows a line.
    path = scenario(tmp_path, f"""\
        - id: live
          kind: guc
          source: {gridftp.url}/dev/zero
          target: file:///dev/null
          options: {{length: 12G}}
          timeout: 120s
    """)
    proc = popen("run", path, "--results", str(tmp_path / "r"), "--progress", "never")
    lines, seen_at, finished_at = [], None, None
    t0 = time.monotonic()
    for line in proc.stdout:
        lines.append(line)
        if " bytes " in line and "MiB/s avg" in line and seen_at is None:
            seen_at = time.monotonic() - t0
        if line.startswith("ok   live/0"):
            finished_at = time.monotonic() - t0
    assert proc.wait() == 0, "".join(lines) + proc.stderr.read()
    assert seen_at is not None, "no live progress line: " + "".join(lines)
    assert seen_at < finished_at - 0.5, "progress arrived only at the end"
    # the same samples are kept beside the record, and the report reads them
    samples = json.loads((tmp_path / "r" / "samples.jsonl").read_text())
    series = samples["series"][""]
    assert samples["run_id"] == "live/0" and len(series["t"]) >= 1 and series["b"] == sorted(series["b"])
    report = json.loads(gftpwb("report", str(tmp_path / "r"), "--json").stdout)
    (run,) = report["directories"][0]["cases"][0]["runs"]
    assert run["facts"] == {"mode": "stream", "live_progress": True, "size_from": "-len"}  # its size is -len's
    assert run["samples"]["points"] == len(series["t"])


def test_refused_port_is_a_clear_failure_in_record_and_tag_log(tmp_path, gridftp):
    dead = f"ftp://127.0.0.1:{free_port()}"
    path = scenario(tmp_path, f"""\
        - {{id: refused, kind: guc, source: {dead}/dev/zero, target: {gridftp.url}/dev/null, options: {{length: 1M}}}}
    """)
    results = tmp_path / "r"
    out = gftpwb("run", path, "--results", str(results))
    assert out.returncode == 1
    (rec,) = records(results)
    assert rec["status"] == "failed" and rec["exit_code"] == 1
    assert "Unable to connect" in rec["error"] and "Connection refused" in rec["error"]
    tags = dict(parse_tags((results / "real_#000_000.log").read_text()))
    assert tags["GSIFTP_TRANSFER_ERROR"] == 'ERROR: "globus-url-copy" failed.'
    assert "Connection refused" in tags["GSIFTP_TRANSFER_COMMAND_OUTPUT"]
    assert "Connection refused" in out.stdout


def test_missing_file(tmp_path, gridftp):
    path = scenario(tmp_path, f"""\
        - {{id: missing, kind: guc, source: {gridftp.url}/nonexistent/file, target: file:///dev/null}}
    """)
    results = tmp_path / "r"
    assert gftpwb("run", path, "--results", str(results)).returncode == 1
    (rec,) = records(results)
    assert rec["status"] == "failed"
    assert rec["error"].splitlines()[0] == "globus_xio: Unable to open file /nonexistent/file"
    assert "No such file or directory" in rec["error"]


def test_timeout_kills_guc_and_leaves_nothing_behind(tmp_path, gridftp):
    path = scenario(tmp_path, f"""\
        - id: endless
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
          options: {{parallel: 2}}
          timeout: 2s
    """)
    results = tmp_path / "r"
    started = time.monotonic()
    out = gftpwb("run", path, "--results", str(results))
    assert out.returncode == 1 and time.monotonic() - started < 20
    (rec,) = records(results)
    assert rec["status"] == "timeout" and 2.0 <= rec["seconds"] < 6
    assert rec["error"].startswith("timed out after 2s")
    tags = dict(parse_tags((results / "real_#000_000.log").read_text()))
    # tgftp 0.7.0 logged a timeout as "failed." in its standard tag; gftpwb's own tag says timeout
    assert tags["GSIFTP_TRANSFER_ERROR"] == 'ERROR: "globus-url-copy" failed.' and tags["GFTPWB_STATUS"] == "timeout"
    eventually(lambda: guc_processes(str(gridftp.port)) == [], "guc gone after the timeout",
               detail=lambda: guc_processes(str(gridftp.port)))


def test_ctrl_c_records_the_run_in_flight_then_resume_finishes(tmp_path, gridftp):
    path = scenario(tmp_path, f"""\
        - id: big
          kind: guc
          source: {gridftp.url}/dev/zero
          target: file:///dev/null
          options: {{length: 8G}}
          timeout: 120s
        - id: small
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
          options: {{length: 64M}}
          repeat: 2
    """)
    results = tmp_path / "r"
    proc = popen("run", path, "--results", str(results), "--progress", "never")
    for line in proc.stdout:
        if line.startswith("[1/3] big/0"):
            break
    eventually(lambda: guc_processes(str(gridftp.port)), "big/0's guc running")  # the run in flight
    proc.send_signal(signal.SIGINT)
    rest = proc.stdout.read()
    assert proc.wait(timeout=30) == 130, rest + proc.stderr.read()
    assert "Traceback" not in proc.stderr.read()
    assert [(r["run_id"], r["status"]) for r in records(results)] == [("big/0", "interrupted")]
    assert guc_processes(str(gridftp.port)) == []
    tags = dict(parse_tags((results / "real_#000_000.log").read_text()))
    assert tags["GSIFTP_TRANSFER_ERROR"] == 'ERROR: "globus-url-copy" was interrupted.'

    out = gftpwb("run", path, "--resume", str(results))
    assert out.returncode == 0, out.stdout + out.stderr
    final = {r["run_id"]: r["status"] for r in records(results)}
    assert final == {"big/0": "passed", "small/0": "passed", "small/1": "passed"}
    assert len(records(results)) == 4  # the interrupted record stays in the journal, superseded


def test_lab_commands(tmp_path):
    state = str(tmp_path / "lab")
    port = free_port()
    up = gftpwb("lab", "up", "--state-dir", state, "--port", str(port))
    try:
        assert up.returncode == 0, up.stderr
        assert up.stdout.startswith(f"GridFTP server started: ftp://127.0.0.1:{port} (pid ")
        again = gftpwb("lab", "up", "--state-dir", state, "--port", str(port))
        assert again.stdout.startswith("GridFTP server already running")
        status = json.loads(gftpwb("lab", "status", "--state-dir", state, "--json").stdout)["gridftp"]
        assert status["running"] is True and status["port"] == port
        other = gftpwb("lab", "up", "--state-dir", str(tmp_path / "lab2"), "--port", str(port))
        assert other.returncode == 4 and "already in use" in other.stderr
    finally:
        down = gftpwb("lab", "down", "--state-dir", state)
    assert down.stdout.strip() == "GridFTP server stopped"
    assert json.loads(gftpwb("lab", "status", "--state-dir", state, "--json").stdout)["gridftp"]["running"] is False
    assert gftpwb("lab", "down", "--state-dir", state).stdout.strip() == "GridFTP server was not running"
