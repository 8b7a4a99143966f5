"""The CSV files of a gfapi run: parallel-libgfapi's result.csv and the richer per-thread/per-host files."""

import csv
import io

from gftpwb.kinds.gfapi.csvfiles import RESULT_HEADER, hosts_csv, result_csv, run_files, threads_csv
from gftpwb.kinds.gfapi.latency import Histogram
from gftpwb.kinds.gfapi.stats import NS, ThreadResult, partial, summarize

MIB = 1024 * 1024


def details():
    h = Histogram()
    for ns in (1000, 2000, 3000):
        h.record(ns)
    threads = [
        ThreadResult("c1", 0, 0, "ok", start_ns=0, elapsed_ns=NS, files=100, ios=1600, bytes=100 * MIB,
                     latency={"write": h}, requested_files=100, requested_bytes=100 * MIB),
        ThreadResult("c1", 0, 1, "ok", start_ns=0, elapsed_ns=2 * NS, files=100, ios=1600, bytes=100 * MIB,
                     samples=[(NS, 50, 800, 50 * MIB)], requested_files=100, requested_bytes=100 * MIB),
        ThreadResult("c2", 1, 2, "failed", start_ns=0, elapsed_ns=NS // 2, files=3, ios=3, bytes=3 * MIB,
                     error="c2 p1 thread 2: write x: No space left on device", requested_files=100,
                     requested_bytes=100 * MIB),
    ]
    THREADS[:] = threads
    return summarize(threads)


THREADS: list[ThreadResult] = []  # those of the last details()


def test_result_csv_has_parallel_libgfapis_layout_with_one_row_per_finished_process():
    text = result_csv(details())
    assert text == f"{RESULT_HEADER}\n2.00 100.00 100.00 1600.00\n"  # c2's process failed: not listed
    rows = [line.split(" ") for line in text.splitlines()]
    assert all(len(row) == 4 for row in rows)


def test_a_run_without_a_finished_process_has_no_result_csv():
    t = ThreadResult("c1", 0, 0, "not-started", error="c1 p0: cannot connect to volume 'v'", requested_files=100)
    assert set(run_files(summarize([t]))) == {"threads.csv", "hosts.csv"}


def test_threads_csv_has_host_process_thread_and_latency_columns():
    rows = list(csv.DictReader(io.StringIO(threads_csv(details()))))
    assert [(r["host"], r["process"], r["thread"], r["status"]) for r in rows] == [
        ("c1", "0", "0", "ok"), ("c1", "0", "1", "ok"), ("c2", "1", "2", "failed")]
    assert rows[0]["mib_s"] == "100" and rows[0]["write_count"] == "3" and rows[0]["write_max_us"] == "3"
    assert rows[1]["files_at_first_done"] == "50" and rows[1]["write_count"] == ""
    assert rows[2]["error"] == "c2 p1 thread 2: write x: No space left on device"


def test_hosts_csv_ends_with_the_cluster_and_the_threads_that_finished():
    rows = list(csv.DictReader(io.StringIO(hosts_csv({**details(), "partial": partial(THREADS)}))))
    assert [(r["scope"], r["host"]) for r in rows] == [("host", "c1"), ("host", "c2"), ("cluster", ""),
                                                       ("partial", "c1")]
    cluster, survivors = rows[-2], rows[-1]
    assert (survivors["threads"], survivors["ok"], survivors["bytes"], survivors["last_done_s"]) == (
        "2", "2", str(200 * MIB), "2")
    assert cluster["bytes"] == str(203 * MIB) and cluster["threads"] == "3" and cluster["ok"] == "2"
    assert cluster["last_done_s"] == "2" and cluster["first_done_s"] == "1"
    assert set(run_files(details())) == {"result.csv", "threads.csv", "hosts.csv"}


