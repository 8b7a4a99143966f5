"""parallel-libgfapi's results -> gfapi result records, so its users keep their old results. Pure.

One run of parallel-libgfapi (a launcher's log directory: ``<client>.t<NN>.log`` per worker process
and ``result.csv``; or one log of the worker run by itself) becomes one record of a ``kind: gfapi``
run, the same shape a gftpwb run writes, so ``gftpwb report``, ``compare`` and the history read it:

* **what ran** comes from the logs' headers (or from the settings the user gives, checked against
  the logs), and is written as the gfapi test that :mod:`.libgfapi` makes of those settings; the
  record's test id and parameters are those a run of that imported scenario gets, so
  ``gftpwb compare OLD NEW`` lines old results up with new runs;
* **per thread and per process**: the counters and rates each worker printed (its ``aggregate:``
  block is the process: earliest start to latest end of its threads, as gftpwb's per-process
  figures are);
* **the cluster**: counters summed, and as figures the totals parallel-libgfapi reported, the
  **sum of the per-process rates**, each over its own interval (it had no common clock, so no
  common window). The record says so (``details.gfapi.imported.aggregation``) and the report notes
  it: a sum of rates is at least the rate over one common window when the processes did not fully
  overlap, so compare imported runs with gftpwb's own knowing that. There is no first-done
  (stonewalled) figure, start skew or latency: parallel-libgfapi did not measure them.

The totals exactly as parallel-libgfapi printed them (its awk summed the wrong column when a process
did fewer than 10 files) are kept in ``details.gfapi.imported.tool_totals``; a deleted file was never
counted (``unlink`` runs have no figures), and the first release's file rate of 0 for more than 10
files is recomputed from the throughput, with a note.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import Diagnostic, ScenarioError
from gftpwb.core.plan import plan
from gftpwb.core.records import FAILED, PASSED, ResultRecord, bound_output
from gftpwb.core.scenario.model import LOCAL
from gftpwb.kinds.gfapi.report import SLEEP_PER_FILE

from .libgfapi import LOOPBACK, TestDraft, host_name, render_scenario, test_draft
from .libgfapi_logs import ResultBlock, ResultCsv, WorkerLog, tool_totals
from .libgfapi_settings import CURRENT, FIRST_RELEASE, LAUNCHERS, WORKER, Origin, ToolRun, Value, normal_directory

AGGREGATION = "sum of per-process rates, each over its own interval (parallel-libgfapi's totals)"
_PROCESS_DIR = re.compile(r"/smf-gfapi-[^/]+\.\d+/?$")
# header key -> (ToolRun attribute, the worker variable that set it)
_HEADER_VARIABLES = {
    "workload": "GFAPI_LOAD", "threads": "GFAPI_THREADS_PER_PROC", "files": "GFAPI_FILES",
    "file_size_kb": "GFAPI_FSZ", "record_size_kb": "GFAPI_RECSZ", "io_requests": "GFAPI_IOREQ",
    "rdpct": "GFAPI_RDPCT", "fuse": "GFAPI_FUSE", "direct": "GFAPI_DIRECT", "fsync": "GFAPI_FSYNC_AT_CLOSE",
    "append": "GFAPI_APPEND", "overwrite": "GFAPI_OVERWRITE", "usec_delay": "GFAPI_USEC_DELAY_PER_FILE",
    "port": "GFAPI_PORT", "transport": "GFAPI_TRANSPORT", "trace_level": "GFAPI_TRCLVL",
    "files_per_dir": "GFAPI_FILES_PER_DIR", "volume": "GFAPI_VOLNAME", "server": "GFAPI_HOSTNAME",
    "base_directory": "GFAPI_BASEDIR",
}


@dataclass
class ToolResults:
    """The files of one parallel-libgfapi run, read."""

    source: str  # the directory or file it came from (messages, the record)
    logs: list[WorkerLog]
    result_csv: ResultCsv | None = None
    result_csv_name: str = ""
    ended_at: str = ""  # ISO 8601 UTC (the newest file's modification time), "" when unknown


@dataclass
class Settings:
    """What the user says ran (from ``--settings``): the tool's run and the hosts, by scenario name."""

    run: ToolRun
    hosts: list[str]
    name: str  # of the settings file


