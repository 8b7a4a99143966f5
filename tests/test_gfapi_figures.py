"""What a gfapi figure may claim: a run too short for its timing's error is flagged, and a run that lost a
host keeps its surviving threads' figures, marked as a partial result (console, report, JSON, TUI notes)."""

from __future__ import annotations

import io

from rich.console import Console

from gftpwb.core.events import RunFinished
from gftpwb.core.live import read
from gftpwb.core.live.state import LiveState
from gftpwb.core.records import ResultRecord
from gftpwb.core.registry import registry
from gftpwb.kinds.gfapi.report import gfapi_headline, partial_headline, tables
from gftpwb.kinds.gfapi.stats import NS, ThreadResult, partial, summarize
from gftpwb.kinds.gfapi.timing import LIMIT_PCT, timing
from gftpwb.shell.sinks.console import ConsoleSink

MIB = 1024 * 1024
MS = 1_000_000
PARAMS = {"workload": "seq-rd", "hosts": ["h1", "h2"], "processes": 1, "threads": 2, "files": 100,
          "file_size": 32768, "record_size": 32768}


def thread(host: str, label: int, *, start_ms: float, seconds: float, status: str = "ok",
           files: int = 100) -> ThreadResult:
    return ThreadResult(host, 0, label, status, start_ns=10**18 + round(start_ms * MS), elapsed_ns=round(seconds * NS),
                        files=files, ios=files, bytes=files * 32768, requested_files=100, requested_ios=100,
                        requested_bytes=100 * 32768, error="" if status == "ok" else f"{host} p0: lost the "
                        "worker's connection: node5 (node n5, task 4 of step 2.5): its stdout connection broke: "
                        "[Errno 104] Connection reset by peer")


def record_of(threads: list[ThreadResult], *, status: str = "passed", uncertainty_ms: float = 0.0,
              run_id: str = "read/0") -> ResultRecord:
    g = summarize(threads)
    g["timing"] = timing(g, {"h1": {"uncertainty_ms": uncertainty_ms}, "h2": {"uncertainty_ms": 0.0}})
    if status != "passed":
        g["partial"] = partial(threads)
    return ResultRecord(scenario="s", test_id="read", run_id=run_id, case=0, repeat=int(run_id[-1]), kind="gfapi",
                        host="h1,h2", argv=[], status=status, params=dict(PARAMS), details={"gfapi": g},
                        error="" if status == "passed" else threads[-1].error)


def row_of(table, index: int = 0) -> dict[str, str]:
    return dict(zip([name for name, _ in table.columns], table.rows[index][0], strict=True))


def test_a_run_whose_skew_is_a_large_share_of_it_is_too_short_to_publish():
    # slurm-smallfile's read on the lab: 8.84 ms of start skew on a run of 0.021 s
    short = record_of([thread("h1", 0, start_ms=0, seconds=0.021), thread("h2", 1, start_ms=8.84, seconds=0.012)])
    t = short.details["gfapi"]["timing"]
    assert t["last_done"]["too_short"] and t["last_done"]["share_pct"] == 42.1 and t["limit_pct"] == LIMIT_PCT
    assert t["last_done"]["needed_s"] == 0.884  # 100 x (skew + resolution)
    assert gfapi_headline(short).endswith(
        "start skew 8.84 ms; too short to publish: start skew 8.84 ms is 42.1 % of the 0.021 s measured (limit 1 %); "
        "make the run last 0.9 s or more (more files per thread, or larger files)")
    long = record_of([thread("h1", 0, start_ms=0, seconds=2.0), thread("h2", 1, start_ms=8.84, seconds=1.99)],
                     run_id="read/1")
    assert not long.details["gfapi"]["timing"]["last_done"]["too_short"]
    assert "too short" not in gfapi_headline(long)
    # the clocks' uncertainty counts too: the same long run, on hosts whose offsets are known to 15 ms
    unsure = record_of([thread("h1", 0, start_ms=0, seconds=2.0), thread("h2", 1, start_ms=8.84, seconds=1.99)],
                       uncertainty_ms=15.0, run_id="read/2")
    assert "start skew 8.84 ms + clock uncertainty 15.00 ms is 1.2 % of the 2.000 s" in gfapi_headline(unsure)
    # the report says how many runs of the case are too short, and what to do, in the table and as data
    (table,) = tables([short, long, unsure])
    assert row_of(table)["notes"].startswith("2 of 3 too short to publish")
    assert "more files per thread or larger files" in table.caption
    kind = registry().kind("gfapi")
    assert kind.report.facts(short) == {"too_short": True, "timing_share_pct": 42.1, "timing_limit_pct": 1.0}
    assert kind.report.facts(long)["too_short"] is False
    assert kind.present.remarks(short) == ("too short to publish",) and kind.present.remarks(long) == ()


