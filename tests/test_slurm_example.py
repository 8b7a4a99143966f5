"""The shipped scenarios/slurm-smallfile.yaml runs as shipped on `gftpwb lab up --slurm 8` with
`$(gftpwb lab status --vars)`: a lab of its own (8 slurmd), its variables from the CLI, the scenario file
untouched."""

import json
import shlex
from pathlib import Path

import pytest
from support.clihelp import gftpwb

from gftpwb.shell.lab.gridftp import free_port

pytestmark = [pytest.mark.real, pytest.mark.slow]
ROOT = Path(__file__).resolve().parent.parent


def test_the_shipped_slurm_smallfile_scenario_runs_on_the_lab(tmp_path):
    state = str(tmp_path / "lab")
    try:
        up = gftpwb("lab", "up", "--slurm", "8", "--state-dir", state, "--port", str(free_port()), timeout=300)
        assert up.returncode == 0, up.stderr
        variables = gftpwb("lab", "status", "--vars", "--state-dir", state)
        assert variables.returncode == 0, variables.stderr
        out = gftpwb("run", str(ROOT / "scenarios" / "slurm-smallfile.yaml"), *shlex.split(variables.stdout),
                     "--results", str(tmp_path / "r"), timeout=900)
        assert out.returncode == 0, out.stdout + out.stderr
        found = [json.loads(line) for line in (tmp_path / "r" / "results.jsonl").read_text().splitlines()]
        assert [(r["test_id"], r["status"]) for r in found] == [("create", "passed"), ("read", "passed"),
                                                                ("delete", "passed")]
        for record in found:
            gfapi = record["details"]["gfapi"]
            assert sorted(gfapi["hosts"]) == sorted(f"node{i}" for i in range(1, 9))
            assert gfapi["cluster"]["files"] == 8 * 4 * 1000
            assert gfapi["start_skew_ms"] is not None
            # whether each run was long enough for its start skew is judged, and a run that was not says so
            verdict = gfapi["timing"]["last_done"]
            assert verdict["too_short"] == (verdict["share_pct"] > gfapi["timing"]["limit_pct"])
        assert (tmp_path / "lab" / "gftpwb-slurm-smallfile" / "node8").is_dir()  # the lab's own directory
        report = gftpwb("report", str(tmp_path / "r"))
        assert "node1=n1, node2=n2, node3=n3, node4=n4, node5=n5, node6=n6, node7=n7, node8=n8" in report.stdout
        short = sum(r["details"]["gfapi"]["timing"]["last_done"]["too_short"] for r in found)
        assert ("too short to publish" in report.stdout) == bool(short), report.stdout
    finally:
        down = gftpwb("lab", "down", "--state-dir", state, timeout=300)
        assert down.returncode == 0, down.stderr