@dataclass
class Imported:
    record: ResultRecord
    notes: list[str] = field(default_factory=list)
    test: str = ""


@dataclass
class ImportedResults:
    scenario_text: str  # the scenario whose plan the records follow
    runs: list[Imported]
    problems: list[Diagnostic]  # runs that could not be imported, at their file:line


def import_results(results: Sequence[ToolResults], *, scenario: str,
                   settings: Settings | None = None) -> ImportedResults:
    """Records for ``results`` (in order; runs with the same settings are repeats of one test)."""
    problems: list[Diagnostic] = []
    drafts: list[tuple[ToolResults, ToolRun, list[str], TestDraft]] = []
    for found in results:
        try:
            run, hosts = _what_ran(found, settings)
        except ScenarioError as exc:
            problems.extend(_located(d, found) for d in exc.diagnostics)
            continue
        draft, _warnings, errors = test_draft(run, found.source, hosts)
        if errors:
            problems.extend(Diagnostic(found.source, 0, 0, f"no gftpwb equivalent: {e.message}") for e in errors)
            continue
        drafts.append((found, run, hosts, draft))
    if not drafts:
        return ImportedResults("", [], problems)
    tests: dict[str, TestDraft] = {}
    keys: dict[str, str] = {}  # the test's settings (as YAML keys) -> its id
    placed: list[tuple[str, int]] = []
    for _found, _run, _hosts, draft in drafts:
        key = repr(sorted((k, v) for k, v in draft.data.items() if k != "id"))
        if key not in keys:
            test_id = draft.data["id"]
            number = 2
            while test_id in tests:
                test_id, number = f"{draft.data['id']}-{number}", number + 1
            keys[key] = test_id
            tests[test_id] = TestDraft({**draft.data, "id": test_id, "repeat": 0})
        test = tests[keys[key]]
        placed.append((test.data["id"], test.data["repeat"]))
        test.data["repeat"] += 1
    hosts_block = {h: {"address": h} for _f, _r, hosts, _d in drafts for h in hosts if h != LOCAL}
    text = render_scenario(scenario, "parallel-libgfapi results, imported", list(tests.values()), hosts=hosts_block,
                           header="The tests whose plan the imported parallel-libgfapi results follow.")
    specs = {(s.test_id, s.repeat): s for s in plan(load_scenario_text(text, f"{scenario} (imported)"))}
    runs = []
    for (found, run, _hosts, _draft), (test_id, repeat) in zip(drafts, placed, strict=True):
        runs.append(_record(found, run, specs[(test_id, repeat)]))
    return ImportedResults(text, runs, problems)


def _located(d: Diagnostic, found: ToolResults) -> Diagnostic:
    """A problem in a log, named with the run's directory (a log's own name repeats across runs)."""
    if "/" in d.file:
        return d
    return Diagnostic(f"{found.source.rstrip('/')}/{d.file}", d.line, d.column, d.message, d.severity)


# --- what ran -----------------------------------------------------------------------------------------


def _what_ran(found: ToolResults, settings: Settings | None) -> tuple[ToolRun, list[str]]:
    if not found.logs:
        if settings is None:
            raise ScenarioError([Diagnostic(found.result_csv_name or found.source, 0, 0,
                                            "result.csv alone does not say what ran: import it with the per-process "
                                            "logs next to it, or give the settings (--settings ENVFILE --clients "
                                            "LIST)")])
        return settings.run, settings.hosts
    if settings is not None and not any("workload" in log.header for log in found.logs):
        return settings.run, settings.hosts  # the workers died before their output was written: nothing to check
    run, hosts = run_from_logs(found.logs)
    if settings is not None:
        differences = _differences(run, hosts, settings)
        if differences:
            raise ScenarioError([Diagnostic(found.source, 0, 0, f"the logs do not match the settings "
                                                                f"{settings.name}: {'; '.join(differences)}")])
        return settings.run, settings.hosts
    return run, hosts


