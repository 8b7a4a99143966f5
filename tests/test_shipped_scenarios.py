"""Every shipped scenario in scenarios/ works as shipped, with the commands its comment and the README give.

All of them validate. Each runs on the lab it says to start: the default lab (``gftpwb lab up``, which
``make test`` starts, GridFTP on 127.0.0.1:2811) or two namespace hosts (``gftpwb lab up --hosts 2``,
here in a state directory of its own, named by ``GFTPWB_LAB_DIR`` so the README's commands are typed as
they are, ``$(gftpwb lab status --vars)`` included). ``hosts check`` takes the same variables. The
scenarios too long for a test suite run as ``--dry-run`` here; each says why (:data:`LONG`), and
the TeraGrid study's real run, shrunk, is in tests/test_study_real.py.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gftpwb.core.records import PASSED, parse_journal
from gftpwb.shell.lab.gridftp import free_port

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(p.name for p in (ROOT / "scenarios").iterdir() if p.suffix in (".yaml", ".csv"))
GFTPWB = [sys.executable, "-m", "gftpwb"]

# Run as shipped on the default lab (guc to 127.0.0.1:2811, or no server at all).
ON_THE_DEFAULT_LAB = ("quickstart.yaml", "tgftp-style.yaml", "tgftp-example.csv", "stress-harness.yaml",
                      "smallfile-posix.yaml", "autotune-simulated.yaml")
ON_TWO_HOSTS = ("multi-host.yaml",)
LONG = {
    "autotune.yaml": "up to 120 transfers of 4 GiB (minutes on loopback)",
    "monitors.yaml": "32 transfers of 1 GiB, 16 at once",
    "teragrid-study.yaml": "61 runs on 400 Mbit/s links with 4 hosts, striped servers and disk-to-disk files; "
                           "shrunk with --set in tests/test_study_real.py",
    "smallfile-gfapi.yaml": "needs the lab's GlusterFS volume (gftpwb lab up --gluster); the gfapi kind's real "
                            "runs are in tests/test_gfapi_real.py",
}

pytestmark = pytest.mark.real


def gftpwb(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GFTPWB, *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout,
                          env={**os.environ, "COLUMNS": "200", **(env or {})})


def test_every_shipped_scenario_is_run_here_or_says_why_not():
    assert sorted([*ON_THE_DEFAULT_LAB, *ON_TWO_HOSTS, *LONG]) == SHIPPED


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_scenario_validates_as_shipped(name):
    out = gftpwb("validate", f"scenarios/{name}")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.startswith(f"scenarios/{name}: ok"), out.stdout


@pytest.fixture(scope="module")
def default_lab():
    """The shared default lab, as the README starts it (idempotent; never taken down: others use it)."""
    up = gftpwb("lab", "up")
    assert up.returncode == 0, up.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name", ON_THE_DEFAULT_LAB)
def test_a_shipped_scenario_runs_as_shipped_on_the_default_lab(name, default_lab, tmp_path):
    results = tmp_path / "results"
    out = gftpwb("run", f"scenarios/{name}", "--results", str(results))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr
    records, problems = parse_journal((results / "results.jsonl").read_text())
    assert records and not problems
    if name != "autotune-simulated.yaml":  # an auto-tune's slow candidates time out by design (tgftp's 30 s)
        assert {r.status for r in records} == {PASSED}


@pytest.mark.parametrize("name", sorted(LONG))
def test_a_long_shipped_scenario_plans_as_shipped(name):
    args = ["--set", "lab=/nonexistent"] if name == "teragrid-study.yaml" else []
    out = gftpwb("run", f"scenarios/{name}", "--dry-run", *args)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.fixture(scope="module")
def two_hosts(tmp_path_factory):
    """``gftpwb lab up --hosts 2`` in a lab of its own (``GFTPWB_LAB_DIR``; its loopback server on a free
    port, as the default lab's 2811 is taken), taken down at the end."""
    state = tmp_path_factory.mktemp("twohosts")
    env = {"GFTPWB_LAB_DIR": str(state)}
    up = gftpwb("lab", "up", "--hosts", "2", "--port", str(free_port()), env=env)
    assert up.returncode == 0, up.stderr
    yield env
    gftpwb("lab", "down", env=env)


def lab_vars(env: dict[str, str]) -> list[str]:
    """What ``$(gftpwb lab status --vars)`` gives the shell: the words of its output."""
    out = gftpwb("lab", "status", "--vars", env=env)
    assert out.returncode == 0, out.stderr
    return shlex.split(out.stdout)


@pytest.mark.slow
def test_the_multi_host_example_runs_as_the_readme_says(two_hosts, tmp_path):
    results = tmp_path / "results"
    out = gftpwb("run", "scenarios/multi-host.yaml", *lab_vars(two_hosts), "--results", str(results), env=two_hosts)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr
    records, problems = parse_journal((results / "results.jsonl").read_text())
    assert not problems and len(records) == 10
    assert {r.status for r in records} == {PASSED}, [(r.run_id, r.error) for r in records if r.status != PASSED]
    assert {r.host for r in records} == {"client1", "client2", "local"}


@pytest.mark.parametrize("name", ["multi-host.yaml", "teragrid-study.yaml"])
def test_hosts_check_takes_the_labs_variables(name, two_hosts):
    out = gftpwb("hosts", "check", f"scenarios/{name}", *lab_vars(two_hosts), "--json", env=two_hosts)
    assert out.returncode == 0, out.stdout + out.stderr
    reports = json.loads(out.stdout)["hosts"]
    assert len(reports) == 3 and all(r["status"] == "ok" for r in reports), reports


def test_hosts_check_reads_variables_from_the_environment_too(two_hosts):
    words = lab_vars(two_hosts)
    env = {**two_hosts, **{f"GFTPWB_VAR_{k}": v for k, _, v in (w.partition("=") for w in words[1::2])}}
    out = gftpwb("hosts", "check", "scenarios/multi-host.yaml", "--json", "--only", "client1", env=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert [r["status"] for r in json.loads(out.stdout)["hosts"]] == ["ok"]
