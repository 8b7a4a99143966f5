"""docs/live-results.md's scheduled set-up, held to the real tools: its scenario validates, its
service's command line is gftpwb's, promtool accepts its Prometheus configuration and alert rules, and
``promtool test rules`` fires the alerts on the series gftpwb pushes."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest
from support.clihelp import gftpwb

from gftpwb.cli.parser import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "live-results.md"
pytestmark = pytest.mark.real  # promtool


def doc_files() -> dict[str, str]:
    """The files the page shows, by the name in the comment before each block."""
    text = DOC.read_text()
    return {m.group(1): m.group(2) for m in re.finditer(r"<!-- file: (\S+) -->\n```\w*\n(.*?)```", text, re.S)}


@pytest.fixture
def files(tmp_path) -> Path:
    for name, body in doc_files().items():
        (tmp_path / name).write_text(body)
    return tmp_path


def test_the_page_shows_every_file_of_the_setup():
    assert set(doc_files()) == {"hourly.yaml", "gftpwb-hourly.service", "gftpwb-hourly.timer", "prometheus.yml",
                                "gftpwb-alerts.yml"}


def test_the_scenario_validates_and_the_service_runs_gftpwb(files):
    out = gftpwb("validate", str(files / "hourly.yaml"))
    assert out.returncode == 0 and not out.stderr, out.stderr
    (exec_start,) = re.findall(r"^ExecStart=(.*)$", (files / "gftpwb-hourly.service").read_text(), re.M)
    argv = shlex.split(exec_start)
    assert argv[0].endswith("/bin/gftpwb")
    args = build_parser().parse_args(argv[1:])
    assert args.pushgateway == "http://127.0.0.1:9091" and args.scenario == "scenarios/hourly.yaml"
    cron = [line for line in DOC.read_text().splitlines() if line.startswith("0 * * * * ")]
    assert len(cron) == 1 and shlex.split(cron[0])[9:-3] == argv[1:]  # the cron line runs the same


def promtool(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["promtool", *args], capture_output=True, text=True)


def test_promtool_accepts_the_configuration_and_the_rules(files):
    rules = promtool("check", "rules", str(files / "gftpwb-alerts.yml"))
    assert rules.returncode == 0 and "SUCCESS: 3 rules found" in rules.stdout, rules.stdout + rules.stderr
    config = promtool("check", "config", str(files / "prometheus.yml"))
    assert config.returncode == 0, config.stdout + config.stderr




def test_promtool_fires_the_alerts_on_the_series_gftpwb_pushes(files):
    (files / "tests.yml").write_text((ROOT / "tests" / "data" / "live-results" / "alerts.test.yml").read_text())
    out = promtool("test", "rules", str(files / "tests.yml"))
    assert out.returncode == 0 and "SUCCESS" in out.stdout, out.stdout + out.stderr
