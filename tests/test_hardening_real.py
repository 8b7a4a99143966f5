"""Kill points and orphans against the real lab: real guc and GridFTP server, real signals,
a real terminal hang-up, ``kill -9``; after each, ``pgrep`` (and /proc) in the root namespace and in
every namespace host finds nothing gftpwb started."""

from __future__ import annotations

import json
import os
import pty
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.clihelp import popen
from support.instants import all_ended_before, instants, signal_at
from support.labhosts import hosts_yaml, netns_of, processes_in, started_by_gftpwb
from support.load import busy_cores
from support.polling import eventually
from support.processes import pgrep
from support.results import records

pytestmark = pytest.mark.real
GFTPWB = [sys.executable, "-m", "gftpwb"]


def write(tmp_path: Path, body: str, name: str = "hard", prefix: str = "") -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"version: 1\nname: {name}\n{prefix}tests:\n" + textwrap.dedent(body))
    return str(path)


def ten_runs(tmp_path: Path, gridftp) -> str:
    return write(tmp_path, f"""\
        - id: t
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
          options: {{length: 16M}}
          repeat: 10
          timeout: 30s
    """, name="ten")


@pytest.mark.parametrize(("sig", "code", "after"), [(signal.SIGINT, 130, 2), (signal.SIGTERM, 143, 5),
                                                    (signal.SIGINT, 130, 7)])
def test_a_signal_just_after_a_record_is_journalled_ends_cleanly(tmp_path, gridftp, sig, code, after):
    # The console prints a run's line right after its record is on disk: the signal arrives while the
    # next run is being started (before the fix: CancelledError out of the executor, exit 1, no summary).
    results = tmp_path / "r"
    proc = popen("run", ten_runs(tmp_path, gridftp), "--results", str(results), "--progress", "never")
    seen = 0
    for line in proc.stdout:
        if line.startswith("ok "):
            seen += 1
            if seen == after:
                proc.send_signal(sig)
                break
    rest, err = proc.communicate(timeout=60)
    assert proc.returncode == code, rest + err
    assert "Traceback" not in err and "CancelledError" not in err
    assert "of 10 planned" in rest  # the summary
    recs = records(results)
    assert [r["status"] for r in recs][:after] == ["passed"] * after
    for r in recs[after:]:  # at most the run in flight
        assert r["status"] == "interrupted" and r["details"]["interrupted_by"] == sig.name
        assert r["error"].startswith("interrupted by the user (Ctrl-C)" if sig == signal.SIGINT
                                     else "interrupted by SIGTERM")
    assert len(recs) <= after + 1
    assert pgrep(f"globus-url-copy.*{gridftp.port}") == []


# Runs what the console script runs (`from gftpwb.cli.main import main; sys.exit(main())`), saying on
# stderr when gftpwb's own code has begun. main()'s first act is to take Ctrl-C over
# (gftpwb.shell.interrupts.install); the stand-in does it before the marker, so that the sweep starts
# where gftpwb does and not in the few instructions of this stand-in (main's own install then changes
# nothing). A Ctrl-C before, in Python's own start-up, is outside any package's reach.
STARTED = ("import sys; from gftpwb.shell import interrupts; interrupts.install(); "
           "from gftpwb.cli.main import main; sys.argv[0] = 'gftpwb'; "
           "sys.stderr.write('python started\\n'); sys.stderr.flush(); sys.exit(main())")


def three_runs(tmp_path: Path, gridftp) -> str:
    return write(tmp_path, f"""\
        - id: t
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
          options: {{length: 64M}}
          repeat: 3
          timeout: 60s
    """, name="three")


