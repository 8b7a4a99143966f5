"""parallel-libgfapi's users migrating, end to end against the real GlusterFS volume of the lab: their
settings and client list imported as a scenario, run through libgfapi (on this machine, and on two
namespace hosts over SSH as parallel-libgfapi ran on its clients), the run's result.csv imported back
with the settings, then reported and compared with the new run; old results (the real tool's output)
imported and reported; and the command line's errors."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from support.clihelp import gftpwb

pytestmark = [pytest.mark.real, pytest.mark.slow]
DATA = Path(__file__).parent / "data" / "parallel-libgfapi"


def brick_files(gluster, directory: str) -> dict[str, int]:
    root = Path(gluster.brick) / directory.lstrip("/")
    return {str(p.relative_to(root)): p.stat().st_size for p in sorted(root.rglob("f*")) if p.is_file()}


def records(results: Path) -> list[dict]:
    return [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]


def settings_file(tmp_path: Path, gluster, directory: str, extra: str = "") -> Path:
    path = tmp_path / "pgfapi.env"
    path.write_text(f"# parallel-libgfapi, as a user kept it\nexport GFAPI_VOLNAME={gluster.volume}\n"
                    f"export GFAPI_HOSTNAME={gluster.address}\nexport PGFAPI_PROCESSES=2\n"
                    f"export PGFAPI_THREADS_PER_PROC=2\nexport PGFAPI_FILES=20\nexport PGFAPI_FILESIZE=16\n"
                    f"export PGFAPI_RECORDSIZE=4\nexport PGFAPI_TOPDIR={directory}\n{extra}")
    return path


def ok(out) -> str:
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout + out.stderr


def test_imported_settings_run_on_the_volume_and_their_result_csv_comes_back(tmp_path, gluster):
    directory = f"/pgfapi-{uuid.uuid4().hex[:8]}"
    settings = settings_file(tmp_path, gluster, directory)
    (tmp_path / "clients.list").write_text("localhost\n")
    scenario = tmp_path / "pgfapi.yaml"
    said = ok(gftpwb("import", "parallel-libgfapi", str(settings), "--clients", str(tmp_path / "clients.list"),
                     "-o", str(scenario)))
    assert "slept 1000 µs after each file (the launcher's default)" in said and "-> " + str(scenario) in said
    text = scenario.read_text()
    assert "workload: seq-wr" in text and "processes: 2" in text and "hosts:" not in text  # localhost: local

    new = tmp_path / "new"
    ok(gftpwb("run", str(scenario), "--results", str(new), "--progress", "never", timeout=600))
    # what parallel-libgfapi would have written: 1 client x 2 processes x 2 threads x 20 files of 16 KiB
    on_brick = brick_files(gluster, directory)
    assert len(on_brick) == 80 and set(on_brick.values()) == {16384}
    (record,) = records(new)
    assert record["status"] == "passed" and record["details"]["gfapi"]["cluster"]["ios"] == 80 * 4
    result_csv = new / "pgfapi_#000_000" / "result.csv"
    assert result_csv.read_text().startswith("elapsed-sec MBps Files-per-sec I/O-rq-per-sec\n")

    # the run's result.csv in parallel-libgfapi's layout, imported back as parallel-libgfapi results
    old = tmp_path / "old"
    said = ok(gftpwb("import", "libgfapi-results", str(result_csv), "--settings", str(settings), "--clients",
                     str(tmp_path / "clients.list"), "--results", str(old)))
    assert "1 record(s) imported" in said
    (imported,) = records(old)
    assert imported["params"] == record["params"] and imported["test_id"] == record["test_id"] == "seq-wr"
    per_process = [p["last_done"]["mib_s"] for p in record["details"]["gfapi"]["processes"]]
    summed = imported["details"]["gfapi"]["cluster"]["last_done"]["mib_s"]
    assert summed == pytest.approx(sum(round(x, 2) for x in per_process), abs=0.011)
    assert (old / "pgfapi_#000_000" / "result.csv").read_text() == result_csv.read_text()  # the original, kept

    report = ok(gftpwb("report", str(old), env={"COLUMNS": "250"}))
    assert "seq-wr" in report and "1 imported: sums of per-process rates, 1000 µs sleep after each file" in report
    assert any("slept 1000 µs after each file, inside its timed loop" in n
               for n in imported["details"]["gfapi"]["imported"]["notes"])  # what its settings say it did
    compared = ok(gftpwb("compare", str(old), str(new), env={"COLUMNS": "250"}))
    assert "1 compared" in compared and "only in" not in compared
    # measured differently, and said so in the table and under it, and in the JSON
    assert "measured differently" in compared.split("\n1 compared")[0]
    assert ("warning: seq-wr #000: A and B were measured differently" in compared
            and "sleep per file (in the timed loop): A '1000 µs', B 'none'" in compared), compared
    as_json = gftpwb("compare", str(old), str(new), "--json")
    assert as_json.returncode == 0 and "measured differently" in as_json.stderr
    as_json = json.loads(as_json.stdout)
    (case,) = as_json["cases"]
    assert {d["what"] for d in case["measured_differently"]} == {"tool", "aggregate",
                                                                 "sleep per file (in the timed loop)"}


def test_two_clients_over_ssh_from_the_labs_inventory(tmp_path, gluster, netlab):
    directory = f"/pgfapi-{uuid.uuid4().hex[:8]}"
    settings = settings_file(tmp_path, gluster, directory, "export PGFAPI_USEC_DELAY_PER_FILE=0\n")
    (tmp_path / "clients.list").write_text("h1\nh2\n")
    inventory = netlab.status()["inventory"]
    scenario = tmp_path / "pgfapi.yaml"
    said = ok(gftpwb("import", "parallel-libgfapi", str(settings), "--clients", str(tmp_path / "clients.list"),
                     "--hosts-file", inventory, "-o", str(scenario)))
    assert "slept" not in said and "include: " in scenario.read_text() and "on: [h1, h2]" in scenario.read_text()
    results = tmp_path / "results"
    ok(gftpwb("run", str(scenario), "--results", str(results), "--progress", "never", timeout=900))
    on_brick = brick_files(gluster, directory)
    assert len(on_brick) == 160 and {"h1/t000/f0000000", "h2/t003/f0000019"} <= set(on_brick)
    (record,) = records(results)
    assert record["status"] == "passed" and record["host"] == "h1,h2"
    assert set(record["details"]["gfapi"]["hosts"]) == {"h1", "h2"}


def test_the_real_tools_old_results_are_imported_and_reported(tmp_path):
    results = tmp_path / "imported"
    out = gftpwb("import", "libgfapi-results", str(DATA / "seq-wr"), str(DATA / "under-10-files" / "result.csv"),
                 str(DATA / "rnd-rd-ioreq"), str(DATA / "seq-rd-segfault"), "--results", str(results),
                 "--scenario", "old")
    assert out.returncode == 2, out.stdout + out.stderr  # one run could not be read; the others are imported
    assert "seq-rd-segfault/h1.t01.log:" in out.stderr and "give the settings (--settings" in out.stderr
    assert "moved its IOPS into that column" in out.stderr and "3 record(s) imported" in out.stdout
    got = records(results)
    assert [(r["test_id"], r["status"]) for r in got] == [("seq-wr", "passed"), ("seq-wr-2", "passed"),
                                                         ("rnd-rd", "failed")]
    assert sorted(p.name for p in (results / "old_#000_000").iterdir()) == [
        "h1.t01.log", "h1.t02.log", "h2.t01.log", "h2.t02.log", "result.csv"]
    meta = json.loads((results / "meta.json").read_text())
    assert meta["imported"] is True and meta["runs"] == 3
    report = ok(gftpwb("report", str(results), env={"COLUMNS": "250"}))  # a width the notes fit on one line
    assert "3288" in report and "sums of per-process rates" in report


@pytest.mark.parametrize(("args", "message"), [
    (["parallel-libgfapi", "nosuch.env", "--clients", "nosuch.list"], "cannot read settings nosuch.env"),
    (["parallel-libgfapi", "{settings}"], "no client list: clients.list (the list the launcher reads)"),
    (["parallel-libgfapi", "{bad}", "--clients", "{clients}"], "PGFAPI_LOAD=sequential is not a workload"),
    (["libgfapi-results"], "needs at least one log directory"),
    (["libgfapi-results", "{nothing}"], "no such file or directory"),
    (["parallel-libgfapi", "{settings}", "--clients", "{clients}", "--scenario", "no way"], "not a valid scenario"),
])
def test_mistakes_are_said_plainly_with_exit_code_2(tmp_path, args, message):
    settings = tmp_path / "ok.env"
    settings.write_text("export GFAPI_VOLNAME=v\nexport GFAPI_HOSTNAME=s\nexport PGFAPI_FILES=3\n")
    bad = tmp_path / "bad.env"
    bad.write_text("export GFAPI_VOLNAME=v\nexport GFAPI_HOSTNAME=s\nexport PGFAPI_LOAD=sequential\n")
    clients = tmp_path / "c.list"
    clients.write_text("c1\n")
    names = {"settings": settings, "bad": bad, "clients": clients, "nothing": tmp_path / "nothing"}
    out = gftpwb("import", *(a.format(**names) for a in args), cwd=tmp_path)
    assert out.returncode == 2 and message in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(("rows", "where", "message"), [
    ("1.2 3.4 abc 500.0\n", "result.csv:2:9", "Files-per-sec 'abc' is not a number"),
    ("", "result.csv:1:1", "no result rows under the header"),
])
def test_a_result_csv_it_cannot_read_is_an_error_at_its_line(tmp_path, rows, where, message):
    settings = tmp_path / "ok.env"
    settings.write_text("export GFAPI_VOLNAME=v\nexport GFAPI_HOSTNAME=s\nexport PGFAPI_FILES=3\n")
    (tmp_path / "c.list").write_text("c1\n")
    run = tmp_path / "run"
    run.mkdir()
    (run / "result.csv").write_text("elapsed-sec MBps Files-per-sec I/O-rq-per-sec\n" + rows)
    out = gftpwb("import", "libgfapi-results", str(run / "result.csv"), "--settings", str(settings), "--clients",
                 str(tmp_path / "c.list"), "--results", str(tmp_path / "imported"), cwd=tmp_path)
    assert out.returncode == 2 and f"{run}/{where}: {message}" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "imported" / "results.jsonl").exists()


def test_settings_from_the_environment(tmp_path):
    (tmp_path / "clients.list").write_text("c1\nc2\n")
    out = gftpwb("import", "parallel-libgfapi", cwd=tmp_path,
                 env={"GFAPI_VOLNAME": "v", "GFAPI_HOSTNAME": "s", "PGFAPI_LOAD": "seq-rd", "PGFAPI_FILES": "7"})
    assert out.returncode == 0, out.stderr
    assert "files: 7" in out.stdout and "workload: seq-rd" in out.stdout and "on: [c1, c2]" in out.stdout
    assert "(environment): read as the launcher" in out.stderr
