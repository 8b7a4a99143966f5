"""Round trips through the parallel-libgfapi converters, on generated input (seeded, see fuzzseed.py):

* settings written as a user writes them (``export``, plain or command-prefix assignments, any
  quoting, ``${VAR:-default}``, comments) -> scenario -> the gfapi test: every value arrives as
  parallel-libgfapi read it;
* per-process results written as its worker prints them and ``result.csv`` as its launcher's awk
  makes it -> records: the cluster figures are the sums the launcher printed (by column), and
  gftpwb's own ``result.csv`` of the imported record reads back to the same per-process rates.
"""

from __future__ import annotations

import shlex

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from support.fuzzseed import FUZZ_SEED, say_seed

from gftpwb.converters.libgfapi import import_parallel_libgfapi, read_clients
from gftpwb.converters.libgfapi_logs import parse_result_csv, parse_worker_log, tool_totals
from gftpwb.converters.libgfapi_results import ToolResults, import_results
from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.kinds.gfapi.csvfiles import result_csv

NAMES = st.from_regex(r"[a-z][a-z0-9]{0,6}", fullmatch=True)
DIRS = st.lists(st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,8}", fullmatch=True), min_size=1, max_size=3)


def quoted(value: str, style: int) -> str:
    return [value, f"'{value}'", f'"{value}"', shlex.quote(value)][style]


@st.composite
def launcher_settings(draw):
    record_kb = draw(st.sampled_from([1, 4, 16, 64, 1024]))
    records = draw(st.integers(1, 64))
    values = {
        "PGFAPI_PROCESSES": draw(st.integers(1, 64)),
        "PGFAPI_THREADS_PER_PROC": draw(st.integers(1, 16)),
        "PGFAPI_FILES": draw(st.integers(1, 100_000)),
        "PGFAPI_FILESIZE": record_kb * records,
        "PGFAPI_RECORDSIZE": record_kb,
        "PGFAPI_LOAD": draw(st.sampled_from(["seq-wr", "seq-rd", "unlink", "rnd-rd", "rnd-wr"])),
        "PGFAPI_FSYNC_AT_CLOSE": draw(st.integers(0, 1)),
        "PGFAPI_USEC_DELAY_PER_FILE": draw(st.sampled_from([0, 1000, 250])),
        "PGFAPI_TOPDIR": "/" + "/".join(draw(DIRS)),
        "GFAPI_VOLNAME": draw(NAMES),
        "GFAPI_HOSTNAME": draw(NAMES),
    }
    return values, draw(st.lists(st.integers(0, 3), min_size=len(values), max_size=len(values))), draw(
        st.lists(NAMES, min_size=1, max_size=5, unique=True))


