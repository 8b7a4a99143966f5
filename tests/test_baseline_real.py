"""guc against its iperf3 baseline for real: a lab of two namespace hosts whose links ``tc tbf`` shapes
to 400 Mbit/s, a GridFTP server on each, a third-party guc transfer h1 -> h2 with ``baseline: iperf3``
(hosts inferred from the URLs). Each guc run follows its iperf3 run over the same path with the same
streams, both are held by the shaper, and the report's efficiency is the ratio of the records' means."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gftpwb.core.records import PASSED, parse_journal
from gftpwb.shell.lab.gridftp import free_port

pytestmark = pytest.mark.real
GFTPWB = [sys.executable, "-m", "gftpwb"]
SHAPED_MIB_S = 400e6 / 8 / 2**20  # 47.7 MiB/s: what tbf lets through


def gftpwb(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GFTPWB, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "COLUMNS": "220"})


@pytest.fixture(scope="module")
def shaped_lab(tmp_path_factory):
    state = tmp_path_factory.mktemp("shaped")
    up = gftpwb("lab", "up", "--state-dir", str(state), "--port", str(free_port()), "--hosts", "2", "--rate",
                "400mbit", "--gridftp-on-hosts")
    assert up.returncode == 0, up.stderr
    yield state
    gftpwb("lab", "down", "--state-dir", str(state))


def test_guc_runs_follow_their_iperf3_baseline_and_the_report_gives_the_efficiency(shaped_lab, tmp_path):
    state = shaped_lab
    hosts = json.loads(gftpwb("lab", "status", "--state-dir", str(state), "--json").stdout)["hosts"]
    h1, h2 = (h["address"] for h in hosts["hosts"])
    inventory = "".join(line for line in (state / "hosts.yaml").read_text().splitlines(keepends=True)
                        if not line.startswith("#"))
    scenario = tmp_path / "eff.yaml"
    scenario.write_text(f"version: 1\nname: eff\n{inventory}tests:\n"
                        "  - id: eff\n    kind: guc\n"
                        f"    source: ftp://{h1}:2811/dev/zero\n    target: ftp://{h2}:2811/dev/null\n"
                        "    options: {length: 60M}\n    matrix: {parallel: [1, 2]}\n    repeat: 2\n"
                        "    timeout: 60s\n    baseline: {duration: 1s, timeout: 30s}\n")
    results = tmp_path / "results"
    run = gftpwb("run", str(scenario), "--results", str(results))
    assert run.returncode == 0, run.stdout + run.stderr
    records, problems = parse_journal((results / "results.jsonl").read_text())
    assert problems == []
    assert [(r.run_id, r.kind) for r in records] == [
        (f"eff[{c}]/{i}{suffix}", kind) for c in (0, 1) for i in (0, 1)
        for suffix, kind in (("/iperf3", "iperf3"), ("", "guc"))]
    assert all(r.status == PASSED for r in records)
    for base, guc in zip(records[::2], records[1::2], strict=True):
        streams = base.details["iperf3"]["streams"]
        assert len(streams) == guc.params["parallel"]  # the same number of streams
        assert base.started_at <= base.ended_at <= guc.started_at  # iperf3 first, then guc: adjacent
        # both went over the shaped path: neither beats the shaper (tbf's burst adds a little at most)
        assert 0 < base.rate_guc_avg_mib_s < SHAPED_MIB_S * 1.05
        assert 0 < guc.rate_guc_avg_mib_s < SHAPED_MIB_S * 1.05
    report = gftpwb("report", str(results))
    assert report.returncode == 0, report.stderr
    assert "guc vs iperf3 baseline" in report.stdout
    for case in (0, 1):
        guc = [r.rate_guc_avg_mib_s for r in records if r.kind == "guc" and r.case == case]
        base = [r.rate_guc_avg_mib_s for r in records if r.kind == "iperf3" and r.case == case]
        expected = f"{sum(guc) / len(guc) / (sum(base) / len(base)) * 100:.1f} %"
        row = next(line for line in report.stdout.splitlines() if re.search(rf"│ eff\s+│ 00{case} │.*│ +{case + 1} │",
                                                                            line))
        assert expected in row, (expected, row)
        assert re.search(r"\d+\.\d to \d+\.\d %", row)  # its interval from two pairs
