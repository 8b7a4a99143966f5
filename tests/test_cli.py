"""The CLI as users meet it: exit codes, messages without tracebacks, results layout, resume."""

import json
import os
import shutil
import textwrap

from support.clihelp import gftpwb

SCENARIO = textwrap.dedent("""\
    version: 1
    name: clitest
    defaults: {source: "ftp://fake/dev/zero", target: "ftp://fake/dev/null", options: {length: 3M}}
    tests:
      - {id: a, kind: guc, repeat: 2, comment: "#first"}
      - {id: b, kind: guc, matrix: {parallel: [1, 4]}}
""")


def write(tmp_path, text=SCENARIO, name="s.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_dry_run_prints_commands(tmp_path):
    out = gftpwb("run", write(tmp_path), "--dry-run")
    assert out.returncode == 0
    assert out.stdout.splitlines() == [
        "a/0: globus-url-copy -len 3M ftp://fake/dev/zero ftp://fake/dev/null",  # no -vb: it would make it MODE E
        "a/1: globus-url-copy -len 3M ftp://fake/dev/zero ftp://fake/dev/null",
        "b[1]/0: globus-url-copy -vb -p 1 -len 3M ftp://fake/dev/zero ftp://fake/dev/null",  # cases #001, #002
        "b[2]/0: globus-url-copy -vb -p 4 -len 3M ftp://fake/dev/zero ftp://fake/dev/null",
    ]


def test_run_writes_the_results_directory(tmp_path, fake_guc):
    results = tmp_path / "out"
    out = gftpwb("run", write(tmp_path), "--results", str(results), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    names = sorted(os.listdir(results))
    assert names == [".gftpwb.lock", "clitest_#000_000.log", "clitest_#000_001.log", "clitest_#001_000.log",
                     "clitest_#002_000.log",
                     "meta.json", "plan.json", "results.jsonl", "samples.jsonl", "scenario.yaml"]
    records = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    assert [r["run_id"] for r in records] == ["a/0", "a/1", "b[1]/0", "b[2]/0"]
    first = records[0]
    assert first["status"] == "passed" and first["bytes"] == 3 * 1048576 and first["comment"] == "#first"
    assert first["argv"] == ["globus-url-copy", "-len", "3M", "ftp://fake/dev/zero", "ftp://fake/dev/null"]
    assert first["details"] == {"mode": "stream", "live_progress": False, "vb_added": False, "guc_avg_quantised": True,
                                "size_from": "-len"}
    assert records[2]["details"] == {"mode": "extended", "live_progress": True, "vb_added": True,
                                     "guc_avg_quantised": True, "size_from": "-len"}
    assert first["rate_guc_avg_mib_s"] == 300.0 and first["rate_incl_setup_mib_s"] > 0
    assert first["started_at"].endswith("+00:00") and first["seconds"] > 0
    assert (results / "scenario.yaml").read_text() == SCENARIO
    assert "MB and MiB both mean 2^20 bytes" in out.stdout
    assert "4 passed of 4 planned" in out.stdout


def test_default_results_dir_is_timestamped(tmp_path, fake_guc):
    out = gftpwb("run", write(tmp_path), "--only", "b", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    (name,) = os.listdir(tmp_path / "results")
    assert name.endswith("Z-clitest") and len(name) == len("20261122T003846Z-clitest")


def test_failed_runs_exit_1(tmp_path, fake_guc):
    out = gftpwb("run", write(tmp_path), "--only", "a", "--results", str(tmp_path / "r"),
                 env={"FAKE_GUC_MODE": "fail"})
    assert out.returncode == 1
    assert "FAILED a/0" in out.stdout and "Unable to connect" in out.stdout


def test_unknown_only_id_is_a_usage_error(tmp_path):
    out = gftpwb("run", write(tmp_path), "--only", "nope")
    assert out.returncode == 2
    assert out.stderr.strip() == "gftpwb: unknown test id 'nope'; clitest has: a, b"


def test_invalid_scenario_exit_2_without_traceback(tmp_path):
    path = write(tmp_path, "version: 1\nname: x\ntests:\n  - {id: a, kind: guc, source: s, target: t, bogus: 1}\n")
    out = gftpwb("run", path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith(f"{path}:4:46: unknown key 'bogus'")


def test_missing_guc_is_an_environment_problem(tmp_path):
    out = gftpwb("run", write(tmp_path), env={"PATH": "/nonexistent"})
    assert out.returncode == 3
    assert "globus-url-copy not found in PATH" in out.stderr and "Traceback" not in out.stderr


def test_existing_results_are_never_overwritten(tmp_path, fake_guc):
    results = str(tmp_path / "r")
    assert gftpwb("run", write(tmp_path), "--only", "a", "--results", results).returncode == 0
    again = gftpwb("run", write(tmp_path), "--only", "a", "--results", results)
    assert again.returncode == 2 and "already holds results; use --resume" in again.stderr


def test_resume_refuses_a_changed_plan(tmp_path, fake_guc):
    results = str(tmp_path / "r")
    assert gftpwb("run", write(tmp_path), "--results", results).returncode == 0
    changed = write(tmp_path, SCENARIO.replace("repeat: 2", "repeat: 3"))
    out = gftpwb("run", changed, "--resume", results)
    assert out.returncode == 5 and "plan changed" in out.stderr


def test_resume_of_a_complete_run_runs_nothing(tmp_path, fake_guc):
    results = str(tmp_path / "r")
    assert gftpwb("run", write(tmp_path), "--results", results).returncode == 0
    meta = (tmp_path / "r" / "meta.json").read_bytes()
    out = gftpwb("run", write(tmp_path), "--resume", results)
    assert out.returncode == 0, out.stderr
    assert "0 run(s) (4 already done, resuming)" in out.stdout
    assert len((tmp_path / "r" / "results.jsonl").read_text().splitlines()) == 4
    assert (tmp_path / "r" / "meta.json").read_bytes() == meta  # no "resumed" entry for an attempt that ran nothing


def finished_and_interrupted(tmp_path):
    """Under base/: a finished run of the scenario copied in (newer on disk, older by its own start
    time) and a run made with --results base/mine that a crash left with two runs of four."""
    base = tmp_path / "base"
    assert gftpwb("run", write(tmp_path), "--results", str(tmp_path / "done")).returncode == 0
    assert gftpwb("run", write(tmp_path), "--results", str(base / "mine")).returncode == 0
    journal = base / "mine" / "results.jsonl"
    journal.write_text("".join(journal.read_text().splitlines(keepends=True)[:2]))
    backdate(tmp_path / "done", "2026-01-01T00:00:00+00:00")
    shutil.copytree(tmp_path / "done", base / "20260101T000000Z-clitest")  # copied last: newest on disk
    return base


def backdate(directory, created_at):
    meta = json.loads((directory / "meta.json").read_text())
    (directory / "meta.json").write_text(json.dumps({**meta, "created_at": created_at}, indent=1) + "\n")


def test_bare_resume_continues_the_newest_run_with_runs_left_never_a_finished_one(tmp_path, fake_guc):
    base = finished_and_interrupted(tmp_path)
    finished = base / "20260101T000000Z-clitest"
    meta = (finished / "meta.json").read_bytes()
    out = gftpwb("run", write(tmp_path), "--results-base", str(base), "--resume", env={"COLUMNS": "400"})
    assert out.returncode == 0, out.stderr
    assert f"2 run(s) (2 already done, resuming) -> {base / 'mine'}" in out.stdout
    assert len((base / "mine" / "results.jsonl").read_text().splitlines()) == 4
    assert (finished / "meta.json").read_bytes() == meta


def test_bare_resume_when_every_run_is_finished_says_so_and_touches_nothing(tmp_path, fake_guc):
    base = finished_and_interrupted(tmp_path)
    assert gftpwb("run", write(tmp_path), "--results-base", str(base), "--resume").returncode == 0
    backdate(base / "mine", "2026-06-01T00:00:00+00:00")  # the newest by its start time, older on disk
    metas = {d.name: (d / "meta.json").read_bytes() for d in base.iterdir()}
    out = gftpwb("run", write(tmp_path), "--results-base", str(base), "--resume")
    assert out.returncode == 2, out.stderr
    assert "nothing to resume: every run of clitest under" in out.stderr
    assert f"the newest, {base / 'mine'} (started 2026-06-01T00:00:00+00:00), holds all its 4 run(s), and " \
           "nothing is left to run" in " ".join(out.stderr.split())
    assert "Traceback" not in out.stderr
    assert {d.name: (d / "meta.json").read_bytes() for d in base.iterdir()} == metas


def test_resume_without_anything_to_resume(tmp_path):
    out = gftpwb("run", write(tmp_path), "--resume", cwd=tmp_path)
    assert out.returncode == 2 and "nothing to resume" in out.stderr


def test_a_files_directory_the_server_cannot_reach_is_refused_before_anything_runs(tmp_path, fake_guc):
    """The preflight looks at every directory above the test files (here on this machine) before any run."""
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    closed.chmod(0o700)
    path = write(tmp_path, textwrap.dedent(f"""\
        version: 1
        name: clitest
        tests:
          - {{id: mem, kind: guc, source: "ftp://fake/dev/zero", target: "ftp://fake/dev/null",
             options: {{length: 1M}}}}
          - id: disk
            kind: guc
            source: file://{closed}/src/
            target: ftp://localhost:2811/var/tmp/gftpwb-clitest-never/
            files: {{size: 64K}}
    """))
    out = gftpwb("run", path, "--results", str(tmp_path / "r"))
    assert out.returncode == 3, out.stdout + out.stderr
    assert out.stderr == (
        f"gftpwb: test 'disk', source: {closed} on local is mode 0700 (owner root): other users cannot pass through "
        "it, and the GridFTP server may run the transfer as another user (the lab's servers run it as nobody), which "
        f"gets \"Permission denied\"; run `chmod o+x {closed}` on local, or put the test files under a directory "
        "every user can reach (such as /var/tmp/gftpwb); the transfer was not started\n")
    # refused before anything: no results directory, no guc (not even the memory test's), nothing made
    assert not (tmp_path / "r").exists() and not (tmp_path / "argv.log").exists()
    assert list(closed.iterdir()) == [] and not os.path.exists("/var/tmp/gftpwb-clitest-never")
