"""parallel-libgfapi -> gftpwb, pure parts: its settings read as each of its launchers read them, the
client list, the gfapi test that results, and its result files read back into records (the fixtures
in tests/data/parallel-libgfapi are the real tool's own output; see the README there)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gftpwb.converters.libgfapi import import_parallel_libgfapi, read_clients
from gftpwb.converters.libgfapi_logs import parse_result_csv, parse_worker_log, tool_totals
from gftpwb.converters.libgfapi_results import Settings, ToolResults, import_results
from gftpwb.converters.libgfapi_settings import choose_launcher, resolve
from gftpwb.converters.shellenv import read_assignments
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError

DATA = Path(__file__).parent / "data" / "parallel-libgfapi"
BASE = "export GFAPI_VOLNAME=vol1\nexport GFAPI_HOSTNAME=gs1\n"


def convert(settings: str, clients: str | None = "c1\nc2\n", **kwargs):
    client_list = read_clients(clients, "clients.list") if clients is not None else None
    result = import_parallel_libgfapi(settings, "pgfapi.env", client_list, **kwargs)
    scenario = load_scenario_text(result.text, "pgfapi.yaml")  # every conversion is a valid scenario
    (test,) = scenario.tests
    return result, test


def messages(result) -> list[str]:
    return [str(w) for w in result.warnings]


def one(result, fragment: str) -> str:
    found = [m for m in messages(result) if fragment in m]
    assert len(found) == 1, (fragment, messages(result))
    return found[0]


# --- the shell file ---------------------------------------------------------------------------------


def test_assignments_are_read_as_sh_sets_them():
    text = ("#!/bin/bash\n"
            "CURRENT_PATH=`pwd`\n"
            "export PGFAPI_FILES=500   # per thread\n"
            "export A='one two' B=\"x $A\"\n"
            "PSMF_TOPDIR=/wrt PSMF_LOAD=seq-rd bash parallel_glfs_smf.sh\n"
            "threads=${PGFAPI_THREADS:-8}; files=${PGFAPI_FILES:-16}\n"
            "export PGFAPI_PROGRAM=$CURRENT_PATH/gfapi_perf_test\n"
            "export LONG=a\\\n"
            "b\n"
            "# NO EDITABLE PARAMETERS BELOW THIS LINE\n"
            "export AFTER=1\n")
    env = read_assignments(text, {"HOME": "/root"})
    got = {a.name: a.value for a in env.assignments}
    assert got["PGFAPI_FILES"] == "500" and got["A"] == "one two" and got["B"] == "x one two"
    assert got["PSMF_TOPDIR"] == "/wrt" and got["threads"] == "8" and got["files"] == "500"
    assert got["LONG"] == "ab" and "AFTER" not in got and env.stopped_at == 10
    files = env.last("PGFAPI_FILES")
    assert (files.line, files.column, files.value_column, files.exported) == (3, 8, 21, True)
    assert env.last("PSMF_LOAD").exported and not env.last("threads").exported  # a command's environment
    assert "command substitution" in env.last("CURRENT_PATH").unknown
    assert "$CURRENT_PATH is not known" in env.last("PGFAPI_PROGRAM").unknown


def test_the_launcher_is_told_from_the_variables():
    def chosen(text: str, clients: bool = False) -> str:
        return choose_launcher(read_assignments(text), clients)

    assert chosen("PSMF_THREADS=8\n") == "first-release"
    assert chosen("filesize_kb=1024\n") == "first-release"
    assert chosen("export PGFAPI_PROCESSES=2\n") == "current"
    assert chosen(BASE, clients=True) == "current"
    assert chosen(BASE) == "worker"


# --- settings -> scenario ------------------------------------------------------------------------------


def test_the_current_launchers_defaults_and_its_one_millisecond_delay():
    result, test = convert(BASE)
    assert result.launcher == "current"
    assert (test.processes, test.threads, test.files, test.file_size, test.record_size) == (4, 1, 10240, 4096, 4096)
    assert (test.workload, test.directory, test.on) == ("seq-wr", "/gfapi-test", ("c1", "c2"))
    assert test.volume.name == "vol1" and test.volume.server == "gs1" and test.volume.port == 24007
    delay = one(result, "slept 1000 µs after each file (the launcher's default)")
    assert delay.startswith("pgfapi.env: warning:") and "below 1,000 files/s" in delay
    assert "records of 64 KB are larger than the 4 KB files" in one(result, "truncated them")
    assert "gftpwb: pgfapi.env: every thread slept 1000 µs" in result.text  # also a comment in the scenario


def test_what_the_launcher_overwrites_or_never_passes_is_said_at_its_line():
    result, test = convert(BASE + "export GFAPI_LOAD=seq-rd\nexport GFAPI_PORT=24008\nexport PGFAPI_FILE=3\n"
                                  "export PGFAPI_USEC_DELAY_PER_FILE=0\nexport PGFAPI_FILES=64\n")
    assert test.workload == "seq-wr" and test.volume.port == 24007 and test.files == 64
    assert one(result, "GFAPI_LOAD has no effect").startswith("pgfapi.env:3:")
    assert "sets it from PGFAPI_LOAD (default seq-wr)" in one(result, "GFAPI_LOAD has no effect")
    assert one(result, "GFAPI_PORT never reached the workers").startswith("pgfapi.env:4:")
    assert "did you mean PGFAPI_FILES?" in one(result, "PGFAPI_FILE is not a variable")
    assert not [m for m in messages(result) if "slept" in m]  # the delay was switched off


def test_sizes_and_numbers_are_read_as_the_c_worker_read_them():
    result, test = convert(BASE + "export PGFAPI_FILESIZE=1M\nexport PGFAPI_RECORDSIZE=64k\n"
                                  "export PGFAPI_FILES=1e3\nexport PGFAPI_USEC_DELAY_PER_FILE=0\n")
    assert test.file_size == 1024 and test.files == 1  # GFAPI_FSZ=1Mk: atoi 1, unit k
    assert "passed GFAPI_FSZ=1Mk, which the worker read as 1 KB" in one(result, "GFAPI_FSZ=1Mk")
    assert "read it as 1 (C's atoi)" in one(result, "PGFAPI_FILES=1e3")
    _, worker = convert(BASE + "export GFAPI_FSZ=2M\nexport GFAPI_RECSZ=256\nexport GFAPI_FILES=7\n", clients=None)
    assert (worker.file_size, worker.record_size, worker.files, worker.processes) == (2 << 20, 256 << 10, 7, 1)


def test_the_worker_by_itself_honours_every_gfapi_variable():
    result, test = convert(BASE + "export GFAPI_PORT=24008\nexport GFAPI_TRANSPORT=rdma\nexport GFAPI_TRCLVL=7\n"
                                  "export GFAPI_THREADS_PER_PROC=8\nexport GFAPI_BASEDIR=/bench\n"
                                  "export GFAPI_FILES_PER_DIR=100\nexport GFAPI_STARTING_GUN=/bench/go\n",
                           clients=None)
    assert result.launcher == "worker" and test.on == ("local",)
    assert (test.volume.port, test.volume.transport, test.trace_level, test.threads) == (24008, "rdma", 7, 8)
    assert (test.directory, test.files_per_dir, test.files) == ("/bench", 100, 100)
    assert "hosts:" not in result.text
    assert one(result, "waited for a starting gun file").startswith("pgfapi.env:9:")


def test_the_first_release_reads_psmf_variables_and_the_scripts_edited_lines():
    settings = (BASE + "PSMF_THREADS=8\nPSMF_FILES=500\nPSMF_TOPDIR=/wrt\nfilesize_kb=1024\nrecordsize_kb=1024\n"
                "PSMF_LOAD=seq-rd\n")
    result, test = convert(settings)
    assert result.launcher == "first-release"
    assert (test.processes, test.threads, test.files, test.file_size, test.record_size) == (8, 1, 500, 1 << 20,
                                                                                           1 << 20)
    assert (test.workload, test.directory) == ("seq-rd", "/wrt")
    assert not [m for m in messages(result) if "slept" in m]  # the first release had no per-file delay
    _, defaults = convert(BASE + "PSMF_FUSE=0\n")
    assert (defaults.processes, defaults.files, defaults.file_size, defaults.directory) == (4, 16, 16 << 20, "/test")


def test_fuse_mode_is_posix_mode_on_the_mount_point():
    _, test = convert(BASE + "export PGFAPI_FUSE=1\nexport PGFAPI_MOUNTPOINT=/mnt/g\nexport PGFAPI_TOPDIR=/t\n")
    assert test.volume is None and test.mode == "posix" and test.directory == "/mnt/g/t"


def test_random_workloads_and_the_launchers_fixed_ioreq():
    result, test = convert(BASE + "export PGFAPI_LOAD=rnd-rd\n")  # 4 KB files: 1 record, 4096 requests refused
    assert test.workload == "rnd-rd" and test.io_requests == 0
    assert "every worker refused to run" in one(result, "GFAPI_IOREQ=4096")
    result, test = convert(BASE + "export PGFAPI_LOAD=rnd-wr\nexport PGFAPI_FILESIZE=65536\n"
                                  "export PGFAPI_RECORDSIZE=4\nexport GFAPI_IOREQ=10\n")
    assert test.io_requests == 4096 and test.record_size == 4096
    assert "4096 random requests per file of its 16384 records" in one(result, "always set GFAPI_IOREQ=4096:")
    assert "GFAPI_IOREQ has no effect" in one(result, "GFAPI_IOREQ has no effect")


def test_what_gftpwb_counts_or_does_otherwise_is_said():
    result, test = convert(BASE + "export PGFAPI_LOAD=unlink\n")
    assert test.workload == "unlink" and "gftpwb counts them" in one(result, "counted no deleted file")
    assert "not on those parallel-libgfapi wrote" in one(result, "works on files a gftpwb seq-wr test wrote")
    result, test = convert(BASE + "export PGFAPI_LOAD=seq-rdwrmix\nexport PGFAPI_RDPCT=30.4\n")
    assert (test.workload, test.read_pct, test.id) == ("rw-mix", 30, "rw-mix")
    assert "read_pct 30 % of the records read" in one(result, "seq-rdwrmix read or appended whole files")
    result, _ = convert(BASE + "export PGFAPI_APPEND=1\nexport PGFAPI_EXTERNAL_START=/go\n")
    assert one(result, "appending to existing files").startswith("pgfapi.env:3:")
    assert one(result, "an external starting gun").startswith("pgfapi.env:4:")


@pytest.mark.parametrize(("extra", "expected"), [
    ("", "GFAPI_VOLNAME is not set"),
    ("export PGFAPI_LOAD=seq-write\n", "pgfapi.env:3:20: PGFAPI_LOAD=seq-write is not a workload"),
    ("export PGFAPI_APPEND=1 PGFAPI_OVERWRITE=1\n", "refused to run ('cannot be used in the same test')"),
    ("export PGFAPI_PROCESSES=0\n", "processes per client must be at least 1"),
    ("export PGFAPI_DIRECT=1\nexport PGFAPI_FILESIZE=6\n", "O_DIRECT in gftpwb needs file and record sizes"),
    ("export PGFAPI_FILES=`cat n`\n", "PGFAPI_FILES: '`cat n`': command substitution"),
    ("export PGFAPI_LOAD=rnd-rd\nexport PGFAPI_FILESIZE=10\nexport PGFAPI_RECORDSIZE=4\n",
     "needs the file size (10 KB) to be a multiple of the record size (4 KB)"),
])
def test_settings_parallel_libgfapi_could_not_have_run_are_refused_at_their_place(extra, expected):
    settings = extra if not expected.startswith("GFAPI_VOLNAME") else "export GFAPI_HOSTNAME=gs1\n"
    with pytest.raises(ScenarioError) as caught:
        import_parallel_libgfapi(BASE + extra if settings == extra else settings, "pgfapi.env",
                                 read_clients("c1\n", "clients.list"))
    assert any(expected in str(d) for d in caught.value.diagnostics), caught.value.diagnostics


def test_an_unknown_value_matters_only_where_it_is_used():
    result, _ = convert("CURRENT_PATH=`pwd`\nexport PGFAPI_PROGRAM=$CURRENT_PATH/gfapi_perf_test\n" + BASE)
    assert not [m for m in messages(result) if "PROGRAM" in m]


# --- the client list -------------------------------------------------------------------------------------


def test_the_client_list_as_the_launcher_read_it():
    clients = read_clients("c1 root@c2\n# a comment\nlocalhost\nc1\n10.0.0.7", "clients.list")
    assert [(c.name, c.address, c.user, c.line) for c in clients.clients] == [
        ("c1", "c1", "", 1), ("c2", "c2", "root", 1), ("local", "localhost", "", 3), ("10.0.0.7", "10.0.0.7", "", 5)]
    text = [str(w) for w in clients.warnings]
    assert text[0].startswith("clients.list:2:1: warning: a comment line")
    assert text[1].startswith("clients.list:4:1: warning: c1 is listed again (line 1)")
    assert text[-1].startswith("clients.list: warning: 4 line(s) but 8 client name(s)") and "wc -l" in text[-1]
    assert read_clients("c1\nc2\n", "x").warnings == []
    with pytest.raises(ScenarioError):
        read_clients("\n\n", "clients.list")


def test_hosts_come_from_an_included_inventory_when_it_has_them(tmp_path):
    inventory = tmp_path / "hosts.yaml"
    inventory.write_text("hosts:\n  h1: {address: 10.0.0.1}\n  h2: {address: 10.0.0.2}\n")
    result, test = convert(BASE, clients="h1\nh2\nlocalhost\nother\n", included_hosts=["h1", "h2"],
                           include=str(inventory))
    assert f"include: {inventory}" in result.text and "other: {address: other}" in result.text
    assert "h1: {" not in result.text and test.on == ("h1", "h2", "local", "other")


# --- results -> records -------------------------------------------------------------------------------------


def read_run(name: str) -> ToolResults:
    path = DATA / name
    if path.is_file():
        return ToolResults(str(path), [parse_worker_log(path.read_text(), path.name)])
    logs = [parse_worker_log((path / f).read_text(), f) for f in sorted(os.listdir(path)) if f.endswith(".log")]
    csv = path / "result.csv"
    return ToolResults(str(path), logs, parse_result_csv(csv.read_text()) if csv.exists() else None, str(csv))


def gfapi_of(record) -> dict:
    return record.details["gfapi"]


def test_a_launcher_run_becomes_one_gfapi_record_with_its_threads_and_processes():
    out = import_results([read_run("seq-wr")], scenario="old")
    (imported,) = out.runs
    record = imported.record
    g = gfapi_of(record)
    assert (record.kind, record.status, record.host, record.test_id, record.run_id) == (
        "gfapi", "passed", "h1,h2", "seq-wr", "seq-wr/0")
    assert record.started_at == "2026-11-27T21:38:41+00:00" or record.started_at.startswith("2026-11-27")
    assert len(g["threads"]) == 8 and len(g["processes"]) == 4 and set(g["hosts"]) == {"h1", "h2"}
    cluster = g["cluster"]
    assert (cluster["files"], cluster["ios"], cluster["bytes"]) == (400, 1600, 400 * 65536)
    # the totals parallel-libgfapi printed: transfer-rate 205.51, file-rate 3288.06, IOPS 13152.25
    assert cluster["last_done"]["mib_s"] == 205.51 and cluster["last_done"]["files_s"] == 3288.06
    assert cluster["last_done"]["iops"] == 13152.25 and cluster["first_done"] is None
    assert g["imported"]["tool_totals"] == {"threads_finished": 4, "threads": 4, "transfer_rate_mb_s": 205.51,
                                            "file_rate_files_s": 3288.06, "iops": 13152.25}
    assert "sum of per-process rates" in g["imported"]["aggregation"]
    first = g["processes"][0]
    assert (first["host"], first["process"], first["last_done"]["files_s"], first["log"]) == (
        "h1", 0, 755.06, "h1.t01.log")
    # the same test the settings import makes: compare lines them up
    settings = import_parallel_libgfapi((DATA / "pgfapi.env").read_text(), "pgfapi.env",
                                        read_clients((DATA / "clients.list").read_text(), "clients.list"))
    (test,) = load_scenario_text(settings.text, "pgfapi.yaml").tests
    (planned,) = load_scenario_text(out.scenario_text, "old.yaml").tests
    assert test == planned or (test.id, test.files, test.threads, test.processes, test.directory) == (
        planned.id, planned.files, planned.threads, planned.processes, planned.directory)


def test_the_quirks_of_its_results_are_read_right_and_kept():
    small = import_results([read_run("under-10-files")], scenario="old").runs[0]
    g = gfapi_of(small.record)
    # result.csv rows "0.02 18.45  1180.50": no file rate, IOPS in its place; its totals summed IOPS as files/s
    assert g["imported"]["tool_totals"]["file_rate_files_s"] == 3502.78 and g["imported"]["tool_totals"]["iops"] == 0
    assert g["cluster"]["last_done"]["iops"] == 3502.78
    assert g["cluster"]["last_done"]["files_s"] == pytest.approx(3502.78 / 4, rel=0.01)  # 4 records per file
    assert any("moved its IOPS into that column" in n for n in small.notes)
    unlink = import_results([read_run("unlink")], scenario="old").runs[0].record
    assert unlink.status == "passed" and gfapi_of(unlink)["cluster"]["last_done"]["files_s"] is None
    assert gfapi_of(unlink)["cluster"]["files"] is None  # deletes were not counted, not none made
    first = import_results([read_run("first-release")], scenario="old").runs[0]
    assert gfapi_of(first.record)["imported"]["launcher"] == "first-release"
    assert gfapi_of(first.record)["cluster"]["last_done"]["files_s"] > 0
    assert any("first release printed 0" in n for n in first.notes)


def test_failed_runs_keep_why_and_unreadable_ones_say_what_to_give():
    refused = import_results([read_run("rnd-rd-ioreq")], scenario="old").runs[0].record
    assert refused.status == "failed" and "GFAPI_IOREQ too large for file size and record size" in refused.error
    assert refused.error.startswith("h1.t01.log: ") and gfapi_of(refused)["cluster"]["last_done"] is None
    out = import_results([read_run("seq-rd-segfault")], scenario="old")
    assert out.runs == [] and "give the settings (--settings" in str(out.problems[0])
    assert str(out.problems[0]).startswith(str(DATA / "seq-rd-segfault" / "h1.t01.log"))
    settings = import_parallel_libgfapi((DATA / "pgfapi.env").read_text() + "export PGFAPI_LOAD=seq-rd\n",
                                        "pgfapi.env", read_clients("h1\nh2\n", "clients.list"))
    env = read_assignments((DATA / "pgfapi.env").read_text() + "export PGFAPI_LOAD=seq-rd\n")
    run = resolve(env, "pgfapi.env", "current").run
    given = Settings(run, ["h1", "h2"], "pgfapi.env")
    crashed = import_results([read_run("seq-rd-segfault")], scenario="old", settings=given).runs[0].record
    assert crashed.status == "failed" and "Segmentation fault" in crashed.error and settings.tests == 1


def test_result_csv_alone_needs_the_settings_and_then_gives_rates_only():
    found = read_run("seq-wr")
    alone = ToolResults(found.source, [], found.result_csv, found.result_csv_name)
    out = import_results([alone], scenario="old")
    assert out.runs == [] and "result.csv alone does not say what ran" in str(out.problems[0])
    run = resolve(read_assignments((DATA / "pgfapi.env").read_text()), "pgfapi.env", "current").run
    (imported,) = import_results([alone], scenario="old", settings=Settings(run, ["h1", "h2"], "pgfapi.env")).runs
    g = gfapi_of(imported.record)
    assert g["cluster"]["last_done"]["files_s"] == 3288.06 and g["cluster"]["files"] is None and g["threads"] == []


def test_logs_that_disagree_with_the_settings_are_refused():
    run = resolve(read_assignments(BASE + "export PGFAPI_FILES=9\n"), "other.env", "current").run
    out = import_results([read_run("seq-wr")], scenario="old", settings=Settings(run, ["h1", "h2"], "other.env"))
    assert out.runs == [] and "the logs do not match the settings other.env" in str(out.problems[0])
    assert "files: the logs say 50, the settings 9" in str(out.problems[0])


def test_several_runs_become_repeats_and_cases():
    out = import_results([read_run("seq-wr"), read_run("seq-wr"), read_run("posix-seq-rd"),
                          read_run("worker-alone.log")], scenario="old")
    ids = [(r.record.test_id, r.record.repeat, r.record.case) for r in out.runs]
    assert ids == [("seq-wr", 0, 0), ("seq-wr", 1, 0), ("seq-rd", 0, 1), ("seq-wr-2", 0, 2)]
    assert gfapi_of(out.runs[2].record)["mode"] == "posix" and out.runs[3].record.host == "local"


def test_the_launchers_totals_are_reproduced_from_result_csv():
    rows = [r.fields for r in parse_result_csv((DATA / "under-10-files" / "result.csv").read_text()).rows]
    assert rows[0] == ("0.02", "18.45", "", "1180.50")
    assert tool_totals(rows) == {"threads_finished": 4, "threads": 4, "transfer_rate_mb_s": 54.74,
                                 "file_rate_files_s": 3502.78, "iops": 0.0}
    assert parse_result_csv("what\n1 2 3 4\n").errors[0][:2] == (1, 1)


def test_a_result_csv_it_cannot_read_says_where():
    header = "elapsed-sec MBps Files-per-sec I/O-rq-per-sec\n"
    assert parse_result_csv(header + "1.2 3.4 abc 500.0\n").errors == [(2, 9, "Files-per-sec 'abc' is not a number")]
    assert parse_result_csv(header + "1.2  x7 500.0\n").errors == [(2, 6, "Files-per-sec 'x7' is not a number")]
    assert parse_result_csv(header).errors == [
        (1, 1, "no result rows under the header: the run this file comes from printed no results")]
    assert parse_result_csv(header + "0.02 18.45  1180.50\n").errors == []
    # the launcher's row of a worker that printed nothing is four empty fields: a row, not a blank line
    died = parse_result_csv(header + "   \n   \n")
    assert died.errors == [] and [row.fields for row in died.rows] == [("", "", "", "")] * 2
