"""Warm starts with real globus-url-copy against the loopback GridFTP server the fixture starts: a cold
campaign, then a warm one whose history is read (DuckDB over the journals and plans) from the results
base the first wrote; and the RTT probe against the real server. Rates are not asserted (a loaded
machine may make the probes disagree: then the warm tune falls back, which is as correct)."""

import asyncio
import json
import textwrap

import pytest
from support.clihelp import gftpwb

from gftpwb.kinds.autotune.candidates import DEFAULT_PORTS
from gftpwb.kinds.autotune.run.rtt import path_rtt
from gftpwb.shell.executor import Executor
from gftpwb.shell.lab.gridftp import free_port

pytestmark = pytest.mark.real

BUDGET = 24


def scenario(tmp_path, url: str) -> str:
    path = tmp_path / "tune.yaml"
    path.write_text(textwrap.dedent(f"""\
        version: 1
        name: realwarm
        tests:
          - id: tune
            kind: autotune
            source: {url}/any/source/path
            target: {url}/any/target/path
            strategy: adaptive
            budget: {BUDGET}
            length: 64M
            timeout: 60s
            candidates:
              - {{}}
              - {{parallel: 2}}
              - {{parallel: 4}}
              - {{parallel: 8}}
              - {{parallel: 4, tcp_buffer: 1M}}
              - {{parallel: 16, block_size: 64K}}
        """))
    return str(path)


def tune_of(results) -> dict:
    lines = (results / "results.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if '"kind":"autotune"' in line][-1]


def test_a_cold_then_a_warm_campaign_on_loopback(tmp_path, gridftp):
    base = tmp_path / "results"
    path = scenario(tmp_path, gridftp.url)
    cold_out = gftpwb("run", path, "--results", str(base / "cold"), "--progress", "never", timeout=600)
    assert cold_out.returncode == 0, cold_out.stdout + cold_out.stderr
    cold = tune_of(base / "cold")["details"]
    assert cold["warm_start"]["warm"] is False and "no earlier campaign" in cold["warm_start"]["reason"]
    rtt = cold["path"]["rtt_s"]
    assert rtt is not None and 0 < rtt < 1.0  # measured by TCP connects to the server from this host
    assert cold["path"]["source"] == cold["path"]["target"] == f"ftp://127.0.0.1:{gridftp.port}"

    out = gftpwb("run", path, "--results", str(base / "warm"), "--progress", "never", timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    details = tune_of(base / "warm")["details"]
    warm = details["warm_start"]
    assert warm["warm"] and [u["ref"] for u in warm["used"]] == ["cold:tune"], (warm, cold["path"], details["path"])
    assert warm["history"] == str(base) and 0.5 <= warm["used"][0]["similarity"] <= 1.0
    assert "warm start from 1 earlier campaign(s)" in out.stdout and "history used: auto-tune cold:tune" in out.stdout
    if warm["fell_back"]:  # the machine's load moved the rates more than the history ever did
        assert warm["fallback_reason"] and "fell back to a cold search" in out.stdout
        assert details["transfers_used"] <= BUDGET
    else:
        assert warm["phase"] == "race" and details["transfers_used"] <= BUDGET // 3
    assert details["pick"] is not None and details["tgftp_line"]


@pytest.fixture
def executor():
    from gftpwb.core.bus import EventBus

    return Executor(EventBus())


def test_rtt_to_the_real_server_and_why_not_where_nothing_listens(gridftp, executor):
    rtt, notes = asyncio.run(path_rtt(executor, "local", (f"{gridftp.url}/dev/zero", f"{gridftp.url}/dev/null"),
                                      DEFAULT_PORTS))
    assert notes == [] and rtt is not None and 0 < rtt < 1.0
    closed = free_port()
    rtt, notes = asyncio.run(path_rtt(executor, "local", (f"ftp://127.0.0.1:{closed}/x", "/local/file"),
                                      DEFAULT_PORTS))
    assert rtt is None and len(notes) == 1 and f"127.0.0.1:{closed} not measured" in notes[0]
