"""The harness against the real lab: copies of real guc transfers on this machine and on namespace
hosts (N per host), needs and skipped records, Ctrl-C with copies in flight (pgrep finds nothing left,
here and in every namespace), and --resume running only the copies that did not finish."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest
from support.labhosts import netns_of, processes_in, started_by_gftpwb
from support.polling import eventually
from support.processes import guc_processes
from support.results import records

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.plan import plan
from gftpwb.shell.lab.gridftp import free_port
from gftpwb.shell.sinks.aggregates import read_aggregates

pytestmark = pytest.mark.real
GFTPWB = [sys.executable, "-m", "gftpwb"]


def run_cli(*args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*GFTPWB, *args], capture_output=True, text=True, timeout=timeout)


def test_copies_of_real_transfers_run_at_once_and_needs_skip_with_the_reason(tmp_path, gridftp):
    path = tmp_path / "stress.yaml"
    path.write_text(textwrap.dedent(f"""\
        version: 1
        name: stress
        defaults: {{source: "{gridftp.url}/dev/zero", target: "{gridftp.url}/dev/null", timeout: 60s}}
        tests:
          - id: warm-up
            kind: guc
            source: ftp://127.0.0.1:{free_port()}/dev/zero
          - id: upload
            kind: guc
            needs: warm-up
          - id: stress
            kind: guc
            concurrency: 4
            options: {{length: 256M}}
          - id: after
            kind: connection-test
            needs: stress
    """))
    results = tmp_path / "r"
    out = run_cli("run", str(path), "--results", str(results), "--progress", "never")
    assert out.returncode == 1, out.stdout + out.stderr
    got = {r["run_id"]: r for r in records(results)}
    assert got["warm-up/0"]["status"] == "failed"
    assert (got["upload/0"]["status"], got["upload/0"]["error"]) == ("skipped", "needs warm-up, which failed")
    copies = [got[f"stress/0#{c}"] for c in range(4)]
    assert [r["status"] for r in copies] == ["passed"] * 4 and all(r["bytes"] == 256 * 1048576 for r in copies)
    assert max(r["started_at"] for r in copies) < min(r["ended_at"] for r in copies)  # all four at once
    assert got["after/0"]["status"] == "passed"
    (agg,) = read_aggregates(str(results / "aggregates.jsonl"))
    assert agg.group == "stress/0" and agg.copies == 4 and agg.bytes == 1024 * 1048576
    assert agg.rate_sum_mib_s == pytest.approx(sum(r["rate_incl_setup_mib_s"] for r in copies), abs=1e-5)
    assert sorted(p.name for p in results.glob("stress_#002_*.log")) == [
        f"stress_#002_000#{c}.log" for c in range(4)]
    assert guc_processes(str(gridftp.port)) == []


def _seed_with_two_quick_and_two_late_copies(text: str) -> int:
    """A seed whose uniform delays start two copies within 1 s and two after 8 s (the plan is pure, so
    the test can ask it which). The wide gap keeps the test right on a loaded machine."""
    for seed in range(20000):
        specs = plan(load_scenario_text(text.replace("seed: SEED", f"seed: {seed}"), "s.yaml"), ["stress"])
        delays = sorted(s.delay_s for s in specs)
        if delays[1] < 1.0 and delays[2] > 8.0:
            return seed
    raise AssertionError("no seed found")


def test_ctrl_c_with_copies_in_flight_then_resume_runs_only_the_unfinished_copies(tmp_path, gridftp):
    text = textwrap.dedent(f"""\
        version: 1
        name: ctrlc
        seed: SEED
        concurrent_tests: 2
        defaults: {{source: "{gridftp.url}/dev/zero", target: "{gridftp.url}/dev/null"}}
        tests:
          - id: stress
            kind: guc
            concurrency: 4
            delay: {{uniform: [0s, 12s]}}
            options: {{length: 16M}}
            timeout: 60s
          - id: hog
            kind: guc
            concurrency: 2
            timeout: 12s  # long enough for the quick copies to finish first on a loaded machine
    """)
    seed = _seed_with_two_quick_and_two_late_copies(text)
    path = tmp_path / "ctrlc.yaml"
    path.write_text(text.replace("seed: SEED", f"seed: {seed}"))
    results = tmp_path / "r"
    marker = str(gridftp.port)
    proc = subprocess.Popen([*GFTPWB, "run", str(path), "--results", str(results), "--progress", "never"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        def two_copies_done_and_hogs_running() -> bool:
            journal = results / "results.jsonl"
            done = journal.exists() and journal.read_text().count('"status":"passed"') == 2
            return done and len(guc_processes(marker)) >= 2

        eventually(two_copies_done_and_hogs_running, "two copies passed and the hogs running", timeout=30)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stdout + stderr
    assert "Traceback" not in stderr
    first = {r["run_id"]: r for r in records(results)}
    quick = sorted(run_id for run_id, r in first.items() if r["status"] == "passed")
    assert len(quick) == 2 and all(run_id.startswith("stress/0#") for run_id in quick)
    late = sorted(f"stress/0#{c}" for c in range(4) if f"stress/0#{c}" not in quick)
    assert [first[run_id]["error"] for run_id in late] == [
        f"stopped during its {first[run_id]['details']['delay_s']:g}s delay, before it started" for run_id in late]
    assert {first[f"hog/0#{c}"]["status"] for c in (0, 1)} == {"interrupted"}
    # every copy's process group was killed
    eventually(lambda: guc_processes(marker) == [], "every copy's guc gone", detail=lambda: guc_processes(marker))
    assert not (results / "aggregates.jsonl").exists()  # no copy set finished

    out = run_cli("run", str(path), "--resume", str(results), "--progress", "never")
    assert out.returncode == 1, out.stdout + out.stderr  # the hogs time out this time
    second = records(results)[len(first):]
    assert sorted(r["run_id"] for r in second) == sorted([*late, "hog/0#0", "hog/0#1"])
    assert {r["run_id"]: r["status"] for r in second if r["run_id"].startswith("stress")} == dict.fromkeys(
        late, "passed")
    assert {r["status"] for r in second if r["run_id"].startswith("hog")} == {"timeout"}
    aggregates = {a.group: a for a in read_aggregates(str(results / "aggregates.jsonl"))}
    assert aggregates["stress/0"].copies == 4 and aggregates["stress/0"].statuses == {"passed": 4}
    assert aggregates["hog/0"].statuses == {"timeout": 2}
    assert guc_processes(marker) == []


def test_copies_on_namespace_hosts_and_ctrl_c_leaves_nothing_behind(netlab, tmp_path):
    status = netlab.status()
    path = tmp_path / "fan.yaml"
    path.write_text(textwrap.dedent(f"""\
        version: 1
        name: fan
        vars: {{lab: "{netlab.state_dir}"}}
        hosts: {{include: "${{lab}}/hosts.yaml"}}
        tests:
          - id: fan
            kind: guc
            on: [h1, h2]
            concurrency: 3
            source: {status["gridftp"]["url"]}/dev/zero
            target: file:///dev/null
            options: {{length: 32M}}
            timeout: 60s
    """))
    results = tmp_path / "r"
    out = run_cli("run", str(path), "--results", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    got = {r["run_id"]: r for r in records(results)}
    assert sorted(got) == sorted(f"fan/0#{c}@{h}" for c in range(3) for h in ("h1", "h2"))
    assert all(r["status"] == "passed" and r["host"] == r["run_id"].rsplit("@", 1)[1] for r in got.values())
    assert max(r["started_at"] for r in got.values()) < min(r["ended_at"] for r in got.values())
    (agg,) = read_aggregates(str(results / "aggregates.jsonl"))
    assert (agg.group, agg.copies, agg.hosts) == ("fan/0", 6, ["h1", "h2"])
    assert "fan/0 ×6: 6 copies at once" in out.stdout

    silent = __import__("socket").socket()
    silent.bind((status["controller_address"], 0))
    silent.listen(64)
    try:
        path.write_text(path.read_text().replace(f"{status['gridftp']['url']}/dev/zero",
                                                 f"ftp://{status['controller_address']}:{silent.getsockname()[1]}"
                                                 "/dev/zero").replace("concurrency: 3", "concurrency: 2"))
        namespaces = [netns_of(netlab, "h1"), netns_of(netlab, "h2")]
        results = tmp_path / "stopped"
        proc = subprocess.Popen([*GFTPWB, "run", str(path), "--results", str(results), "--progress", "never"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            eventually(lambda: all(sum(c.startswith("globus-url-copy") for _, c in processes_in(ns)) == 2
                                   for ns in namespaces), "two guc running on h1 and on h2", timeout=30)
            proc.send_signal(signal.SIGINT)
            stdout, stderr = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    finally:
        silent.close()
    assert proc.returncode == 130, stdout + stderr
    assert {r["status"] for r in records(results)} == {"interrupted"} and len(records(results)) == 4
    for ns in namespaces:
        eventually(lambda ns=ns: started_by_gftpwb(ns) == [], f"nothing gftpwb started left in {ns}", timeout=5,
                   detail=lambda ns=ns: started_by_gftpwb(ns))


def test_copies_of_a_gfapi_read_after_the_write_it_needs(tmp_path):
    """gfapi (posix mode: the real worker on a local directory, no volume needed) gets needs and copies
    like every kind: two copies read the files the write made, each with its own record and CSV files."""
    data = tmp_path / "data"
    common = f"kind: gfapi, directory: {data}, threads: 2, files: 200, file_size: 8K, record_size: 4K, " \
             "files_per_dir: 50"
    path = tmp_path / "gf.yaml"
    path.write_text(f"version: 1\nname: gf\ntests:\n  - {{id: write, workload: seq-wr, {common}}}\n"
                    f"  - {{id: read, workload: seq-rd, needs: write, concurrency: 2, {common}}}\n")
    results = tmp_path / "r"
    out = run_cli("run", str(path), "--results", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    got = {r["run_id"]: r for r in records(results)}
    assert sorted(got) == ["read/0#0", "read/0#1", "write/0"]
    copies = [got["read/0#0"], got["read/0#1"]]
    assert all(r["status"] == "passed" and r["details"]["gfapi"]["cluster"]["files"] == 400 for r in copies)
    assert max(r["started_at"] for r in copies) < min(r["ended_at"] for r in copies)
    assert sorted(p.name for p in results.iterdir() if p.is_dir()) == ["gf_#000_000", "gf_#001_000#0",
                                                                        "gf_#001_000#1"]
    (agg,) = read_aggregates(str(results / "aggregates.jsonl"))
    assert agg.copies == 2 and agg.bytes == 2 * 400 * 8192  # 200 files per thread, 2 threads, 2 copies
