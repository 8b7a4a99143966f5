"""The TeraGrid study's measurements for real, on a lab of two namespace hosts whose links ``tc tbf``
shapes to 400 Mbit/s, with a GridFTP server on each:

* guc against its iperf3 baseline: a third-party transfer h1 -> h2 with ``baseline: iperf3`` (hosts
  inferred from the URLs); each guc run follows its iperf3 run over the same path with the same
  streams, both are held by the shaper, and the report's efficiency is the ratio of the records' means;
* the shipped scenarios/teragrid-study.yaml, shrunk with --set, runs on it and its report has the
  study's tables (efficiency by streams, memory vs disk with the probe, stripes 1 and 2);
* disk to disk (``files:``): files made on h1, moved to h2, checked (SHA-256), removed, after a disk
  probe of both ends (the gfapi kind's POSIX worker); a transfer that delivers short files fails its
  verification."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gftpwb.core.records import PASSED, parse_journal
from gftpwb.kinds.guc.efficiency import disk_comparisons, limit_text
from gftpwb.shell.lab.gridftp import free_port
from gftpwb.shell.results_index import read_directory

pytestmark = pytest.mark.real
GFTPWB = [sys.executable, "-m", "gftpwb"]
ROOT = Path(__file__).resolve().parent.parent
SHAPED_MIB_S = 400e6 / 8 / 2**20  # 47.7 MiB/s: what tbf lets through


def gftpwb(*args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GFTPWB, *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "COLUMNS": "220"})


@pytest.fixture(scope="module")
def shaped_lab(tmp_path_factory):
    state = tmp_path_factory.mktemp("shaped")
    up = gftpwb("lab", "up", "--state-dir", str(state), "--port", str(free_port()), "--hosts", "2", "--rate",
                "400mbit", "--gridftp-on-hosts", "--striped")
    assert up.returncode == 0, up.stderr
    yield state
    gftpwb("lab", "down", "--state-dir", str(state))


def addresses(state: Path) -> tuple[str, str]:
    hosts = json.loads(gftpwb("lab", "status", "--state-dir", str(state), "--json").stdout)["hosts"]
    h1, h2 = (h["address"] for h in hosts["hosts"])
    return h1, h2


def write_scenario(state: Path, tmp_path: Path, tests: str) -> Path:
    """A scenario of ``tests`` (YAML text) on the lab's hosts (its inventory)."""
    inventory = "".join(line for line in (state / "hosts.yaml").read_text().splitlines(keepends=True)
                        if not line.startswith("#"))
    scenario = tmp_path / "study.yaml"
    scenario.write_text(f"version: 1\nname: study\n{inventory}tests:\n{tests}")
    return scenario


def run_scenario(state: Path, tmp_path: Path, tests: str, *, expect: int = 0) -> tuple[list, Path]:
    """Run a scenario of ``tests`` (YAML text) on the lab's hosts; (records, results directory)."""
    scenario = write_scenario(state, tmp_path, tests)
    results = tmp_path / "results"
    run = gftpwb("run", str(scenario), "--results", str(results))
    assert run.returncode == expect, run.stdout + run.stderr
    records, problems = parse_journal((results / "results.jsonl").read_text())
    assert problems == []
    return records, results


def test_guc_runs_follow_their_iperf3_baseline_and_the_report_gives_the_efficiency(shaped_lab, tmp_path):
    h1, h2 = addresses(shaped_lab)
    records, results = run_scenario(shaped_lab, tmp_path,
                                    "  - id: eff\n    kind: guc\n"
                                    f"    source: ftp://{h1}:2811/dev/zero\n    target: ftp://{h2}:2811/dev/null\n"
                                    "    options: {length: 60M}\n    matrix: {parallel: [1, 2]}\n    repeat: 2\n"
                                    "    timeout: 60s\n    baseline: {duration: 1s, timeout: 30s}\n")
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
        table = report.stdout.split("guc vs iperf3 baseline", 1)[1].splitlines()
        row = next(line for line in table if re.search(rf"│ eff\s+│ 00{case} │.*│ +{case + 1} │", line))
        assert expected in row, (expected, row)
        # two pairs are too few for an interval of the ratio (three a side): the column says so, none is made up
        assert re.search(rf"{re.escape(expected)} │ +- │", row) and not re.search(r"\[\d+\.\d, \d+\.\d\] %", row)


