"""Every shipped scenario in scenarios/ works as shipped, with the commands the documentation gives.

The executed documentation (tests/test_docs_commands.py) already types most of them on the lab its
page starts: ``gftpwb validate scenarios/*.yaml``, the quickstart, the tgftp batchfile, the harness and
small-file examples, the multi-host example on two namespace hosts with ``$(gftpwb lab status --vars)``,
a quick pass of the TeraGrid study. This module checks that every shipped file is run there or here,
runs the ones no page runs, and says why the rest (:data:`LONG`) are only planned. It also holds
``hosts check`` to the variables of a scenario, as ``run`` takes them (``--set``, ``GFTPWB_VAR_*``).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from support.docs_blocks import blocks_of, documents

from gftpwb.core.records import PASSED, parse_journal
from gftpwb.shell.lab.gridftp import free_port

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(p.name for p in (ROOT / "scenarios").iterdir() if p.suffix in (".yaml", ".csv"))
GFTPWB = [sys.executable, "-m", "gftpwb"]

# Run here as shipped, on the default lab (``gftpwb lab up``, which make test starts): no page runs them.
RUN_HERE = ("tgftp-style.yaml", "autotune-simulated.yaml")
LONG = {
    "autotune.yaml": "up to 120 transfers of 4 GiB (minutes on loopback); the auto-tune's real runs are in "
                     "tests/test_autotune_real.py",
}

pytestmark = pytest.mark.real


def gftpwb(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GFTPWB, *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout,
                          env={**os.environ, "COLUMNS": "200", **(env or {})})


def run_by_the_docs() -> set[str]:
    """The shipped files an executed documentation block runs (``gftpwb run scenarios/NAME``)."""
    found: set[str] = set()
    for path in documents():
        for block in blocks_of(path):
            if block.marker != "skip":
                found.update(re.findall(r"gftpwb run scenarios/([\w.-]+)", block.body))
    return found


def validated_by_the_docs() -> set[str]:
    found: set[str] = set()
    for path in documents():
        for block in blocks_of(path):
            if block.marker == "":
                for name in re.findall(r"gftpwb validate scenarios/([\w.*-]+)", block.body):
                    found.update(p.name for p in (ROOT / "scenarios").glob(name))
    return found


def test_every_shipped_scenario_is_run_by_the_docs_or_here_or_says_why_not():
    docs = run_by_the_docs()
    assert not set(RUN_HERE) & docs, "run by an executed docs block already: do not run it twice"
    assert sorted(docs | set(RUN_HERE) | set(LONG)) == SHIPPED, docs


def test_every_shipped_scenario_is_validated_by_the_docs():
    assert validated_by_the_docs() == set(SHIPPED)


@pytest.fixture(scope="module")
def default_lab():
    """The default lab, whose server the shipped scenarios name (``ftp://127.0.0.1:2811``), as ``make
    test`` starts it (idempotent; never taken down: it is the one the README starts)."""
    env = {name: value for name, value in os.environ.items() if name != "GFTPWB_LAB_DIR"}
    up = subprocess.run([*GFTPWB, "lab", "up"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert up.returncode == 0, up.stderr


@pytest.mark.slow
@pytest.mark.parametrize("name", RUN_HERE)
def test_a_shipped_scenario_runs_as_shipped(name, default_lab, tmp_path):
    results = tmp_path / "results"
    out = gftpwb("run", f"scenarios/{name}", "--results", str(results))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr
    records, problems = parse_journal((results / "results.jsonl").read_text())
    assert records and not problems
    if name != "autotune-simulated.yaml":  # an auto-tune's slow candidates time out by design (tgftp's 30 s)
        assert {r.status for r in records} == {PASSED}


@pytest.mark.parametrize("name", sorted(LONG))
def test_a_long_shipped_scenario_plans_as_shipped(name):
    out = gftpwb("run", f"scenarios/{name}", "--dry-run")
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


@pytest.mark.slow
def test_the_multi_host_example_runs_in_a_lab_of_its_own(two_hosts, tmp_path):
    """The docs run it on the default lab; this is the same command in another lab (other addresses),
    which is what the variables are for."""
    results = tmp_path / "results"
    out = gftpwb("run", "scenarios/multi-host.yaml", *lab_vars(two_hosts), "--results", str(results), env=two_hosts)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr
    records, problems = parse_journal((results / "results.jsonl").read_text())
    assert not problems and len(records) == 10
    assert {r.status for r in records} == {PASSED}, [(r.run_id, r.error) for r in records if r.status != PASSED]
    assert {r.host for r in records} == {"client1", "client2", "local"}


MODE_WORDS = {"stream": re.compile(r"\bstream[ -]mode\b|\bMODE S\b", re.I),
              "extended": re.compile(r"\bextended\b|\bMODE E\b", re.I)}


@pytest.mark.parametrize("name", SHIPPED)
def test_what_a_shipped_example_says_of_a_runs_mode_is_the_mode_it_runs_in(name):
    """A test's id, description or comment that names a transfer mode names the one the tool reports
    for its runs (``details.mode``): ``-vb`` between two servers is extended mode, whatever a comment
    calls it."""
    from gftpwb.core.plan import plan
    from gftpwb.shell.frontend import load

    scenario = load(str(ROOT / "scenarios" / name))
    tests = {t.id: t for t in scenario.tests}
    for spec in plan(scenario):
        if "mode" not in spec.details:
            continue
        said = " ".join((spec.test_id, tests[spec.test_id].description, spec.comment))
        for mode, words in MODE_WORDS.items():
            if words.search(said) and not MODE_WORDS[spec.details["mode"]].search(said):
                pytest.fail(f"{name}: {spec.run_id} says {mode} mode ({said!r}) and runs in {spec.details['mode']} "
                            f"mode: {' '.join(spec.argv)}")