def _differences(run: ToolRun, hosts: list[str], settings: Settings) -> list[str]:
    mine, _, _ = test_draft(run, "", hosts)
    theirs, _, _ = test_draft(settings.run, "", settings.hosts)
    keys = sorted(set(mine.data) | set(theirs.data))
    return [f"{k}: the logs say {mine.data.get(k, '(not set)')}, the settings {theirs.data.get(k, '(not set)')}"
            for k in keys if mine.data.get(k) != theirs.data.get(k)]


def run_from_logs(logs: Sequence[WorkerLog]) -> tuple[ToolRun, list[str]]:
    """What ran, from the headers of the workers' logs (the first one with a header; every log of a
    launcher run has the same, but for its base directory)."""
    header_log = next((log for log in logs if "workload" in log.header), None)
    if header_log is None:
        first = logs[0]
        raise ScenarioError([Diagnostic(first.name, first.error_line, 0,
                                        f"no worker log has parallel-libgfapi's settings header ({first.error}); "
                                        "give the settings (--settings ENVFILE --clients LIST) to import it as a "
                                        "failed run")])
    header = header_log.header
    launched = bool(header_log.client)
    launcher = LAUNCHERS[(FIRST_RELEASE if header_log.first_release else CURRENT) if launched else WORKER]

    def value(key: str, default: str) -> Value:
        return Value(header.get(key, default), Origin(header_log.name, header_log.header_lines.get(key, 0), 0,
                                                      _HEADER_VARIABLES.get(key, "")))

    def yes(key: str) -> bool:
        return header.get(key, "").lower() in ("1", "yes")

    values = {"workload": value("workload", "seq-wr"), "record_size": value("record_size_kb", "64"),
              "file_size": value("file_size_kb", "1024"), "io_requests": value("io_requests", "0"),
              "direct": value("direct", "0"), "usec_delay": value("usec_delay", "0"), "append": value("append", "0"),
              "overwrite": value("overwrite", "0"), "trace_level": value("trace_level", "0"),
              "rdpct": value("rdpct", "0"), "fsync": value("fsync", "No")}
    processes: dict[str, int] = {}
    for log in logs:
        processes[log.client] = max(processes.get(log.client, 0), log.process + 1)
    workload = header.get("workload", "seq-wr")
    run = ToolRun(
        launcher=launcher, values=values, processes=max(processes.values()) if launched else 1,
        threads=int(header.get("threads", "1")), files=int(header.get("files", "100")),
        file_size_kb=int(header.get("file_size_kb", "1024")), record_size_kb=int(header.get("record_size_kb", "64")),
        workload=workload, io_requests=int(header.get("io_requests", "0")) if workload in ("rnd-wr", "rnd-rd") else 0,
        rdpct=float(header.get("rdpct", "0")), fuse=yes("fuse"), direct="direct" in header, fsync=yes("fsync"),
        append="append" in header and workload != "seq-rdwrmix", overwrite="overwrite" in header,
        usec_delay=int(header.get("usec_delay", "0")), port=int(header.get("port", "24007")),
        transport=header.get("transport", "tcp"), trace_level=int(header.get("trace_level", "0")),
        files_per_dir=int(header.get("files_per_dir", "1000")), volume=header.get("volume", ""),
        server=header.get("server", ""),
        directory=normal_directory(_PROCESS_DIR.sub("", header.get("base_directory", "/tmp")) if launched
                                   else header.get("base_directory", "/tmp")))
    hosts = sorted({client_host(log.client) for log in logs}) if launched else [LOCAL]
    return run, hosts


def client_host(client: str) -> str:
    """The scenario host of a client named in a log's name (as the client list import names it)."""
    address = client.rpartition("@")[2]
    return LOCAL if not client or LOOPBACK.match(address) else host_name(address)