def test_console_headline_and_case_table():
    from gftpwb.core.records import ResultRecord
    from gftpwb.kinds.gfapi.report import gfapi_headline, tables

    record = ResultRecord(scenario="s", test_id="w", run_id="w/0", case=0, repeat=0, kind="gfapi", host="c1,c2",
                          argv=[], status="passed", details={"gfapi": {**details(), "start_skew_ms": 1.25}},
                          params={"workload": "seq-wr", "hosts": ["c1", "c2"], "processes": 1, "threads": 2,
                                  "files": 100, "file_size": 1048576, "record_size": 65536})
    assert gfapi_headline(record) == (
        "203 files, 203.00 MiB: 101.5 MiB/s, 102 files/s, 1602 IOPS (last done: first thread start to last thread "
        "end, 2.000s); first done 153.0 MiB/s, 153 files/s (at 1.000s, 51.0 % of the work done); start skew 1.25 ms")
    (table,) = tables([record])
    ((cells, style),) = table.rows
    row = dict(zip([name for name, _ in table.columns], cells, strict=True))
    assert row["workload hosts x procs x threads files"] == "seq-wr 2x1x2 100x1M/64K" and row["ok/runs"] == "1/1"
    assert (row["MiB/s"], row["files/s"], row["IOPS"], row["mean [95 % CI]"]) == ("101.5", "102", "1602", "102")
    assert row["n"] == "1"
    assert (row["first done MiB/s"], row["% done"], row["max skew ms"], style) == ("153.0", "51.0", "1.25", "")


def test_unlink_headline_shows_files_per_second_only():
    from gftpwb.core.records import ResultRecord
    from gftpwb.kinds.gfapi.report import gfapi_headline

    t = ThreadResult("h", 0, 0, "ok", start_ns=0, elapsed_ns=NS // 2, files=500, requested_files=500)
    record = ResultRecord(scenario="s", test_id="d", run_id="d/0", case=0, repeat=0, kind="gfapi", host="h", argv=[],
                          status="passed", details={"gfapi": summarize([t])})
    assert gfapi_headline(record) == ("500 files: 1000 files/s (last done: first thread start to last thread end, "
                                      "0.500s); first done 1000 files/s (at 0.500s, 100.0 % of the work done); "
                                      "start skew 0.00 ms")


def test_an_operation_that_moves_no_data_has_files_per_second_and_the_size_it_found():
    from gftpwb.core.records import ResultRecord
    from gftpwb.kinds.gfapi.report import gfapi_headline, tables

    t = ThreadResult("h", 0, 0, "ok", start_ns=0, elapsed_ns=NS // 2, files=200, requested_files=200)
    g = {**summarize([t]), "found_file_sizes": [65536]}
    assert g["cluster"]["last_done"]["mib_s"] is None and g["cluster"]["last_done"]["iops"] is None
    assert g["threads"][0]["mib_s"] is None and g["cluster"]["first_done"]["mib_s"] is None
    # the defaults of file_size and record_size (1M, 64K) were never used: the files it found were 64K
    record = ResultRecord(scenario="s", test_id="d", run_id="d/0", case=0, repeat=0, kind="gfapi", host="local",
                          argv=[], status="passed", details={"gfapi": g},
                          params={"workload": "unlink", "hosts": ["local"], "processes": 1, "threads": 1,
                                  "files": 200, "file_size": 1048576, "record_size": 65536})
    assert gfapi_headline(record).startswith("200 files of 64K: 400 files/s (last done: first thread start to last "
                                             "thread end, 0.500s)")
    (table,) = tables([record])
    row = dict(zip([name for name, _ in table.columns], table.rows[0][0], strict=True))
    assert row["workload hosts x procs x threads files"] == "unlink 1x1x1 200 files of 64K"
    assert (row["files/s"], row["MiB/s"], row["IOPS"], row["first done MiB/s"]) == ("400", "-", "-", "-")
    assert result_csv(g) == f"{RESULT_HEADER}\n0.50  400.00 \n"  # no MBps or IOPS: empty, as parallel-libgfapi