def test_a_lost_host_keeps_the_survivors_figures_marked_as_partial():
    threads = [thread("h1", 0, start_ms=0, seconds=3.6), thread("h1", 1, start_ms=0.2, seconds=3.5),
               thread("h2", 2, start_ms=0.1, seconds=1.0, status="failed", files=30),
               thread("h2", 3, start_ms=0.1, seconds=1.0, status="failed", files=31)]
    record = record_of(threads, status="failed")
    part = record.details["gfapi"]["partial"]
    assert part["spans"] == "2 of 4 threads: h1" and part["hosts_failed"] == ["h2"]
    assert part["failed_threads"] == {"h2": "2-3"}
    survivors = part["survivors"]["last_done"]
    assert (survivors["files"], survivors["seconds"]) == (200, 3.6)  # h1's own window, h2's work not in it
    assert survivors["files_s"] == round(200 / 3.6, 3)
    assert partial_headline(record) == (
        "partial result, 2 of 4 threads: h1: 200 files, 6.25 MiB: 1.7 MiB/s, 56 files/s, 56 IOPS (last done: first "
        "thread start to last thread end, 3.600s); first done 1.8 MiB/s, 56 files/s (at 3.500s, 98.6 % of the work "
        "done); failed: h2 (threads 2-3)")
    # the report: the case's passed runs (none), then a row of the survivors' figures, marked
    (table,) = tables([record])
    case, survivors_row = row_of(table), row_of(table, 1)
    assert (case["ok/runs"], case["files/s"]) == ("0/1", "-")
    assert survivors_row["workload hosts x procs x threads files"] == "partial: 2 of 4 threads: h1"
    assert (survivors_row["ok/runs"], survivors_row["files/s"], survivors_row["MiB/s"]) == ("1 partial", "56", "1.7")
    assert survivors_row["notes"] == "read/0: survivors only (failed: h2 threads 2-3)" and table.rows[1][1] == "yellow"
    facts = registry().kind("gfapi").report.facts(record)
    assert facts["partial"] == "2 of 4 threads: h1" and facts["partial_files_s"] == round(200 / 3.6, 3)
    # the console: the failure and, under it, what the survivors measured
    out = io.StringIO()
    ConsoleSink(Console(file=out, width=300, highlight=False), live=False)(RunFinished(record=record))
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("FAILED read/0  h2 p0: lost the worker's connection")
    assert lines[1] == "     " + partial_headline(record)


def test_the_tui_notes_say_what_a_finished_runs_figures_need_said():
    short = record_of([thread("h1", 0, start_ms=0, seconds=0.021), thread("h2", 1, start_ms=8.84, seconds=0.012)])
    lost = record_of([thread("h1", 0, start_ms=0, seconds=3.6), thread("h2", 1, start_ms=0, seconds=1.0,
                                                                          status="failed")],
                     status="failed", run_id="read/1")
    live = LiveState()
    for record in (short, lost):
        live(RunFinished(record=record))
    (row,) = read.test_rows(live)
    assert "too short to publish" in row.note and "partial: 1 of 2 threads" in row.note, row.note