# --- the record ---------------------------------------------------------------------------------------


def _rates(block: ResultBlock | None, record_kb: int, notes: list[str]) -> dict[str, Any] | None:
    """seconds, counters and rates of one block as the worker printed them; the file rate recomputed
    from the throughput when the worker left it out (< 10 files) or printed the first release's 0."""
    if block is None:
        return None
    v = block.values
    files, ios, nbytes = block.files, block.count("I/O (record) transfers"), block.count("total bytes")
    mib_s = _finite(v.get("throughput"))
    iops = _finite(v.get("IOPS"))
    files_s = _finite(v.get("file rate"))
    mib = ios * record_kb / 1024
    seconds = _finite(v.get("elapsed time"))
    missing = files_s is None or (files_s == 0 and "file transfers" in v)
    if files and missing:
        if mib_s and mib:  # the throughput has more digits than the elapsed time
            files_s = round(files * mib_s / mib, 3)
        elif seconds:
            files_s = round(files / seconds, 3)
        why = ("a worker left it out under 10 files" if "file transfers" not in v
               else "the first release printed 0 for more than 10 files")
        note = f"file rate recomputed where {why}"
        if files_s is not None and note not in notes:
            notes.append(note)
    if mib_s and mib:
        seconds = round(mib / mib_s, 6)
    return {"seconds": seconds, "files": files, "ios": ios, "bytes": nbytes, "mib_s": mib_s, "files_s": files_s,
            "iops": iops}


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _sum(rows: Sequence[dict[str, Any]], key: str) -> float | None:
    known = [r[key] for r in rows if r and r.get(key) is not None]
    return round(sum(known), 3) if known else None


