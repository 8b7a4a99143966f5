"""The xrootd and http kinds against the real xrootd the lab starts (root:// and http:// with TPC):
on loopback, and scenarios/protocols.yaml as shipped on namespace hosts (a GridFTP server and an
xrootd on each) with small sizes; a timeout leaves no xrdcp behind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gftpwb.shell.lab.gridftp import GridftpLab, free_port
from gftpwb.shell.lab.netlab import NetLab
from gftpwb.shell.lab.xrootd import XrootdLab

pytestmark = [pytest.mark.real, pytest.mark.slow]
GFTPWB = [sys.executable, "-m", "gftpwb"]
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def xrootd_lab(tmp_path_factory: pytest.TempPathFactory):
    """The lab's loopback xrootd and GridFTP server in a state directory of their own (free ports)."""
    state = str(tmp_path_factory.mktemp("xrootd-lab"))
    gridftp = GridftpLab(state)
    ftp = gridftp.up(port=free_port())
    lab = XrootdLab(state)
    try:
        lab.up()
        yield lab.server(), ftp
    finally:
        lab.down()
        gridftp.down()


def run(args: list[str], tmp_path: Path, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GFTPWB_NO_HISTORY": "1"}
    return subprocess.run([*GFTPWB, *args], capture_output=True, text=True, timeout=timeout, cwd=tmp_path, env=env)


def scenario(tmp_path: Path, text: str) -> str:
    path = tmp_path / "s.yaml"
    path.write_text("version: 1\nname: p\ntests:\n" + text)
    return str(path)


def journal(results: Path) -> list[dict]:
    return [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines() if line.strip()]


def test_download_upload_and_third_party_copies_on_loopback(xrootd_lab, tmp_path):
    server, ftp = xrootd_lab
    base = f"/dev/shm/gftpwb-test-{os.getpid()}"
    root, http = f"root://127.0.0.1:{server.root_port}/", f"http://127.0.0.1:{server.http_port}"
    text = f"""\
  - id: xr-down
    kind: xrootd
    source: {root}{base}/a/
    target: {base}/b/
    files: {{size: 8M, content: sparse}}
    matrix: {{streams: [1, 2]}}
    options: {{page_checksums: false, checksum: adler32}}
    timeout: 60s
  - id: xr-tpc
    kind: xrootd
    source: {root}{base}/c/
    target: {root}{base}/d/
    files: {{size: 8M, content: sparse}}
    options: {{tpc: only}}
    timeout: 120s
  - id: http-up
    kind: http
    source: {base}/e/
    target: {http}{base}/f/
    files: {{size: 8M, content: random, count: 2, verify: checksum}}
    timeout: 60s
  - id: http-tpc
    kind: http
    source: {http}{base}/g/
    target: {http}{base}/h/
    files: {{size: 8M, content: sparse}}
    matrix: {{copy_mode: [pull, push]}}
    timeout: 120s
  - id: gridftp
    kind: guc
    source: file://{base}/i/
    target: {ftp.url}{base}/j/
    files: {{size: 8M, content: sparse}}
"""
    results = tmp_path / "results"
    done = run(["run", scenario(tmp_path, text), "--results", str(results), "--progress", "never"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    records = [r for r in journal(results) if r.get("run_id")]
    by_test = {(r["test_id"], r["status"]) for r in records}
    assert {t for t, status in by_test if status == "passed"} >= {"xr-down", "xr-tpc", "http-up", "http-tpc",
                                                                   "gridftp"}, by_test
    assert all(r["status"] == "passed" for r in records)
    modes = {r["test_id"]: r["details"]["mode"] for r in records if r["kind"] in ("xrootd", "http")}
    assert modes == {"xr-down": "download", "xr-tpc": "third-party", "http-up": "upload", "http-tpc": "third-party"}
    assert all(r["bytes"] > 0 and r["rate_incl_setup_mib_s"] > 0 for r in records)
    assert "Protocols on the same path" in done.stdout
    assert "XRootD copies" in done.stdout and "HTTP copies" in done.stdout  # each kind's cases, as guc's
    report = run(["report", str(results), "--json"], tmp_path)
    tables = json.loads(report.stdout)["directories"][0]["tables"]
    protocols = {row["protocol"] for row in tables["protocols"]}
    assert protocols == {"GridFTP", "XRootD", "HTTP"}
    assert not os.path.exists(base + "/b/gftpwb-file-0000")  # the files were removed
    shutil.rmtree(base, ignore_errors=True)


def test_a_timeout_stops_xrdcp_and_leaves_nothing(xrootd_lab, tmp_path):
    server, _ = xrootd_lab
    base = f"/dev/shm/gftpwb-test-slow-{os.getpid()}"
    text = f"""\
  - id: slow
    kind: xrootd
    source: root://127.0.0.1:{server.root_port}/{base}/a/
    target: {base}/b/
    files: {{size: 64M, content: sparse}}
    options: {{rate_limit: 1M}}
    timeout: 2s
"""
    results = tmp_path / "results"
    done = run(["run", scenario(tmp_path, text), "--results", str(results), "--progress", "never"], tmp_path)
    assert done.returncode != 0
    (record,) = [r for r in journal(results) if r.get("run_id")]
    assert record["status"] == "timeout" and "xrdcp" in record["error"]
    left = subprocess.run(["pgrep", "-f", f"xrdcp.*{base}"], capture_output=True, text=True)
    assert left.stdout == "", left.stdout


def test_auto_tunes_of_xrdcp_and_gfal_copy_pick_from_their_own_options(xrootd_lab, tmp_path):
    server, _ = xrootd_lab
    base = Path(f"/dev/shm/gftpwb-test-tune-{os.getpid()}")
    base.mkdir(mode=0o777, exist_ok=True)
    base.chmod(0o777)  # xrootd writes as nobody
    (base / "src.bin").write_bytes(os.urandom(1 << 20) * 8)
    root, http = f"root://127.0.0.1:{server.root_port}/", f"http://127.0.0.1:{server.http_port}"
    text = f"""\
  - id: xt
    kind: autotune
    transfers: xrootd
    source: {base}/src.bin
    target: {root}{base}/x.bin
    length: 8M
    candidates: {{streams: [1, 2], page_checksums: [false]}}
    repetitions: 2
    margin: 0.1MB/s
    timeout: 60s
  - id: ht
    kind: autotune
    transfers: http
    source: {base}/src.bin
    target: {http}{base}/h.bin
    length: 8M
    candidates: [{{streams: 1}}, {{streams: 2}}]
    strategy: adaptive
    budget: 6
    margin: 0.1MB/s
    timeout: 60s
"""
    results = tmp_path / "results"
    try:
        done = run(["run", scenario(tmp_path, text), "--results", str(results), "--progress", "never"], tmp_path)
    finally:
        for name in ("src.bin", "x.bin", "h.bin"):
            (base / name).unlink(missing_ok=True)
        base.rmdir()
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    records = [r for r in journal(results) if r.get("run_id")]
    tunes = {r["test_id"]: r for r in records if r["kind"] == "autotune"}
    copies = [r for r in records if r["kind"] in ("xrootd", "http")]
    assert all(r["status"] == "passed" for r in records)
    assert sorted(r["run_id"] for r in copies if r["test_id"] == "xt") == ["xt#1/0", "xt#1/1", "xt#2/0", "xt#2/1"]
    assert all(r["bytes"] == 8 << 20 and r["rate_incl_setup_mib_s"] > 0 for r in copies)
    assert {r["kind"] for r in copies if r["test_id"] == "ht"} == {"http"}
    pick = tunes["xt"]["details"]["pick"]["params"]
    assert pick in ("streams=1 page_checksums=false", "streams=2 page_checksums=false")
    assert tunes["xt"]["details"]["tgftp_line"] == ""
    assert f"xt: best xrootd parameters:\n{pick}\n" in done.stdout
    assert tunes["ht"]["details"]["pick"]["params"] in ("streams=1", "streams=2")


@pytest.fixture(scope="module")
def protocol_hosts(tmp_path_factory: pytest.TempPathFactory):
    """Two namespace hosts, each with a GridFTP server and an xrootd (the lab's code)."""
    state = str(tmp_path_factory.mktemp("protocols-lab"))
    hosts = NetLab(state)
    lab = XrootdLab(state)
    try:
        hosts.up(2, gridftp_on_hosts=True)
        lab.up(hosts=hosts.status()["hosts"])
        yield state
    finally:
        lab.down()
        hosts.down()


def test_the_shipped_protocols_scenario_runs_on_the_lab(protocol_hosts, tmp_path):
    from gftpwb.cli.lab import lab_vars

    state = protocol_hosts
    net = NetLab(state).status()
    args = lab_vars(state, net).replace("'", "").split()
    results = tmp_path / "results"
    memory, disk = f"/dev/shm/gftpwb-test-protocols-{os.getpid()}", f"/var/tmp/gftpwb-test-protocols-{os.getpid()}"
    try:
        done = run(["run", str(ROOT / "scenarios" / "protocols.yaml"), *args, "--set", "repeat=1", "--set",
                    "streams=[1, 2]", "--set", "size=8M", "--set", "baseline_duration=2s", "--set", f"memory={memory}",
                    "--set", f"disk={disk}", "--results", str(results), "--progress", "never"], tmp_path, timeout=900)
    finally:
        shutil.rmtree(memory, ignore_errors=True)
        shutil.rmtree(disk, ignore_errors=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    records = [r for r in journal(results) if r.get("run_id")]
    assert records and all(r["status"] == "passed" for r in records)
    assert {r["kind"] for r in records} == {"guc", "xrootd", "http", "iperf3"}
    report = run(["report", str(results), "--json"], tmp_path)
    rows = json.loads(report.stdout)["directories"][0]["tables"]["protocols"]
    assert {r["protocol"] for r in rows} == {"GridFTP", "XRootD", "HTTP", "iperf3 (TCP)"}
    assert all(r["efficiency"] is not None for r in rows if r["kind"] != "iperf3" and r["medium"] == "memory"
               and not r["test_id"].endswith("tpc"))
