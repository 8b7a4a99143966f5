"""Tracing against the real components: guc and the lab's GridFTP server (phases from guc's -dbg
conversation), the gfapi worker in POSIX mode and through libgfapi on the lab's GlusterFS volume
(binary per-I/O events, counted exactly), and the exports and summary of what they wrote."""

import itertools
import json
import textwrap
import uuid
from collections import Counter
from pathlib import Path

import pytest
from support.clihelp import gftpwb
from support.results import records
from support.trace_helpers import parse_bp, validate_trace_events

from gftpwb.core.trace.iofmt import BLOCK_SIZE, EVENT_SIZE, HEADER_SIZE

pytestmark = [pytest.mark.real]


def write_scenario(tmp_path: Path, body: str, name: str = "tr") -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"version: 1\nname: {name}\n" + textwrap.dedent(body))
    return str(path)


def trace_records(results: Path) -> list[dict]:
    lines = (results / "trace.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["type"] == "meta"
    return [json.loads(line) for line in lines[1:]]


def test_guc_run_level_trace_of_a_third_party_transfer(tmp_path, gridftp):
    url = gridftp.url
    scenario = write_scenario(tmp_path, f"""\
        tests:
          - id: t
            kind: guc
            source: {url}/dev/zero
            target: {url}/dev/null
            options: {{length: 32M, parallel: 2}}
        """)
    results = tmp_path / "results"
    out = gftpwb("run", scenario, "--trace", "run", "--results", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    (record,) = records(results)
    assert record["details"]["trace"] == {"level": "run"} and "-dbg" not in record["argv"]  # records keep the argv
    assert "debug: authenticating with" in record["output"]  # ... and guc really ran with -dbg
    trace = trace_records(results)
    spans = [r for r in trace if r["type"] == "span"]
    source, target = f"{url}/dev/zero", f"{url}/dev/null"
    names = {(r["name"], r["track"]) for r in spans}
    for end in (source, target):
        assert {("guc.connect", end), ("guc.login", end), ("guc.setup", end), ("guc.data", end)} <= names
    assert ("guc.close", "run") in names
    (run,) = [r for r in spans if r["name"] == "run"]
    assert run["args"]["status"] == "passed" and run["args"]["bytes"] == 32 * 1048576
    for span in spans:  # every phase lies within the run
        assert run["ts"] <= span["ts"] and span["ts"] + span["dur"] <= run["ts"] + run["dur"]
    by_name = {(r["name"], r["track"]): r for r in spans}
    for end in (source, target):  # in order on each control connection
        steps = [by_name[(f"guc.{step}", end)] for step in ("connect", "login", "setup", "data")]
        assert all(a["ts"] + a["dur"] <= b["ts"] for a, b in itertools.pairwise(steps))
    markers = [r for r in trace if r["name"] == "guc.perf_marker"]
    assert markers and markers[-1]["args"]["bytes"] == 32 * 1048576 and markers[-1]["track"] == target
    assert {"ERET", "ESTO", "PASV", "PORT"} <= {r["args"]["command"] for r in trace if r["name"] == "guc.command"}

    out = gftpwb("trace", "export", str(results), "--format", "perfetto")
    assert out.returncode == 0, out.stderr
    events = validate_trace_events(json.loads((results / "trace.perfetto.json").read_text()))
    assert {e["args"]["name"] for e in events if e["name"] == "thread_name"} >= {"run", source, target}
    out = gftpwb("trace", "export", str(results), "--format", "bp", "-o", "-")
    parsed = [parse_bp(line) for line in out.stdout.splitlines()]
    assert {"guc.connect.start", "guc.connect.end", "guc.data.end", "gftpwb.run.end", "guc.perf_marker"} <= {
        p["event"] for p in parsed}
    out = gftpwb("trace", "summary", str(results))
    assert out.returncode == 0 and "guc.connect" in out.stdout and "guc.data" in out.stdout


def gfapi_body(directory: str, extra: str = "") -> str:
    return f"""\
        tests:
          - id: write
            kind: gfapi
            directory: {directory}
            workload: seq-wr
            processes: 2
            threads: 2
            files: 30
            file_size: 32K
            record_size: 8K
            trace: io
            timeout: 2m{extra}
          - id: read
            kind: gfapi
            directory: {directory}
            workload: seq-rd
            processes: 2
            threads: 2
            files: 30
            file_size: 32K
            record_size: 8K
            trace: {{level: io, every: 3}}
            timeout: 2m{extra}
        """


def io_of(results: Path, run: str) -> list[dict]:
    return [r for r in trace_records(results) if r["type"] == "iofile" and r["run"] == run]


def check_io_trace(results: Path) -> None:
    """2 processes x 2 threads x 30 files of 4 records: every I/O of the write test, one in three of the read's."""
    from gftpwb.core.trace.iofmt import decode

    write_files, read_files = io_of(results, "write/0"), io_of(results, "read/0")
    assert sorted(f["process"] for f in write_files) == [0, 1] and len(read_files) == 2
    ops: Counter = Counter()
    written = 0
    for index in write_files:
        data = (results / index["path"]).read_bytes()
        # 16 bytes an event, and one block header per thread (each thread's events fit one chunk)
        assert len(data) == HEADER_SIZE + 2 * BLOCK_SIZE + EVENT_SIZE * index["events"] == index["bytes"]
        header, events = decode(data)
        assert header.every == 1 and header.thread_base == index["process"] * 2
        assert {e.thread for e in events} == {index["process"] * 2, index["process"] * 2 + 1}
        ops.update(e.op_name for e in events)
        written += sum(e.bytes for e in events)
        assert all(e.duration_ns > 0 and not e.flags for e in events)
    assert ops == {"open": 120, "write": 480, "close": 120}
    assert written == 120 * 32768
    for index in read_files:
        header, events = decode((results / index["path"]).read_bytes())
        assert header.every == 3 and len(events) == 2 * 30 * 6 // 3  # 2 threads x 180 operations / 3
    (write, _read) = records(results)
    assert write["details"]["trace"] == {"level": "io"}
    # Each thread's I/Os lie inside its worker.run span, on the controller's clock (2 ms: clock reading slack).
    trace = trace_records(results)
    runs = {r["track"]: r for r in trace if r.get("name") == "worker.run" and r["run"] == "write/0"}
    assert len(runs) == 4
    for index in write_files:
        header, events = decode((results / index["path"]).read_bytes())
        for e in events:
            span = runs[f"thread {e.thread}"]
            at = header.unix_ns(e.start_ns) - index["clock_offset_ns"]
            assert span["ts"] - 2_000_000 <= at and at + e.duration_ns <= span["ts"] + span["dur"] + 2_000_000


def test_gfapi_io_trace_in_posix_mode(tmp_path):
    results = tmp_path / "results"
    scenario = write_scenario(tmp_path, gfapi_body(str(tmp_path / "files")))
    before = set(Path("/tmp").glob("gftpwb-iotrace-*"))
    out = gftpwb("run", scenario, "--results", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    check_io_trace(results)
    assert set(Path("/tmp").glob("gftpwb-iotrace-*")) <= before  # fetched, then removed from the host
    out = gftpwb("trace", "summary", str(results), "--top", "3")
    assert out.returncode == 0, out.stderr
    assert "Latency per I/O operation (sampled: one event in 1, 3 per thread)" in out.stdout
    assert "Slowest I/Os (top 3)" in out.stdout and "Slowest intervals" in out.stdout
    out = gftpwb("trace", "export", str(results), "--format", "perfetto", "-o", str(tmp_path / "t.json"))
    events = validate_trace_events(json.loads((tmp_path / "t.json").read_text()))
    assert sum(1 for e in events if e.get("cat") == "io") == 720 + 240
    out = gftpwb("trace", "export", str(results), "--format", "bp", "-o", str(tmp_path / "t.bp"))
    lines = (tmp_path / "t.bp").read_text().splitlines()
    parsed = [parse_bp(line) for line in lines]
    assert sum(1 for p in parsed if p["event"] == "gfapi.io.write.end") == 480
    assert sum(1 for p in parsed if p["event"].startswith("gfapi.io.")) == 2 * (720 + 240)


def test_gfapi_io_trace_across_many_chunks(tmp_path):
    """More events per thread than several of the worker's 16383-event chunks hold (full chunks to the
    writer, the spare and recycled chunks taken in turn): every event arrives once, in each thread's
    order; with sampling, exactly one in N."""
    from gftpwb.core.trace.iofmt import decode

    directory = tmp_path / "files"
    for every, files in ((1, 12000), (7, 12000)):
        results = tmp_path / f"results-{every}"
        scenario = write_scenario(tmp_path, f"""\
            tests:
              - id: w
                kind: gfapi
                directory: {directory}/{every}
                workload: seq-wr
                threads: 2
                files: {files}
                file_size: 1K
                record_size: 1K
                trace: {{level: io, every: {every}}}
                timeout: 2m
            """, name=f"chunks{every}")
        out = gftpwb("run", scenario, "--results", str(results), "--progress", "never")
        assert out.returncode == 0, out.stdout + out.stderr
        (index,) = io_of(results, "w/0")
        header, events = decode((results / index["path"]).read_bytes())
        assert header.every == every and len(events) == index["events"] == 2 * -(-3 * files // every)
        for thread in (0, 1):
            mine = [e for e in events if e.thread == thread]
            assert [e.start_ns for e in mine] == sorted(e.start_ns for e in mine)
            if every == 1:  # open, write, close per file, in order
                assert [e.op_name for e in mine] == ["open", "write", "close"] * files
                assert sum(e.bytes for e in mine) == files * 1024


@pytest.mark.slow
def test_gfapi_io_trace_through_libgfapi(tmp_path, gluster):
    directory = f"/gftpwb-trace-{uuid.uuid4().hex[:8]}"
    volume = f"\n            volume: {{name: {gluster.volume}, server: {gluster.address}}}"
    results = tmp_path / "results"
    scenario = write_scenario(tmp_path, gfapi_body(directory, volume))
    out = gftpwb("run", scenario, "--results", str(results), "--progress", "never")
    assert out.returncode == 0, out.stdout + out.stderr
    assert {r["details"]["gfapi"]["mode"] for r in records(results)} == {"gfapi"}
    check_io_trace(results)


def test_level_switch_by_signal_takes_effect_mid_run(tmp_path):
    """SIGUSR2 to gftpwb switches a running gfapi worker from run to io: no I/O event before the switch,
    I/O events after it, the switch in trace.jsonl and in the worker's own file."""
    import os
    import signal

    from gftpwb.core.events import WorkerProgress
    from gftpwb.core.plan import plan
    from gftpwb.core.trace.iofmt import OP_LEVEL, decode
    from gftpwb.shell import frontend
    from gftpwb.shell.session import RunRequest

    scenario_path = write_scenario(tmp_path, f"""\
        tests:
          - id: many
            kind: gfapi
            directory: {tmp_path / "files"}
            workload: seq-wr
            threads: 2
            files: 40000
            file_size: 1
            record_size: 1
            trace: run
            timeout: 2m
        """)
    scenario = frontend.load(scenario_path)
    results = tmp_path / "results"
    sent = []

    def switch_once_running(event) -> None:
        if isinstance(event, WorkerProgress) and event.state == "running" and event.files and not sent:
            sent.append(event.files)
            os.kill(os.getpid(), signal.SIGUSR2)

    request = RunRequest(scenario=scenario, specs=plan(scenario), results_dir=str(results), command=["test"],
                         subscribers=[switch_once_running],
                         record_environment=False)
    outcome = frontend.run(request)
    assert outcome.summary.all_passed and sent
    trace = trace_records(results)
    (mark,) = [r for r in trace if r.get("name") == "trace.level"]
    assert mark["args"] == {"level": "io", "source": "signal SIGUSR2"}
    (index,) = [r for r in trace if r["type"] == "iofile"]
    _header, events = decode((results / index["path"]).read_bytes())
    levels = [e for e in events if e.op == OP_LEVEL]
    ios = [e for e in events if e.op != OP_LEVEL]
    assert [e.bytes for e in levels] == [2]  # switched to io once
    # recorded from the switch on (an operation in flight when it came is recorded as it ends)
    assert ios and all(e.start_ns + e.duration_ns >= levels[0].start_ns - 1_000_000 for e in ios)
    assert len(ios) < 2 * 40000 * 3  # the operations before the switch were not recorded
    (record,) = records(results)
    assert record["details"]["trace"] == {"level": "run"}


def test_live_stream_to_a_collector_on_a_namespace_host(tmp_path, netlab):
    """gftpwb trace collect runs on lab host h1 (its own network namespace); gftpwb run on the
    controller streams its trace there over TCP; what arrives equals what the results directory holds."""
    import subprocess
    import sys

    from support.labhosts import netns_of

    status = netlab.status()
    h1 = next(h for h in status["hosts"] if h["name"] == "h1")
    port = 20000 + uuid.uuid4().int % 10000
    out = tmp_path / "collected"
    collector = subprocess.Popen(["ip", "netns", "exec", netns_of(netlab, "h1"), sys.executable, "-m", "gftpwb",
                                  "trace", "collect", "--listen", f"{h1['address']}:{port}", "--out", str(out),
                                  "--once"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "listening on" in collector.stdout.readline()
        results = tmp_path / "results"
        scenario = write_scenario(tmp_path, f"""\
            tests:
              - id: w
                kind: gfapi
                directory: {tmp_path / "files"}
                workload: seq-wr
                threads: 2
                files: 50
                file_size: 8K
                record_size: 4K
                trace: io
            """)
        run = gftpwb("run", scenario, "--results", str(results), "--progress", "never", "--trace-to",
                     f"{h1['address']}:{port}")
        assert run.returncode == 0, run.stdout + run.stderr
        stdout, stderr = collector.communicate(timeout=30)
    finally:
        if collector.poll() is None:
            collector.kill()
            collector.wait()
    assert collector.returncode == 0, stderr
    (sender,) = list(out.iterdir())
    received = sender / "results"
    assert (received / "trace" / "w_0" / "local-p0.bin").read_bytes() == \
        (results / "trace" / "w_0" / "local-p0.bin").read_bytes()
    local = (results / "trace.jsonl").read_text().splitlines()
    remote = (received / "trace.jsonl").read_text().splitlines()
    assert sorted(local[1:]) == sorted(remote[1:]) and json.loads(remote[0])["type"] == "meta"
    assert f"{len(local)} record(s), 1 I/O file(s)" in stdout  # the meta line and the records, and the file
    summary = gftpwb("trace", "summary", str(received))  # a collected trace reads like a results directory's
    # 2 threads x 50 files x (open, 2 writes, close)
    assert summary.returncode == 0 and "400 I/O event(s)" in summary.stdout


def test_guc_to_a_local_file_traced_with_read_pauses(tmp_path, gridftp, monkeypatch):
    """A traced guc with a local file end prints two -dbg lines per data buffer; the controller reads
    them in pauses (here forced at loopback speed, which is otherwise too fast to pause at). The
    phases of both ends' conversation are still there and in order, and the record's output keeps
    every per-buffer line."""
    from gftpwb.core.dsl.loader import load_scenario_text
    from gftpwb.core.plan import plan
    from gftpwb.kinds.guc import session as driver  # the guc run session
    from gftpwb.shell import frontend
    from gftpwb.shell.session import RunRequest

    monkeypatch.setattr(driver, "DATA_DEBUG_GATHER_MAX", 1 << 40)
    monkeypatch.setattr(driver, "DATA_DEBUG_PAUSE_S", 0.01)
    pauses = []
    plain = driver.GucRun.read_pause_s

    def counted(self, stream, data):
        pause = plain(self, stream, data)
        pauses.append(pause)
        return pause

    monkeypatch.setattr(driver.GucRun, "read_pause_s", counted)
    target = tmp_path / "copy"
    scenario = load_scenario_text(textwrap.dedent(f"""\
        version: 1
        name: tl
        trace: run
        tests:
          - id: t
            kind: guc
            source: {gridftp.url}/dev/zero
            target: file://{target}
            options: {{length: 64M, parallel: 2}}
        """), "tl.yaml")
    results = tmp_path / "results"
    outcome = frontend.run(RunRequest(scenario=scenario, specs=plan(scenario), results_dir=str(results),
                                      command=["test"], record_environment=False))
    (record,) = outcome.journal.records
    assert record.status == "passed", record.error
    assert target.stat().st_size == 64 * 1048576
    assert any(p > 0 for p in pauses)  # the pauses were taken ...
    # ... and every per-buffer line is in the record's output: 64 MiB in 256 KiB buffers, one callback each
    assert record.output.count("debug: data callback, no error") >= 256
    spans = [r for r in trace_records(results) if r["type"] == "span"]
    by_name = {(r["name"], r["track"]): r for r in spans}
    source = f"{gridftp.url}/dev/zero"
    steps = [by_name[(f"guc.{step}", source)] for step in ("connect", "login", "setup", "data")]
    assert all(a["ts"] + a["dur"] <= b["ts"] for a, b in itertools.pairwise(steps))
    (run,) = [r for r in spans if r["name"] == "run"]
    assert ("guc.close", "run") in by_name and run["args"]["bytes"] == 64 * 1048576
    for span in spans:
        assert run["ts"] <= span["ts"] and span["ts"] + span["dur"] <= run["ts"] + run["dur"]