@seed(FUZZ_SEED)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(launcher_settings(), st.sampled_from(["export", "plain", "prefix", "default"]))
def test_settings_arrive_in_the_scenario_as_parallel_libgfapi_read_them(drawn, form):
    say_seed()
    values, styles, clients = drawn
    lines = ["# parallel-libgfapi settings", ""]
    items = [f"{name}={quoted(str(value), style)}" for (name, value), style in zip(values.items(), styles, strict=True)]
    if form == "export":
        lines += [f"export {item}  # set" for item in items]
    elif form == "plain":
        lines += items
    elif form == "prefix":  # on the launcher's command line, as parallel-libgfapi's README runs it
        lines.append(" ".join(items) + " bash parallel_gfapi_test.sh")
    else:  # the launcher's own lines: a variable set earlier wins over the line's default
        lines += [f"export {item}" for item in items]
        lines += ["processes=${PGFAPI_PROCESSES:-4}", "files=${PGFAPI_FILES:-10240}"]
    result = import_parallel_libgfapi("\n".join(lines) + "\n", "pgfapi.env",
                                      read_clients("\n".join(clients) + "\n", "clients.list"))
    (test,) = load_scenario_text(result.text, "pgfapi.yaml").tests
    file_size, record = values["PGFAPI_FILESIZE"] * 1024, values["PGFAPI_RECORDSIZE"] * 1024
    assert (test.processes, test.threads, test.files) == (values["PGFAPI_PROCESSES"],
                                                          values["PGFAPI_THREADS_PER_PROC"], values["PGFAPI_FILES"])
    assert (test.file_size, test.record_size) == (file_size, record)
    assert (test.workload, test.directory, test.fsync) == (values["PGFAPI_LOAD"], values["PGFAPI_TOPDIR"],
                                                           bool(values["PGFAPI_FSYNC_AT_CLOSE"]))
    assert (test.volume.name, test.volume.server) == (values["GFAPI_VOLNAME"], values["GFAPI_HOSTNAME"])
    assert test.on == tuple(sorted(clients))
    if values["PGFAPI_LOAD"].startswith("rnd"):  # the launcher's GFAPI_IOREQ=4096, when the files have that many
        assert test.io_requests == (4096 if file_size // record >= 4096 else 0)
    delay = [str(w) for w in result.warnings if "after each file" in str(w)]
    assert bool(delay) == bool(values["PGFAPI_USEC_DELAY_PER_FILE"])


# --- results ------------------------------------------------------------------------------------------------


def block(label: str, files: int, ios: int, nbytes: int, seconds: float, record_kb: int) -> list[str]:
    """One result block as the worker prints it (fields printed only when not zero; no file rate under
    10 files)."""
    mib = ios * record_kb / 1024
    thru = mib / seconds
    files_s = 0.0 if files < 10 else files / seconds
    out = [f"{label}  files written = {files}", f"  files done = {files}"]
    if ios:
        out.append(f"  I/O (record) transfers = {ios}")
    if nbytes:
        out.append(f"  total bytes = {nbytes}")
    out.append(f"  elapsed time    = {seconds:<9.2f} sec")
    if thru > 0:
        out.append(f"  throughput      = {thru:<9.2f} MB/sec")
    if files_s > 0:
        out.append(f"  file rate       = {files_s:<9.2f} files/sec")
    if thru > 0:
        out.append(f"  IOPS            = {thru * 1024 / record_kb:<9.2f} (sequential write)")
    return out


HEADER = """GLUSTER: 
  volume=vol
  transport=tcp
  host=gs1
  port=24007
  fuse?No
  trace level=0
  start timeout=12
WORKLOAD:
  type = seq-wr 
  threads/proc = {threads}
  base directory = /top/smf-gfapi-{client}.{n:02d}
  prefix=f
  file size = {file_kb} KB
  file count = {files}
  record size = {record_kb} KB
  files/dir=1000
  fsync-at-close? No 
"""


@st.composite
def launcher_runs(draw):
    clients = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
    processes, threads = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    files, records, record_kb = draw(st.integers(1, 40)), draw(st.integers(1, 8)), draw(st.sampled_from([4, 16, 64]))
    times = draw(st.lists(st.floats(0.05, 5.0), min_size=len(clients) * processes * threads,
                          max_size=len(clients) * processes * threads))
    return clients, processes, threads, files, records, record_kb, times


@seed(FUZZ_SEED)
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(launcher_runs())
def test_worker_logs_and_result_csv_become_the_launchers_totals(run):
    say_seed()
    clients, processes, threads, files, records, record_kb, times = run
    logs, rows = [], []
    it = iter(times)
    for client in clients:
        for n in range(1, processes + 1):
            lines = HEADER.format(threads=threads, client=client, n=n, file_kb=records * record_kb, files=files,
                                  record_kb=record_kb).split("\n")[:-1]
            spans = [next(it) for _ in range(threads)]
            for t, seconds in enumerate(spans):
                lines += block(f"thread {t:>3}:", files, files * records, files * records * record_kb * 1024, seconds,
                               record_kb)
            lines += block("aggregate:", files * threads, files * threads * records,
                           files * threads * records * record_kb * 1024, max(spans), record_kb)
            log = parse_worker_log("\n".join(lines) + "\n", f"{client}.t{n:02d}.log")
            logs.append(log)
            rows.append(" ".join(log.last_value(k) for k in ("elapsed time", "throughput", "file rate", "IOPS")))
    csv = "elapsed-sec MBps Files-per-sec I/O-rq-per-sec\n" + "\n".join(rows) + "\n"
    parsed = parse_result_csv(csv)
    assert parsed.problems == [] and len(parsed.rows) == len(logs)
    (imported,) = import_results([ToolResults("/runs/x", logs, parsed, "/runs/x/result.csv")], scenario="old").runs
    g = imported.record.details["gfapi"]
    last = g["cluster"]["last_done"]
    assert imported.record.status == "passed" and len(g["threads"]) == len(times)
    assert g["cluster"]["files"] == files * len(times) and g["cluster"]["ios"] == files * records * len(times)
    mbps = round(sum(float(r.fields[1]) for r in parsed.rows), 2)
    iops = round(sum(float(r.fields[3]) for r in parsed.rows), 2)
    assert round(last["mib_s"], 2) == mbps and round(last["iops"], 2) == iops
    totals = tool_totals([r.fields for r in parsed.rows])
    assert totals["transfer_rate_mb_s"] == mbps  # what parallel-libgfapi printed, kept
    if files * threads >= 10:  # every process printed its file rate: its totals and ours agree by column
        assert totals["file_rate_files_s"] == round(last["files_s"], 2) and totals["iops"] == iops
    # gftpwb writes result.csv in parallel-libgfapi's layout: the imported record reads back to its rates
    again = parse_result_csv(result_csv(g))
    assert [float(r.fields[1]) for r in again.rows] == [p["last_done"]["mib_s"] for p in g["processes"]]
    assert tool_totals([r.fields for r in again.rows])["transfer_rate_mb_s"] == mbps
