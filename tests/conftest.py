"""Shared fixtures: a real GridFTP lab on a free port, a fake guc for fast tests, and a rule that
turns any skipped test into a failure when GFTPWB_FORBID_SKIPS is set (as `make test` does)."""

from __future__ import annotations

import os
import signal
import stat
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from gftpwb.shell.lab.gridftp import GridftpLab, free_port

ROOT = Path(__file__).resolve().parent.parent

# Property tests share this machine with real-server tests and other work: a slow example is load, not
# a defect, so hypothesis's timing health check and per-example deadline are off everywhere. Each
# test's own max_examples bounds its time; hypothesis prints the seed of any failure to reproduce it.
settings.register_profile("gftpwb", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gftpwb")

_skipped: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    """Signals as at a terminal: a suite started in the background (``make test &``, ``nohup``)
    inherits SIGINT, SIGQUIT or SIGHUP ignored, and every program a test starts would inherit that
    too, so a test's Ctrl-C or hang-up would reach nothing. The tests that send signals assert what a
    user at a terminal gets; the suite gives its programs that terminal's dispositions."""
    for sig in (signal.SIGINT, signal.SIGQUIT, signal.SIGHUP, signal.SIGTERM):
        if signal.getsignal(sig) == signal.SIG_IGN:
            signal.signal(sig, signal.default_int_handler if sig == signal.SIGINT else signal.SIG_DFL)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The tgftp compat suite needs the real tgftp 0.7.0 (GFTPWB_TGFTP_REFERENCE, set by `make test`
    when ../shared/reference/tgftp-0.7.0 exists). Without it the suite is not collected at all (not
    skipped: GFTPWB_FORBID_SKIPS turns skips into failures), and `make test` says so in one line."""
    if (ROOT / "tests" / "compat") in (collection_path, *collection_path.parents):
        return not os.environ.get("GFTPWB_TGFTP_REFERENCE")
    return None


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):  # an expected failure (xfail) ran: not a skip
        _skipped.append(report.nodeid)


def default_lab() -> dict:
    """What the user's lab (the default state directory) holds: ``gftpwb lab status --json`` there."""
    import json
    import subprocess

    env = {name: value for name, value in os.environ.items() if name != "GFTPWB_LAB_DIR"}
    done = subprocess.run([sys.executable, "-m", "gftpwb", "lab", "status", "--json"], capture_output=True,
                          text=True, env=env)
    return json.loads(done.stdout) if done.returncode == 0 else {"error": done.stderr}


def changed_parts(before: dict, after: dict) -> list[str]:
    """The parts of the default lab a test run changed; a GridFTP server it started is not one of them
    (``make test`` starts the default lab, and a test may start its server as the docs do)."""
    parts = sorted(set(before) | set(after))
    changed = [part for part in parts if part != "gridftp" and before.get(part) != after.get(part)]
    if (before.get("gridftp") or {}).get("running") and before.get("gridftp") != after.get("gridftp"):
        changed.append("gridftp")
    return changed


_default_lab_before: dict = {}


def pytest_sessionstart(session: pytest.Session) -> None:
    _default_lab_before.update(default_lab())


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if os.environ.get("GFTPWB_FORBID_SKIPS") and _skipped and exitstatus == 0:
        print(f"\nGFTPWB_FORBID_SKIPS: {len(_skipped)} test(s) skipped, which CI does not allow:", file=sys.stderr)
        for nodeid in _skipped:
            print(f"  {nodeid}", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    # Tests use labs of their own: the user's lab is left as the run found it (its server apart).
    changed = changed_parts(_default_lab_before, default_lab())
    if changed and session.exitstatus == 0:
        print(f"\nthe run changed the default lab (~/.local/state/gftpwb/lab): {', '.join(changed)}; "
              "tests must use a lab state of their own", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session", autouse=True)
def suite_lab(tmp_path_factory: pytest.TempPathFactory):
    """The suite's own lab: every ``gftpwb lab ...`` a test runs without ``--state-dir`` (the docs pages,
    the journeys) starts, adds to and reads this one (``GFTPWB_LAB_DIR``), never the user's, and all of it
    is taken down at the end. Its GridFTP server runs on a free port, so a page's ``gftpwb lab up`` finds
    it running and keeps it there; the scenarios' default URLs (``ftp://127.0.0.1:2811``) are the default
    lab's, which ``make test`` starts as the README says."""
    state = str(tmp_path_factory.mktemp("suite-lab"))
    before = os.environ.get("GFTPWB_LAB_DIR")
    os.environ["GFTPWB_LAB_DIR"] = state
    GridftpLab(state).up(port=free_port())
    yield state
    take_lab_down(state)
    if before is None:
        os.environ.pop("GFTPWB_LAB_DIR", None)
    else:
        os.environ["GFTPWB_LAB_DIR"] = before


def take_lab_down(state: str) -> None:
    """``gftpwb lab down --state-dir STATE``: whatever a test started there, gone."""
    import subprocess

    done = subprocess.run([sys.executable, "-m", "gftpwb", "lab", "down", "--state-dir", state],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="session")
def gridftp(tmp_path_factory: pytest.TempPathFactory):
    """A real globus-gridftp-server on 127.0.0.1 and a free port, started by the project's lab code."""
    lab = GridftpLab(str(tmp_path_factory.mktemp("lab")))
    status = lab.up(port=free_port())
    yield status
    lab.down()


FAKE_GUC = textwrap.dedent('''\
    #!{python}
    """A stand-in for globus-url-copy, driven by FAKE_GUC_MODE; prints -vb progress lines ending in \\r."""
    import os, subprocess, sys, time
    mode = os.environ.get("FAKE_GUC_MODE", "ok")
    args = sys.argv[1:]
    with open(os.environ.get("FAKE_GUC_ARGV_LOG", os.devnull), "a") as log:
        log.write(repr(args) + "\\n")
    out = sys.stdout
    out.write("Source: ftp://fake/dev/\\nDest:   ftp://fake/dev/\\n  zero  ->  null\\n\\n")
    out.flush()
    if mode == "ok":
        for step in (1, 2, 3):
            out.write(" %12d bytes %12.2f MB/sec avg %12.2f MB/sec inst\\r" % (step * 1048576, 100.0 * step, 90.0))
            out.flush()
            time.sleep(float(os.environ.get("FAKE_GUC_STEP", "0.05")))
        out.write("\\n")
        sys.exit(0)
    if mode == "fail":
        sys.stderr.write("error: globus_xio: Unable to connect to 127.0.0.1:1\\n")
        sys.stderr.write("globus_xio: System error in connect: Connection refused\\n")
        sys.exit(1)
    if mode == "hang":
        # A child in the same process group, to prove the whole group is killed.
        child = subprocess.Popen(["sleep", "1000"])
        with open(os.environ["FAKE_GUC_CHILD_PID"], "w") as handle:
            handle.write(str(child.pid))
        out.write(" %12d bytes %12.2f MB/sec avg %12.2f MB/sec inst\\r" % (1048576, 10.0, 10.0))
        out.flush()
        time.sleep(1000)
    sys.exit(3)
''')


@pytest.fixture
def fake_guc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put a fake globus-url-copy first on PATH; returns its directory."""
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    script = bindir / "globus-url-copy"
    script.write_text(FAKE_GUC.format(python=sys.executable))
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_GUC_ARGV_LOG", str(tmp_path / "argv.log"))
    return bindir


@pytest.fixture(scope="session")
def ssh_keys():
    """An ed25519 host key and client key for the in-process SSH server (tests/support/sshserver.py)."""
    import asyncssh

    return asyncssh.generate_private_key("ssh-ed25519"), asyncssh.generate_private_key("ssh-ed25519")


@pytest.fixture
async def fake_sshd(tmp_path: Path, ssh_keys):
    """An in-process asyncssh server that runs commands with /bin/sh on this machine, like sshd."""
    from support.sshserver import start_fake_sshd, stop_fake_sshd

    state = await start_fake_sshd(str(tmp_path), *ssh_keys)
    yield state
    await stop_fake_sshd(state)


@pytest.fixture(scope="session")
def netlab(tmp_path_factory: pytest.TempPathFactory):
    """Three real test hosts (network namespaces with their own sshd) and a GridFTP server on the
    controller's bridge address, made by the project's lab code; removed again at the end."""
    from gftpwb.shell.lab.netlab import NetLab

    lab = NetLab(str(tmp_path_factory.mktemp("netlab")))
    lab.up(3)
    yield lab
    lab.down()


@pytest.fixture(scope="session")
def wanlab(tmp_path_factory: pytest.TempPathFactory):
    """Two real test hosts with a GridFTP server each, joined by a 60 ms WAN link (the lab's delay
    line), made by the project's lab code; removed again at the end."""
    from gftpwb.core.wanlink import LinkSettings, plan_links
    from gftpwb.shell.lab.netlab import NetLab

    lab = NetLab(str(tmp_path_factory.mktemp("wanlab")))
    lab.up(2, gridftp_on_hosts=True, links=plan_links(["h1", "h2"], LinkSettings(rtt_s=0.060), {}))
    yield lab
    lab.down()


# --- gfapi: the worker build cache and a real GlusterFS volume ----------------------------------


@pytest.fixture(scope="session", autouse=True)
def worker_cache(tmp_path_factory: pytest.TempPathFactory):
    """Build gfapi workers into a per-session cache, never into the user's ~/.cache."""
    path = tmp_path_factory.mktemp("workers")
    old = os.environ.get("GFTPWB_WORKER_DIR")
    os.environ["GFTPWB_WORKER_DIR"] = str(path)
    yield path
    if old is None:
        os.environ.pop("GFTPWB_WORKER_DIR", None)
    else:
        os.environ["GFTPWB_WORKER_DIR"] = old


@pytest.fixture(scope="session")
def gluster(tmp_path_factory: pytest.TempPathFactory):
    """A real started single-brick GlusterFS volume, made and removed by the project's lab code."""
    from gftpwb.shell.lab.gluster import GlusterLab

    lab = GlusterLab(str(tmp_path_factory.mktemp("glusterlab")))
    status = lab.up()
    yield status
    lab.down()


# --- Slurm: a real cluster of the project's lab code, in a temporary state directory ------------


@pytest.fixture(scope="session")
def slurm_lab(tmp_path_factory: pytest.TempPathFactory):
    """munged, slurmctld and 4 slurmd on this machine, on ports of their own (beside any other lab)."""
    from gftpwb.shell.lab.slurm import SlurmLab

    lab = SlurmLab(str(tmp_path_factory.mktemp("slurmlab")))
    lab.up(4)
    yield lab
    lab.down()