@pytest.mark.slow
def test_a_ctrl_c_at_any_instant_from_start_up_through_the_first_run_ends_the_run(tmp_path, gridftp):
    # Was: a SIGINT 0.02 s after start-up on a loaded machine went into one of Python's weak-reference
    # callbacks ("Exception ignored"), the run went on, passed 3 of 3 and exited 0. Both cores busy: the
    # instants fall where a build machine puts them.
    path = three_runs(tmp_path, gridftp)
    tried = []
    with busy_cores():
        for n, at in enumerate(instants()):
            results = tmp_path / f"r{n}"
            proc = subprocess.Popen([sys.executable, "-c", STARTED, "run", path, "--results", str(results),
                                     "--progress", "never"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
            assert proc.stderr.readline() == "python started\n"
            ended = signal_at(proc, at)
            seen = f"Ctrl-C {at:.3f} s after start-up: exit {ended.returncode}\n{ended.stdout}\n{ended.stderr}"
            recs = records(results) if (results / "results.jsonl").exists() else []
            statuses = [r["status"] for r in recs]
            # a Ctrl-C after every run had ended (at the command's exit, or never sent) has nothing to stop
            over = statuses == ["passed"] * 3 and all_ended_before(ended, [r["ended_at"] for r in recs])
            assert ended.returncode == 130 or (over and ended.returncode == 0), seen
            assert "Traceback" not in ended.stderr and "Exception ignored" not in ended.stderr, seen
            # whole records only: the runs before the signal passed, the one in flight is interrupted
            assert statuses == ["passed"] * len(statuses) or statuses[-1] == "interrupted", seen
            assert statuses.count("interrupted") <= 1, seen
            if (results / "meta.json").exists():
                json.loads((results / "meta.json").read_text())  # never half-written
            tried.append(at)
            if "passed" in statuses:
                break  # the first run had ended before the signal: the sweep went all the way through it
        else:
            pytest.fail(f"the first run never ended before a Ctrl-C in {len(tried)} instants up to {tried[-1]:.1f} s")
    assert pgrep(f"globus-url-copy.*{gridftp.port}") == []


# A Ctrl-C that Python drops: raised inside a finaliser (as inside the import system's weak-reference
# callbacks), KeyboardInterrupt is printed as "Exception ignored" and the program goes on. Here an
# object dropped while the run starts signals its own process from its __del__.
DROPPED_IN_A_FINALISER = """\
import os, signal, sys
import gftpwb.shell.frontend as frontend
from gftpwb.cli.main import main

class Dropped:
    def __del__(self):
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(3):
            pass  # the handler runs here, inside __del__, where Python ignores what it raises

original = frontend.preflight
def preflight(*args, **kwargs):
    Dropped()
    return original(*args, **kwargs)
frontend.preflight = preflight
sys.argv[0] = "gftpwb"
sys.exit(main())
"""


def test_a_ctrl_c_that_python_drops_in_a_finaliser_still_ends_the_run(tmp_path, gridftp):
    # Was: "Exception ignored in: <function Dropped.__del__ ...> KeyboardInterrupt", 3 of 3 passed, exit 0.
    results = tmp_path / "r"
    done = subprocess.run([sys.executable, "-c", DROPPED_IN_A_FINALISER, "run", three_runs(tmp_path, gridftp),
                           "--results", str(results), "--progress", "never"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 130, done.stdout + done.stderr
    assert "Exception ignored" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert "no runs of 3 planned (interrupted by the user (Ctrl-C))" in done.stdout
    assert not (results / "results.jsonl").exists() or records(results) == []


def test_kill_9_of_a_headless_run_leaves_no_local_process(tmp_path, gridftp):
    # A transfer without -len, and a long pre command whose shell forks its sleep: both outlived a
    # killed gftpwb (parent 1, no timeout) before the watchdog.
    path = write(tmp_path, f"""\
        - id: forever
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
        - id: slow-pre
          kind: guc
          pre: {{run: "sleep 317; echo never", shell: true}}
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
    """)
    for only, marker in (("forever", f"globus-url-copy.*{gridftp.port}"), ("slow-pre", "sleep 317")):
        proc = subprocess.Popen([*GFTPWB, "run", path, "--only", only, "--results", str(tmp_path / only)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        eventually(lambda m=marker: pgrep(m) != [], f"a process matching {marker!r}", timeout=30)
        proc.kill()
        proc.wait()
        eventually(lambda m=marker: pgrep(m) == [], f"the processes matching {marker!r} gone", timeout=8,
                   detail=lambda m=marker: pgrep(m))


def test_sighup_of_a_headless_run_journals_the_run_in_flight(tmp_path, gridftp):
    # A real terminal that goes away (an SSH session dropped): the kernel sends SIGHUP to gftpwb, the
    # session leader on that terminal, and writes to it fail from then on.
    path = write(tmp_path, f"""\
        - id: forever
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
        - id: never
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
          options: {{length: 1M}}
    """)
    results = tmp_path / "r"
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.execvpe(sys.executable, [*GFTPWB, "run", path, "--results", str(results), "--progress", "never"],
                   {**os.environ, "NO_COLOR": "1"})
    seen = bytearray()

    def started() -> bool:
        seen.extend(os.read(fd, 4096))
        return b"[1/2] forever/0" in seen

    eventually(started, "the console's line of the first run", timeout=30, step=0, detail=lambda: bytes(seen))
    eventually(lambda: pgrep(f"globus-url-copy.*{gridftp.port}") != [], "guc running", timeout=20)
    os.close(fd)  # hang up
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 129
    (rec,) = records(results)
    assert rec["run_id"] == "forever/0" and rec["status"] == "interrupted"
    assert rec["details"]["interrupted_by"] == "SIGHUP" and rec["error"].startswith("interrupted by SIGHUP")
    assert (results / rec["taglog"]).exists()
    eventually(lambda: pgrep(f"globus-url-copy.*{gridftp.port}") == [], "guc gone after the hang-up", timeout=5)


def test_a_second_ctrl_c_does_not_skip_the_kill_of_a_command_that_ignores_sigterm(tmp_path, gridftp):
    # The pre command survives SIGTERM and says so in a file: the second Ctrl-C comes once the first
    # stop has reached it, within the kill's grace, and must not cut the SIGKILL that follows short.
    told = tmp_path / "told"
    path = write(tmp_path, f"""\
        - id: stubborn
          kind: guc
          pre: {{run: "trap 'echo TERM >> {told}' TERM; while :; do sleep 0.331; done", shell: true}}
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
    """)
    results = tmp_path / "r"
    proc = popen("run", path, "--results", str(results), "--progress", "never")
    eventually(lambda: pgrep("sleep 0.331") != [], "the pre command running", timeout=30)
    proc.send_signal(signal.SIGINT)
    eventually(lambda: told.exists() or proc.poll() is not None, "the pre command told to stop (SIGTERM)")
    proc.send_signal(signal.SIGINT)  # within the 2 s grace
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, out + err
    assert "Traceback" not in err
    (rec,) = records(results)
    assert rec["status"] == "interrupted" and "during the pre command" in rec["error"]
    eventually(lambda: pgrep("sleep 0.331") == [], "the pre command killed", timeout=3,
               detail=lambda: pgrep("sleep 0.331"))


def test_kill_9_leaves_nothing_in_any_namespace(netlab, tmp_path):
    # Runs on two namespace hosts and on this machine at once, killed hard: the remote wrappers'
    # watchdogs and the local watchdog end everything; pgrep in every namespace finds nothing.
    status = netlab.status()
    controller = status["controller_address"]
    path = write(tmp_path, f"""\
        - id: remote
          kind: guc
          on: [h1, h2]
          source: ftp://{controller}:2811/dev/zero
          target: file:///dev/null
          pre: {{run: "sleep 343 & exec sleep 344", shell: true}}
        - id: local
          kind: guc
          source: ftp://{controller}:2811/dev/zero
          target: file:///dev/null
    """, prefix=hosts_yaml(netlab))
    namespaces = [netns_of(netlab, name) for name in ("h1", "h2", "h3")]
    proc = subprocess.Popen([*GFTPWB, "run", path, "--results", str(tmp_path / "r")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        eventually(lambda: all(any("sleep 344" in c for _, c in processes_in(ns)) for ns in namespaces[:2]),
                   "the pre command running on h1 and h2", timeout=30)
    finally:
        proc.kill()
        proc.wait()
    for ns in namespaces:
        eventually(lambda ns=ns: started_by_gftpwb(ns, "sleep 34") == [], f"nothing gftpwb started left in {ns}",
                   timeout=8, detail=lambda ns=ns: started_by_gftpwb(ns))
    assert pgrep("sleep 34[34]") == []

    # The local run: started on its own, then killed the same way.
    proc = subprocess.Popen([*GFTPWB, "run", path, "--only", "local", "--results", str(tmp_path / "l")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    marker = f"globus-url-copy -vb ftp://{controller}:2811"
    try:
        eventually(lambda: pgrep(marker) != [], "the local guc running", timeout=30)
    finally:
        proc.kill()
        proc.wait()
    eventually(lambda: pgrep(marker) == [], "the local guc gone", timeout=8, detail=lambda: pgrep(marker))
    for ns in namespaces:
        assert started_by_gftpwb(ns) == []


# --- data: tag logs, the results directory's lock, a full disk ----------------------------------------


def test_resume_writes_a_tag_log_that_a_killed_run_did_not(tmp_path, gridftp):
    # kill -9 between the journal append and the tag-log write leaves exactly this: the record in
    # results.jsonl, no tag log. --resume writes it, byte for byte what the run would have written.
    path = write(tmp_path, f"""\
        - id: t
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
          options: {{length: 4M}}
          repeat: 3
    """)
    results = tmp_path / "r"
    assert subprocess.run([*GFTPWB, "run", path, "--results", str(results)], capture_output=True).returncode == 0
    lost = results / records(results)[1]["taglog"]
    original = lost.read_bytes()
    lost.unlink()
    out = subprocess.run([*GFTPWB, "run", path, "--resume", str(results)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "t/1: wrote its missing tag log" in out.stdout and lost.name in out.stdout
    assert lost.read_bytes() == original
    assert len(records(results)) == 3  # nothing was run again


def test_a_second_resume_of_the_same_directory_refuses(tmp_path, gridftp):
    path = write(tmp_path, f"""\
        - id: long
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
          timeout: 120s
        - id: short
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
          options: {{length: 1M}}
          repeat: 2
    """)
    results = tmp_path / "r"
    interrupted = popen("run", path, "--results", str(results), "--progress", "never")
    for line in interrupted.stdout:
        if line.startswith("[1/3] long/0"):
            interrupted.send_signal(signal.SIGINT)
            break
    assert interrupted.wait(timeout=30) == 130
    first = popen("run", path, "--resume", str(results), "--progress", "never")
    for line in first.stdout:
        if line.startswith("[1/3] long/0"):
            break
    second = subprocess.run([*GFTPWB, "run", path, "--resume", str(results)], capture_output=True, text=True)
    assert second.returncode == 6, second.stdout + second.stderr
    assert second.stderr.startswith(f"gftpwb: results directory {results} is in use by another gftpwb (pid "
                                    f"{first.pid}: ")
    assert "Traceback" not in second.stderr
    first.send_signal(signal.SIGINT)  # long/0 runs until its timeout: the second start may be slow on a loaded machine
    assert first.wait(timeout=60) == 130
    assert [r["status"] for r in records(results)] == ["interrupted", "interrupted"]  # the second ran nothing
    again = popen("run", path, "--resume", str(results), "--progress", "never")
    for line in again.stdout:  # the lock went with the first one: this one starts its runs
        if line.startswith("[1/3] long/0"):
            again.send_signal(signal.SIGINT)
            break
    assert again.wait(timeout=60) == 130


@pytest.fixture
def small_disk(tmp_path):
    """A 48 KiB tmpfs of our own, unmounted again at the end."""
    mount = tmp_path / "small"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", str(mount)], check=True)
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def test_a_full_disk_ends_with_a_clear_message_and_a_whole_journal(tmp_path, gridftp, small_disk):
    from gftpwb.core.records import parse_journal

    path = write(tmp_path, f"""\
        - id: t
          kind: guc
          source: {gridftp.url}/dev/zero
          target: {gridftp.url}/dev/null
          options: {{length: 1M}}
          repeat: 30
    """, name="full")
    results = small_disk / "r"
    out = subprocess.run([*GFTPWB, "run", path, "--results", str(results), "--progress", "never"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 7, out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    lines = out.stderr.splitlines()
    assert lines[0].startswith(f"gftpwb: cannot write results in {results}: No space left on device (")
    records, problems = parse_journal((results / "results.jsonl").read_text())
    assert problems == [] and 0 < len(records) < 30  # whole records only, no torn line
    assert f"  on disk: {len(records)} record(s) of this attempt in results.jsonl" in out.stderr
    assert any(line.startswith("  not written: ") for line in lines)
    assert f"  not run: {30 - len(records)} of 30 planned run(s)" in out.stderr
    assert "(interrupted: results could not be written)" in out.stdout  # the summary

    subprocess.run(["mount", "-o", "remount,size=2m", str(small_disk)], check=True)  # space freed
    out = subprocess.run([*GFTPWB, "run", path, "--resume", str(results)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    records, problems = parse_journal((results / "results.jsonl").read_text())
    assert problems == [] and sorted(r.run_id for r in records) == sorted(f"t/{i}" for i in range(30))
    assert all((results / r.taglog).exists() for r in records)


# --- secrets, names, remote errors -------------------------------------------------------------------


def test_a_password_in_a_url_reaches_guc_and_nothing_else(tmp_path, gridftp):
    secret = "s3cr3t-pw"
    url = gridftp.url.replace("ftp://", f"ftp://anonymous:{secret}@")
    path = write(tmp_path, f"""\
        - id: t
          kind: guc
          source: {url}/dev/zero
          target: file:///dev/null
          options: {{length: 1M}}
    """, name="secret")
    results = tmp_path / "r"
    out = subprocess.run([*GFTPWB, "run", path, "--results", str(results), "--progress", "never"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr  # guc had the real URL: the login worked
    (rec,) = records(results)
    assert "ftp://anonymous:***@127.0.0.1" in " ".join(rec["argv"]) and "anonymous:***@" in rec["output"]
    for name in os.listdir(results):
        assert secret not in (results / name).read_text(), name
    assert secret not in out.stdout + out.stderr
    dry = subprocess.run([*GFTPWB, "run", path, "--dry-run"], capture_output=True, text=True)
    assert "anonymous:***@" in dry.stdout and secret not in dry.stdout
    resumed = subprocess.run([*GFTPWB, "run", path, "--resume", str(results)], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr  # the plan fingerprint is of the masked plan


def test_plain_resume_finds_a_scenario_whose_name_has_dots(tmp_path, gridftp):
    path = write(tmp_path, f"""\
        - id: long
          kind: guc
          source: {gridftp.url}/dev/zero
          target: file:///dev/null
          options: {{length: 4G}}
        - id: short
          kind: guc
          source: {gridftp.url}/dev/zero
          target: file:///dev/null
          options: {{length: 1M}}
    """, name="bench.2")
    base = tmp_path / "results"
    proc = popen("run", path, "--results-base", str(base), "--progress", "never")
    for line in proc.stdout:
        if line.startswith("[1/2] long/0"):
            proc.send_signal(signal.SIGINT)
            break
    assert proc.wait(timeout=30) == 130
    out = subprocess.run([*GFTPWB, "run", path, "--results-base", str(base), "--resume"], capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    (directory,) = os.listdir(base)
    assert directory.endswith("-bench.2")
    assert {r["run_id"]: r["status"] for r in records(base / directory)} == {"long/0": "passed", "short/0": "passed"}


def test_a_remote_host_without_guc_names_guc_not_stdbuf(netlab, tmp_path):
    # h1's PATH holds stdbuf (and what the wrapper needs) but no globus-url-copy.
    import shutil

    bindir = tmp_path / "bin"
    bindir.mkdir()
    for program in ("stdbuf", "setsid", "sleep", "sh"):
        (bindir / program).symlink_to(shutil.which(program))
    status = netlab.status()
    path = write(tmp_path, f"""\
        - id: t
          kind: guc
          on: h1
          source: ftp://{status['controller_address']}:2811/dev/zero
          target: file:///dev/null
          options: {{length: 1M}}
    """, prefix=hosts_yaml(netlab).replace("  h1: {", f"  h1: {{env: {{PATH: {bindir}}}, ", 1))
    results = tmp_path / "r"
    out = subprocess.run([*GFTPWB, "run", path, "--results", str(results), "--progress", "never"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stdout + out.stderr
    (rec,) = records(results)
    assert rec["status"] == "failed" and "globus-url-copy: command not found" in rec["error"], rec["error"]
    assert "stdbuf" not in rec["error"]


def test_a_revoked_host_key_wins_over_accept_new_host_keys(netlab, tmp_path):
    status = netlab.status()
    h1 = status["hosts"][0]
    lab_keys = Path(status["known_hosts"]).read_text().splitlines()
    h1_key = next(line for line in lab_keys if line.split()[0].split(",")[0].strip("[]").split("]")[0]
                  == h1["address"])
    revoked = tmp_path / "known_hosts"
    revoked.write_text(f"@revoked {h1_key}\n")
    before = revoked.read_text()
    path = write(tmp_path, f"""\
        - id: t
          kind: guc
          on: h1
          source: ftp://{status['controller_address']}:2811/dev/zero
          target: file:///dev/null
          options: {{length: 1M}}
    """, prefix=hosts_yaml(netlab).replace(status["known_hosts"], str(revoked)))
    for extra in (["--accept-new-host-keys"], []):
        results = tmp_path / f"r{len(extra)}"
        out = subprocess.run([*GFTPWB, "run", path, "--results", str(results), "--progress", "never", *extra],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 1, out.stdout + out.stderr
        (rec,) = records(results)
        assert "REVOKED HOST KEY" in rec["error"] and str(revoked) in rec["error"], rec["error"]
        assert revoked.read_text() == before  # never appended as trusted