def _from_logs(found: ToolResults, run: ToolRun, record_kb: int, per_file: dict[str, int],
               notes: list[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(threads, processes) as the workers' logs give them."""
    threads, processes = [], []
    for log in sorted(found.logs, key=lambda g: (client_host(g.client), g.process)):
        host = client_host(log.client) if log.client else LOCAL
        blocks = log.threads or ([log.aggregate] if log.aggregate is not None else [])
        for index in range(run.threads):
            block = next((b for b in blocks if b.thread in (index, -1)), None) if log.ok else None
            figures = _rates(block, record_kb, notes)
            threads.append({"host": host, "process": log.process, "thread": log.process * run.threads + index,
                            "status": "ok" if figures is not None else ("failed" if log.aggregate else "not-started"),
                            "error": "" if log.ok else f"{log.name}: {log.error}", "start_offset_ms": None,
                            "start_unix_ns": None, "host_start_unix_ns": None,
                            **(figures or {"seconds": 0.0, "files": 0, "ios": 0, "bytes": 0, "mib_s": None,
                                           "files_s": None, "iops": None}),
                            "requested": dict(per_file), "latency": {}})
        last = _rates(log.aggregate, record_kb, notes) if log.ok else None
        processes.append({"host": host, "process": log.process, "threads": run.threads,
                          "status": "ok" if log.ok else "failed", "files": last["files"] if last else 0,
                          "ios": last["ios"] if last else 0, "bytes": last["bytes"] if last else 0,
                          "last_done": last, "log": log.name, "error": "" if log.ok else log.error})
    return threads, processes


def _from_result_csv(found: ToolResults, run: ToolRun, notes: list[str]) -> list[dict[str, Any]]:
    """Processes from result.csv alone: no client, no counters, a row's rates (its line number names it)."""
    assert found.result_csv is not None
    notes.append("from result.csv alone: no client, thread or counter is known, only each process's rates")
    processes = []
    for index, row in enumerate(found.result_csv.rows):
        elapsed, mbs, fps, iops = (_float(f) for f in row.fields)
        ok = elapsed is not None
        processes.append({"host": "", "process": index, "threads": run.threads, "status": "ok" if ok else "failed",
                          "files": None, "ios": None, "bytes": None,
                          "last_done": {"seconds": elapsed, "files": None, "ios": None, "bytes": None, "mib_s": mbs,
                                        "files_s": fps, "iops": iops} if ok else None,
                          "log": f"{found.result_csv_name}:{row.line}",
                          "error": "" if ok else "no results in its row (the worker printed none)"})
    return processes


def _total(rows: Sequence[dict[str, Any]], key: str) -> int | None:
    """The sum of a counter, None when any row does not know it."""
    values = [r[key] for r in rows]
    return None if any(v is None for v in values) else sum(values)


def _float(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _record(found: ToolResults, run: ToolRun, spec) -> Imported:
    notes: list[str] = []
    record_kb = min(run.record_size_kb, run.file_size_kb)
    per_file = {"files": run.files, "ios": run.files * _ios_per_file(run, record_kb),
                "bytes": run.files * _bytes_per_file(run, record_kb)}
    if found.logs:
        threads, processes = _from_logs(found, run, record_kb, per_file, notes)
        if run.workload == "unlink":  # "files done = 0": deletes were not counted, not none made
            for row in [*threads, *processes, *(p["last_done"] for p in processes if p["last_done"])]:
                row["files"] = None
        counters: dict[str, int | None] = {k: _total(threads, k) for k in ("files", "ios", "bytes")}
    else:
        threads, processes = [], _from_result_csv(found, run, notes)
        counters = {"files": None, "ios": None, "bytes": None}
    finished = [p["last_done"] for p in processes if p["status"] == "ok"]
    cluster_last = None
    if finished:
        cluster_last = {"seconds": max((p["seconds"] or 0.0) for p in finished), **counters,
                        "mib_s": _sum(finished, "mib_s"), "files_s": _sum(finished, "files_s"),
                        "iops": _sum(finished, "iops")}
    if run.workload == "unlink":
        notes.append("parallel-libgfapi counted no deleted file: no rates")
        if cluster_last:
            cluster_last.update(mib_s=None, files_s=None, iops=None)
    rows = [r.fields for r in found.result_csv.rows] if found.result_csv else [
        (log.last_value("elapsed time"), log.last_value("throughput"), log.last_value("file rate"),
         log.last_value("IOPS")) for log in sorted(found.logs, key=lambda g: g.name)]
    totals = tool_totals(rows)
    if cluster_last and cluster_last["files_s"] is not None and abs(
            totals["file_rate_files_s"] - cluster_last["files_s"]) > 0.01 * max(1.0, cluster_last["files_s"]):
        notes.append(f"parallel-libgfapi printed file-rate {totals['file_rate_files_s']} files/sec; the record has "
                     f"{cluster_last['files_s']} (a process with under 10 files moved its IOPS into that column, or "
                     "a file rate was recomputed)")
    _check_result_csv(found, notes)
    notes[:0] = _measurement_notes(run)
    processes_total = len(processes) if processes else 0
    hosts: dict[str, list[dict[str, Any]]] = {}
    for row in threads:
        hosts.setdefault(row["host"], []).append(row)

    def group(rows_: list[dict[str, Any]], last_done: dict[str, Any] | None) -> dict[str, Any]:
        return {"threads": len(rows_), "ok": sum(r["status"] == "ok" for r in rows_),
                **{k: _total(rows_, k) for k in ("files", "ios", "bytes")},
                "requested": {k: v * len(rows_) for k, v in per_file.items()}, "start_skew_ms": None,
                "first_done": None, "last_done": last_done, "latency": {}}

    thread_count = len(threads) or processes_total * run.threads
    cluster = {"threads": thread_count, "ok": (sum(t["status"] == "ok" for t in threads) if threads
                                               else len(finished) * run.threads),
               **counters, "requested": {k: v * thread_count for k, v in per_file.items()}, "start_skew_ms": None,
               "first_done": None, "last_done": cluster_last, "latency": {}}
    details = {"gfapi": {
        "mode": "posix" if run.fuse else "gfapi", "workload": spec.params.get("workload"), "target": spec.target,
        "processes_per_host": run.processes, "threads_per_process": run.threads,
        "imported": {"tool": "parallel-libgfapi", "launcher": run.launcher.name, "aggregation": AGGREGATION,
                     "tool_totals": totals, "notes": notes},
        "measurement": {"tool": "parallel-libgfapi", "aggregate": AGGREGATION,
                        SLEEP_PER_FILE: f"{run.usec_delay} µs" if run.usec_delay else "none"},
        "start_skew_ms": None, "cluster": cluster,
        "hosts": {h: group(rs, None) for h, rs in sorted(hosts.items())},
        "processes": processes, "threads": threads, "latency_histograms": {}},
        "imported_from": found.source}
    failed = [p for p in processes if p["status"] != "ok"]
    error = "\n".join(f"{p['log']}: {p['error']}" for p in failed[:20])
    if len(failed) > 20:
        error += f"\n... and {len(failed) - 20} more"
    output = "\n".join(f"[{log.name}] {line}" for log in found.logs for line in log.text.split("\n") if line.strip())
    stamps = sorted(t for log in found.logs for t in log.timestamps)
    record = ResultRecord(
        scenario=spec.scenario, test_id=spec.test_id, run_id=spec.run_id, case=spec.case, repeat=spec.repeat,
        kind=spec.kind, host=spec.host, argv=[_program(run)], status=PASSED if finished and not failed else FAILED,
        params=dict(spec.params), started_at=_iso(stamps[0]) if stamps else "", ended_at=found.ended_at,
        seconds=cluster_last["seconds"] if cluster_last else None, bytes=counters["bytes"],
        exit_code=None, error=error, output=bound_output(output), comment="", engine="real", details=details)
    return Imported(record, notes, spec.test_id)


def _measurement_notes(run: ToolRun) -> list[str]:
    """What a reader of an imported run's figures must know of how they were measured (the record keeps
    them, and ``details.gfapi.measurement``, which compare holds against the other side's)."""
    notes = [f"its totals are {AGGREGATION}, not all the work over one common window as gftpwb measures"]
    if run.usec_delay:
        notes.insert(0, f"every thread slept {run.usec_delay} µs after each file, inside its timed loop (its log: "
                        f"'sleeping {run.usec_delay} microsec after each file'): at most "
                        f"{1e6 / run.usec_delay:,.0f} files/s per thread")
    return notes


def _program(run: ToolRun) -> str:
    return {CURRENT: "parallel_gfapi_test.sh", FIRST_RELEASE: "parallel_gfapi_test.sh"}.get(run.launcher.name,
                                                                                             "gfapi_perf_test")


def _ios_per_file(run: ToolRun, record_kb: int) -> int:
    if run.workload == "unlink":
        return 0
    records = run.file_size_kb // record_kb
    if run.workload in ("rnd-wr", "rnd-rd") and 0 < run.io_requests <= records:
        return run.io_requests
    return records  # more requests than records: the worker refused, and the test does every record


def _bytes_per_file(run: ToolRun, record_kb: int) -> int:
    if run.workload == "unlink":
        return 0
    if run.workload in ("rnd-wr", "rnd-rd"):
        return _ios_per_file(run, record_kb) * record_kb * 1024
    return run.file_size_kb * 1024


def _iso(moment: datetime) -> str:
    """A worker's local time stamp (no zone in it: read in this machine's zone, as tag logs are) in UTC."""
    return moment.astimezone().astimezone(UTC).isoformat(timespec="seconds")


def _check_result_csv(found: ToolResults, notes: list[str]) -> None:
    """Rows of result.csv that no log explains (edited, or the logs of another run)."""
    if found.result_csv is None or not found.logs:
        return
    expected = sorted((log.last_value("elapsed time"), log.last_value("throughput")) for log in found.logs)
    rows = sorted((r.fields[0], r.fields[1]) for r in found.result_csv.rows)
    if rows != expected:
        notes.append(f"{found.result_csv_name}: its rows do not match the logs' results (the record follows the "
                     "logs)")
