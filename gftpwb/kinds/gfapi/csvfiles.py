"""CSV files of a gfapi run, made from its record's ``details["gfapi"]``. Pure: text in, text out.

* ``result.csv``: parallel-libgfapi's layout, so its users' scripts keep working: space separated,
  header ``elapsed-sec MBps Files-per-sec I/O-rq-per-sec``, one row per worker process (its
  threads' earliest start to latest end, counters summed; MBps is MiB/s as it always was). Only
  processes whose threads all finished are listed (none finished: no result.csv at all, never a
  header alone), and every field gftpwb measured is written
  (parallel-libgfapi dropped "file rate" under 10 files, which shifted IOPS into its column; a figure
  an imported record does not know is left empty, one space kept on each side).
* ``threads.csv``: one row per thread with host, process and thread columns, its rates, its
  counters at the cluster's first-done instant and its latency percentiles per operation.
* ``hosts.csv``: one row per host and a ``cluster`` row: first-done and last-done rates,
  % of the requested work done at first-done, start skew and latency percentiles; a run whose
  threads did not all finish has a last ``partial`` row, the threads that did (their hosts named).
"""

from __future__ import annotations

import csv
import io
from typing import Any

OPS = ("open", "read", "write", "fsync", "close", "unlink", "file")
LATENCY_FIELDS = ("count", "mean_us", "p50_us", "p90_us", "p99_us", "max_us")
RESULT_HEADER = "elapsed-sec MBps Files-per-sec I/O-rq-per-sec"


def _num(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".") if value != int(value) else str(int(value))
    return str(value)


def result_rows(gfapi: dict[str, Any]) -> list[str]:
    """result.csv's rows: one per worker process whose threads all finished."""
    rows = []
    for proc in gfapi.get("processes", []):
        last = proc.get("last_done")
        if proc.get("status") != "ok" or not last or last.get("seconds") is None:
            continue
        rows.append(" ".join("" if last.get(k) is None else f"{last[k]:.2f}"
                             for k in ("seconds", "mib_s", "files_s", "iops")))
    return rows


def result_csv(gfapi: dict[str, Any]) -> str:
    return "\n".join([RESULT_HEADER, *result_rows(gfapi)]) + "\n"


def _ops_present(latencies: list[dict[str, Any]]) -> list[str]:
    present = {op for lat in latencies for op in lat}
    return [op for op in OPS if op in present]


def _latency_cells(latency: dict[str, Any], ops: list[str]) -> list[str]:
    return [_num(latency.get(op, {}).get(f)) for op in ops for f in LATENCY_FIELDS]


def _write(rows: list[list[str]]) -> str:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def threads_csv(gfapi: dict[str, Any]) -> str:
    threads = gfapi.get("threads", [])
    ops = _ops_present([t.get("latency", {}) for t in threads])
    header = ["host", "process", "thread", "status", "start_offset_ms", "seconds", "files", "ios", "bytes", "mib_s",
              "files_s", "iops", "files_at_first_done", "ios_at_first_done", "bytes_at_first_done",
              *(f"{op}_{f}" for op in ops for f in LATENCY_FIELDS), "error"]
    rows = [header]
    for t in threads:
        first = t.get("at_first_done") or {}
        rows.append([t["host"], _num(t["process"]), _num(t["thread"]), t["status"], _num(t.get("start_offset_ms")),
                     _num(t.get("seconds")), _num(t["files"]), _num(t["ios"]), _num(t["bytes"]), _num(t.get("mib_s")),
                     _num(t.get("files_s")), _num(t.get("iops")), _num(first.get("files")), _num(first.get("ios")),
                     _num(first.get("bytes")), *_latency_cells(t.get("latency", {}), ops), t.get("error", "")])
    return _write(rows)


def hosts_csv(gfapi: dict[str, Any]) -> str:
    groups = [("host", name, stats) for name, stats in gfapi.get("hosts", {}).items()]
    if "cluster" in gfapi:
        groups.append(("cluster", "", gfapi["cluster"]))
    part = gfapi.get("partial")
    if part:  # the threads that finished of a run that lost others: their own window (stats.partial)
        groups.append(("partial", " ".join(part["hosts_ok"]), part["survivors"]))
    ops = _ops_present([g[2].get("latency", {}) for g in groups])
    header = ["scope", "host", "threads", "ok", "files", "ios", "bytes", "start_skew_ms",
              "first_done_s", "first_done_mib_s", "first_done_files_s", "first_done_iops", "pct_done_at_first_done",
              "last_done_s", "last_done_mib_s", "last_done_files_s", "last_done_iops",
              *(f"{op}_{f}" for op in ops for f in LATENCY_FIELDS)]
    rows = [header]
    for scope, name, s in groups:
        first = s.get("first_done") or {}
        last = s.get("last_done") or {}
        rows.append([scope, name, _num(s["threads"]), _num(s["ok"]), _num(s["files"]), _num(s["ios"]), _num(s["bytes"]),
                     _num(s.get("start_skew_ms")), _num(first.get("seconds")), _num(first.get("mib_s")),
                     _num(first.get("files_s")), _num(first.get("iops")), _num(first.get("pct_done")),
                     _num(last.get("seconds")), _num(last.get("mib_s")), _num(last.get("files_s")),
                     _num(last.get("iops")), *_latency_cells(s.get("latency", {}), ops)])
    return _write(rows)


RUN_FILES = ("result.csv", "threads.csv", "hosts.csv")


def run_files(gfapi: dict[str, Any]) -> dict[str, str]:
    """File name -> content for one run's directory. No ``result.csv`` when no worker process finished:
    a header alone would read as a run that had results (its readers count rows, not statuses);
    threads.csv and hosts.csv say what each thread and host did."""
    files = {"threads.csv": threads_csv(gfapi), "hosts.csv": hosts_csv(gfapi)}
    if result_rows(gfapi):
        files = {"result.csv": result_csv(gfapi), **files}
    return files