@pytest.fixture
def open_dir():
    """A directory the lab's GridFTP servers (anonymous user nobody) can reach: pytest's are root's only."""
    path = Path(tempfile.mkdtemp(prefix="gftpwb-d2d-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_disk_to_disk_files_are_made_moved_verified_and_removed(shaped_lab, tmp_path, open_dir):
    h1, h2 = addresses(shaped_lab)
    base = open_dir
    (base / "gate").mkdir(mode=0o755)  # open at the preflight; closed by the run's own pre command
    (base / "gate").chmod(0o755)
    records, results = run_scenario(shaped_lab, tmp_path, f"""\
  - id: mem
    kind: guc
    source: ftp://{h1}:2811/dev/zero
    target: ftp://{h2}:2811/dev/null
    options: {{length: 16M, parallel: 2}}
  - id: disk
    kind: guc
    source: ftp://{h1}:2811{base}/src/
    target: ftp://{h2}:2811{base}/dst/
    options: {{parallel: 2}}
    files: {{size: 4M, count: 4, verify: checksum, drop_caches: true, probe: true}}
  - id: short
    kind: guc
    source: file://{base}/src2/
    target: ftp://{h2}:2811{base}/deep/er/dst2/
    extra_args: [-len, "1000"]
    files: {{size: 64K, count: 2, transfer: list, content: sparse}}
  - id: closed
    kind: guc
    source: ftp://{h1}:2811{base}/src3/
    target: ftp://{h2}:2811{base}/gate/dst3/
    pre: [chmod, "700", "{base}/gate"]
    files: {{size: 64K, count: 1}}
""", expect=1)
    mem, *probe, disk, short, closed = records
    assert (mem.status, disk.status, short.status, closed.status) == (PASSED, PASSED, "failed", "failed")
    # the in-run check, the safety net: gate was closed after the preflight, so the servers (nobody) could not
    # reach dst3; said before guc runs, and the target side made nothing
    assert closed.error.startswith(f"{base}/gate on h2 is mode 0700 (owner root): other users cannot pass through "
                                   "it") and closed.error.endswith("the transfer was not started")
    assert list((base / "gate").iterdir()) == []
    assert not Path(f"{base}/src3").exists()  # the source side's files and directory: removed again
    assert not Path(f"{base}/deep").exists()  # the parents mkdir -p made for dst2: removed with it
    # the disk probe: the gfapi kind's POSIX worker, 2 O_DIRECT threads (the streams) on each end, first
    assert [(r.run_id, r.kind, r.host, r.status) for r in probe] == [
        (f"disk/probe/{step}", "gfapi", host, PASSED) for step, host in (
            ("source-write", "h1"), ("source-read", "h1"), ("source-clean", "h1"), ("target-write", "h2"),
            ("target-clean", "h2"))]
    assert "--direct" in probe[1].argv and probe[1].params["threads"] == 2
    assert probe[1].details["gfapi"]["cluster"]["last_done"]["mib_s"] > 0
    assert not Path(f"{base}/src.gftpwb-probe").exists() and not Path(f"{base}/dst.gftpwb-probe").exists()
    info = disk.details["files"]
    assert (info["source_host"], info["target_host"], info["verified"], info["cleaned_up"]) == (
        "h1", "h2", "checksum", True)
    assert info["caches"] == {"h1": "dropped", "h2": "dropped"}  # root in the lab
    assert disk.bytes == 16 << 20 and tuple(disk.argv[-4:]) == ("-cd", "-r", f"ftp://{h1}:2811{base}/src/",
                                                         f"ftp://{h2}:2811{base}/dst/")
    # -len 1000 made guc copy 1000 bytes of each file: the run fails on the files, not on guc
    assert short.error == ("the files arrived wrong: gftpwb-file-0000: 1000 bytes on the target, 65536 expected; "
                           "gftpwb-file-0001: 1000 bytes on the target, 65536 expected")
    assert short.argv[-2] == "-f" and short.details["files"]["cleaned_up"] is True
    assert not any(base.glob("*/gftpwb-file-*")) and not Path(short.argv[-1]).exists()  # nothing left behind
    report = gftpwb("report", str(results))
    row = next(line for line in report.stdout.splitlines() if "4 x 4 MiB random, h1 -> h2, caches dropped" in line)
    assert row.startswith("│ disk ") and "mem[000]" in row
    # what limits depends on this machine's disk (a fast one leaves the servers' file I/O, a slow one the
    # disk); what holds everywhere: the report says what the probe's and the runs' figures give
    # (test_a_link_slower_than_any_disk_is_what_limits_disk_to_disk builds the case of a known answer)
    (comparison,) = [d for d in disk_comparisons(read_directory(str(results)).cases) if d.disk.test_id == "disk"]
    assert comparison.probe["source-read"] > 0 and comparison.probe["target-write"] > 0
    assert f"│ {comparison.limit}" in row and comparison.limit == limit_text(
        comparison.disk_median, comparison.memory_median, comparison.probe)


SLOW_RATE, SLOW_MIB_S = "32mbit", 32e6 / 8 / 2**20  # 3.8 MiB/s: slower than any disk's O_DIRECT reads and writes
SLOWED_LIMIT = 1.05  # tbf's burst lets a little more through than the rate


@pytest.fixture(scope="module")
def slow_lab(tmp_path_factory):
    """Two namespace hosts with GridFTP servers, their links shaped far below any disk."""
    state = tmp_path_factory.mktemp("slow")
    up = gftpwb("lab", "up", "--state-dir", str(state), "--port", str(free_port()), "--hosts", "2", "--rate",
                SLOW_RATE, "--gridftp-on-hosts")
    assert up.returncode == 0, up.stderr
    yield state
    gftpwb("lab", "down", "--state-dir", str(state))


def test_a_link_slower_than_any_disk_is_what_limits_disk_to_disk(slow_lab, tmp_path, open_dir):
    """The condition built, not found: links shaped to 3.8 MiB/s, so on every machine the network is
    slower than both disks (the probe) and the disk-to-disk run, the memory run's 16 MiB in four
    files, comes within 80 % of the memory-to-memory rate: the network is what limits it."""
    h1, h2 = addresses(slow_lab)
    base = open_dir
    records, results = run_scenario(slow_lab, tmp_path, f"""\
  - id: mem
    kind: guc
    source: ftp://{h1}:2811/dev/zero
    target: ftp://{h2}:2811/dev/null
    options: {{length: 16M, parallel: 2}}
  - id: disk
    kind: guc
    source: ftp://{h1}:2811{base}/src/
    target: ftp://{h2}:2811{base}/dst/
    options: {{parallel: 2}}
    files: {{size: 4M, count: 4, drop_caches: true, probe: true}}
""")
    assert {r.status for r in records} == {PASSED}
    (comparison,) = disk_comparisons(read_directory(str(results)).cases)
    assert comparison.memory_median is not None and comparison.memory_median < SLOWED_LIMIT * SLOW_MIB_S
    disks = (comparison.probe["source-read"], comparison.probe["target-write"])
    assert min(disks) > comparison.memory_median  # the condition: both disks outrun the link
    assert comparison.limit.startswith("network/guc (")
    report = gftpwb("report", str(results))
    row = next(line for line in report.stdout.splitlines() if line.startswith("│ disk ") and "4 x 4 MiB" in line)
    assert f"│ {comparison.limit}" in row


def test_a_directory_the_servers_cannot_reach_refuses_the_scenario_before_any_run(shaped_lab, tmp_path, open_dir):
    """The preflight looks at the directories over SSH on the namespace hosts: pytest's tmp_path is under a
    0700 directory, which the lab's servers (nobody) cannot pass; exit 3, nothing made, nothing run."""
    h1, h2 = addresses(shaped_lab)
    scenario = write_scenario(shaped_lab, tmp_path, f"""\
  - id: mem
    kind: guc
    source: ftp://{h1}:2811/dev/zero
    target: ftp://{h2}:2811/dev/null
    options: {{length: 16M}}
  - id: disk
    kind: guc
    source: ftp://{h1}:2811{open_dir}/src/
    target: ftp://{h2}:2811{tmp_path}/dst/
    files: {{size: 64K, count: 1}}
""")
    run = gftpwb("run", str(scenario), "--results", str(tmp_path / "results"))
    assert run.returncode == 3, run.stdout + run.stderr
    refused = re.fullmatch(r"gftpwb: test 'disk', target: (\S+) on h2 is mode 0700 \(owner root\): other users "
                           r"cannot pass through it, .*; run `chmod o\+x (\S+)` on h2, or put the test files under a "
                           r"directory every user can reach \(such as /var/tmp/gftpwb\); the transfer was not "
                           r"started\n", run.stderr)
    assert refused and refused[1] == refused[2] and f"{tmp_path}/".startswith(refused[1] + "/"), run.stderr
    assert run.stdout == ""  # no run announced, not even the memory test's
    assert not (tmp_path / "results").exists() and not (tmp_path / "dst").exists() and list(open_dir.iterdir()) == []


def test_the_teragrid_study_scenario_runs_on_the_lab(shaped_lab, tmp_path, open_dir):
    lab_vars = gftpwb("lab", "status", "--state-dir", str(shaped_lab), "--vars")
    assert lab_vars.returncode == 0, lab_vars.stderr
    ctrl = json.loads(gftpwb("lab", "status", "--state-dir", str(shaped_lab), "--json").stdout)["hosts"][
        "controller_address"]
    h1, h2 = addresses(shaped_lab)
    assert lab_vars.stdout.split() == ["--lab-var", f"lab={shaped_lab}", "--lab-var", f"ctrl={ctrl}",
                                       "--lab-var", f"src={h1}", "--lab-var", f"dst={h2}"]
    small = {"repeat": 2, "streams": "[1, 2]", "length": "24M", "baseline_duration": "1s", "baseline_omit": "0s",
             "disk_streams": "[2]", "memory_length": "16M", "file_size": "4M", "data": str(open_dir / "data"),
             "striped_length": "96M", "striped2": f"ftp://{ctrl}:2812", "striped2_to": f"ftp://{ctrl}:2813"}
    data = open_dir / "data"
    results = tmp_path / "results"
    run = gftpwb("run", str(ROOT / "scenarios" / "teragrid-study.yaml"), *lab_vars.stdout.split(),
                 *(a for k, v in small.items() for a in ("--set", f"{k}={v}")), "--results", str(results),
                 *(a for t in ("guc-vs-iperf3", "memory", "disk", "striped-1", "striped-2") for a in ("--only", t)))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr
    records, _ = parse_journal((results / "results.jsonl").read_text())
    assert {r.status for r in records} == {PASSED}
    kinds = [r.kind for r in records]
    assert kinds.count("iperf3") == 4 and kinds.count("gfapi") == 5 and kinds.count("guc") == 4 + 2 + 2 + 2 + 2
    stripes = {r.test_id: r.details["stripes"]["count"] for r in records if r.test_id.startswith("striped")}
    assert stripes == {"striped-1": 1, "striped-2": 2}
    assert not list(data.rglob("gftpwb-file-*"))  # the disk runs' files are gone
    report = gftpwb("report", str(results))
    assert report.returncode == 0, report.stderr
    for title in ("guc vs iperf3 baseline", "Memory to memory vs disk to disk", "Striped transfers"):
        assert title in report.stdout
