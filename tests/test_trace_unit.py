"""Tracing without servers: the trace key and --trace, the builder of trace.jsonl records, guc's
phases from a -dbg conversation, exports (BP, Perfetto) and the summary, on synthetic events."""

import itertools
import json
import textwrap

import pytest
from support.clihelp import gftpwb
from support.trace_helpers import parse_bp, validate_trace_events

from gftpwb.core.dsl.loader import load_scenario_text
from gftpwb.core.errors import ScenarioError
from gftpwb.core.events import OutputLine, Progress, RunFinished, RunStarted, TraceLevelChanged, WorkerProgress
from gftpwb.core.output import TextLine
from gftpwb.core.plan import plan, with_trace
from gftpwb.core.records import ResultRecord
from gftpwb.core.specs import RunSpec
from gftpwb.core.trace.builder import TraceBuilder
from gftpwb.core.trace.export import bp_lines, perfetto
from gftpwb.core.trace.iofmt import Header, IoEvent, encode
from gftpwb.core.trace.reader import load_trace, parse_records
from gftpwb.core.trace.setting import TraceSetting, parse_option
from gftpwb.core.trace.summary import log2_histogram, percentile, summary_lines
from gftpwb.kinds.guc.driver import with_debug
from gftpwb.kinds.guc.phases import GucPhases
from gftpwb.kinds.guc.session import DATA_DEBUG_PAUSE_S, GucRun, data_debug_only

SCENARIO = textwrap.dedent("""\
    version: 1
    name: tr
    trace: run
    tests:
      - id: a
        kind: guc
        source: file:///dev/zero
        target: file:///dev/null
        options: {length: 1M}
        trace: {level: io, every: 8}
      - id: b
        kind: guc
        source: file:///dev/zero
        target: file:///dev/null
        options: {length: 1M}
      - id: c
        kind: guc
        source: file:///dev/zero
        target: file:///dev/null
        options: {length: 1M}
        trace: off
    """)


def traces_of(scenario) -> dict[str, dict | None]:
    return {spec.test_id: spec.details.get("trace") for spec in plan(scenario)}


def test_trace_levels_scenario_then_test():
    scenario = load_scenario_text(SCENARIO, "s.yaml")
    assert traces_of(scenario) == {"a": {"level": "io", "every": 8}, "b": {"level": "run"}, "c": None}


def test_command_line_overrides_every_level():
    scenario = load_scenario_text(SCENARIO, "s.yaml")
    assert traces_of(with_trace(scenario, parse_option("off"))) == {"a": None, "b": None, "c": None}
    assert set(map(str, traces_of(with_trace(scenario, parse_option("io:4"))).values())) == {
        str({"level": "io", "every": 4})}


def test_untraced_specs_stay_as_planned():
    plain = load_scenario_text(SCENARIO.replace("trace: run\n", "").replace("trace: {level: io, every: 8}", "")
                               .replace("trace: off", ""), "s.yaml")
    assert all("trace" not in spec.details for spec in plan(plain))


@pytest.mark.parametrize("text, where, message", [
    ("trace: debug\n", "3:8", "expected off, run, io or {level: io, every: 64}"),
    ("trace: {level: run, every: 4}\n", "3:28", "every samples I/O events, which only the io level records"),
    ("trace: {level: io, every: 0}\n", "3", "every"),
])
def test_bad_trace_values_are_positioned(text, where, message):
    source = SCENARIO.replace("trace: run\n", text)
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(source, "s.yaml")
    shown = "\n".join(map(str, info.value.diagnostics))
    assert f"s.yaml:{where}" in shown and message in shown, shown


@pytest.mark.parametrize("value, message", [("loud", "the level is off, run or io"), ("run:4", "only the io level"),
                                            ("io:0", "N of io:N")])
def test_bad_trace_options(value, message):
    with pytest.raises(ValueError, match=message):
        parse_option(value)


def test_bad_trace_option_on_the_command_line(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    out = gftpwb("run", str(path), "--trace", "loud", "--dry-run")
    assert out.returncode == 2
    assert "--trace 'loud': the level is off, run or io" in out.stderr and "Traceback" not in out.stderr


def test_setting_of_details():
    assert TraceSetting.of_details({}) == TraceSetting()
    assert TraceSetting.of_details({"trace": {"level": "io", "every": 3}}) == TraceSetting("io", 3)


def test_guc_gets_dbg_after_vb():
    assert with_debug(("globus-url-copy", "-vb", "-p", "2", "a", "b")) == (
        "globus-url-copy", "-vb", "-dbg", "-p", "2", "a", "b")
    assert with_debug(("globus-url-copy", "-dbg", "a", "b")) == ("globus-url-copy", "-dbg", "a", "b")


# A real guc -dbg conversation (globus-url-copy 10.12 against globus-gridftp-server 13.24), shortened.
DBG = """\
debug: starting to transfer ftp://h:1/dev/zero to ftp://h:1/dev/null
debug: connecting to ftp://h:1/dev/null
debug: response from ftp://h:1/dev/null:
220 vm GridFTP Server 13.24 ready.
debug: authenticating with ftp://h:1/dev/null
debug: response from ftp://h:1/dev/null:
230 User anonymous logged in.
debug: sending command to ftp://h:1/dev/null:
MODE E
debug: response from ftp://h:1/dev/null:
200 Mode set to E.
debug: sending command to ftp://h:1/dev/null:
ESTO A 0 /dev/null
debug: connecting to ftp://user:secret@h:1/dev/zero
debug: response from ftp://user:secret@h:1/dev/zero:
220 vm GridFTP Server 13.24 ready.
debug: authenticating with ftp://user:secret@h:1/dev/zero
debug: response from ftp://user:secret@h:1/dev/zero:
230 User user logged in.
debug: sending command to ftp://user:secret@h:1/dev/zero:
ERET P 0 4194304 /dev/zero
debug: response from ftp://h:1/dev/null:
112-Perf Marker
 Timestamp:  1795369794.8
 Stripe Index: 0
 Stripe Bytes Transferred: 4194304
 Total Stripe Count: 1
112 End.
debug: response from ftp://h:1/dev/null:
226 Transfer Complete.
debug: response from ftp://user:secret@h:1/dev/zero:
226 Transfer Complete.
debug: operation complete
"""


def guc_items():
    reader = GucPhases()
    items = []
    for t, text in enumerate(DBG.splitlines()):
        items += reader.feed("stderr", text, float(t))
    return items + reader.close(100.0)


# What guc -dbg prints for every data buffer of a transfer to a local file (real guc, shortened).
DATA_LINES = """\
debug: reading into data buffer 0x7f215e5f7010, maximum length 1048576
debug: data callback, no error, buffer 0x7f215e5f7010, length 262144, offset=0, eof=false
"""


@pytest.mark.parametrize("quiet", [True, False])
def test_traced_guc_does_not_publish_its_per_buffer_debug_lines(quiet):
    """With gftpwb's own -dbg (a trace), the two lines per data buffer stay in the record's output but do
    not become OutputLine events; the control conversation, the phases and the outcome do not change."""
    head, tail = DBG.split("debug: response from ftp://h:1/dev/null:\n226", 1)
    text = head + DATA_LINES * 50 + "debug: response from ftp://h:1/dev/null:\n226" + tail
    session = GucRun(length_bytes=4194304, quiet_data_debug=quiet)
    data = text.encode()
    items = [item for i in range(0, len(data), 97) for item in session.feed("stderr", data[i:i + 97])]
    items += session.close()
    lines = [item.text for item in items if isinstance(item, TextLine)]
    control = [line for line in DBG.splitlines() if line.strip()]
    if quiet:
        assert lines == control
    else:
        assert len(lines) == len(control) + 100
    reader = GucPhases()
    phases = [p for t, line in enumerate(lines) for p in reader.feed("stderr", line, float(t))]
    assert {p.name for p in phases if hasattr(p, "end")} >= {"guc.connect", "guc.login", "guc.setup", "guc.data"}
    outcome = session.outcome(0, 1.0)
    assert outcome.status == "passed" and outcome.output.count("data callback") == 50


def _quiet_session_run(data: bytes, cuts: list[int]) -> tuple[list, list[str], str]:
    session = GucRun(length_bytes=4194304, quiet_data_debug=True)
    items = [item for a, b in itertools.pairwise([0, *cuts, len(data)]) for item in session.feed("stderr", data[a:b])]
    items += session.close()
    return items, session.stderr_lines, session.outcome(0, 1.0).output


@pytest.mark.parametrize("chunking", ["per line", "per two lines", "97 bytes", "whole"])
def test_per_buffer_lines_skip_the_parser_with_the_same_result(chunking):
    """A chunk of nothing but per-buffer lines (most chunks of a traced transfer to a local file) is
    taken without the parser; items, kept stderr lines and the record's output are what the parser
    gives for the same bytes cut anywhere."""
    head, tail = DBG.split("debug: response from ftp://h:1/dev/null:\n226", 1)
    data = (head + DATA_LINES * 20 + "debug: response from ftp://h:1/dev/null:\n226" + tail).encode()
    ends = [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
    cuts = {"per line": ends, "per two lines": ends[1::2], "97 bytes": list(range(97, len(data), 97)),
            "whole": []}[chunking]
    reference = _quiet_session_run(data, list(range(97, len(data), 97)))  # never line-aligned: the parser
    assert _quiet_session_run(data, cuts) == reference
    assert reference[1].count(DATA_LINES.splitlines()[1]) == 20  # the per-buffer lines are kept, not lost


def test_data_debug_only():
    line = DATA_LINES.encode()
    assert data_debug_only(line) and data_debug_only(line * 3)
    assert not data_debug_only(line[:-1])  # a partial last line
    assert not data_debug_only(line + b"debug: response from ftp://h:1/dev/null:\n")
    assert not data_debug_only(b"debug: data callback, no error\r\n")  # \r: the parser's business
    assert not data_debug_only(b"")


def test_read_pause_only_while_per_buffer_lines_flow_slowly():
    """The controller lets guc's stderr gather only after chunks of nothing but per-buffer lines of
    gftpwb's own -dbg, not at the first one (the rate is not known yet), not when the lines come fast
    enough to fill a pipe meanwhile, and not after anything else (a reply, a marker, the end of data)."""
    now = [0.0]
    session = GucRun(quiet_data_debug=True, clock=lambda: now[0])
    data = DATA_LINES.encode()

    def pause(stream: str, chunk: bytes, dt: float = 0.05) -> float:
        now[0] += dt
        return session.read_pause_s(stream, chunk)

    assert pause("stderr", data) == 0.0  # the first: no rate yet
    assert pause("stderr", data) == DATA_DEBUG_PAUSE_S
    assert pause("stderr", data * 3) == DATA_DEBUG_PAUSE_S
    assert pause("stderr", data * 60, dt=0.01) == 0.0  # 9.6 kB in 10 ms would fill the pipe in a pause
    assert pause("stderr", data) == DATA_DEBUG_PAUSE_S
    assert pause("stderr", b"debug: response from ftp://h:1/dev/null:\n226 Transfer Complete.\n") == 0.0
    assert pause("stderr", data) == 0.0  # after anything else, the rate is measured afresh
    assert pause("stdout", b" 1048576 bytes 1.00 MB/sec avg 1.00 MB/sec inst\r") == 0.0
    assert pause("stderr", data) == DATA_DEBUG_PAUSE_S  # guc's stdout (its -vb progress) changes nothing
    assert pause("stderr", b"debug: data callback, no error, buffer 0x1, length 0, offset=0, eof=true\n") == 0.0
    assert pause("stdout", data) == 0.0
    assert GucRun(quiet_data_debug=False, clock=lambda: now[0]).read_pause_s("stderr", data) == 0.0
    loud = GucRun(quiet_data_debug=False, clock=lambda: now[0])  # the user's own -dbg: every line is read
    now[0] += 1
    assert loud.read_pause_s("stderr", data) == 0.0


def test_guc_phases_per_endpoint():
    phases = {(p.name, p.track): (p.start, p.end) for p in guc_items() if hasattr(p, "end")}
    null, zero = "ftp://h:1/dev/null", "ftp://user@h:1/dev/zero"  # the password never reaches a trace
    assert phases[("guc.connect", null)] == (1, 4)
    assert phases[("guc.login", null)] == (4, 6)
    assert phases[("guc.setup", null)] == (6, 12)
    assert phases[("guc.data", null)] == (12, 29)
    assert phases[("guc.connect", zero)] == (13, 16)
    assert phases[("guc.data", zero)] == (20, 31)
    assert phases[("guc.close", "run")] == (31, 100)
    marks = [(m.name, m.args) for m in guc_items() if not hasattr(m, "end")]
    assert ("guc.perf_marker", {"stripe": 0, "bytes": 4194304, "server_time": "1795369794.8"}) in marks
    assert ("guc.command", {"command": "ESTO"}) in marks
    assert "secret" not in repr(guc_items())


def spec(run_id="t/0", trace=None, kind="guc"):
    return RunSpec(run_id=run_id, scenario="s", test_id="t", case=0, repeat=0, kind=kind, host="local",
                   argv=("x",), details={"trace": trace} if trace else {})


def finished(run_id="t/0", t=10.0):
    return RunFinished(record=ResultRecord(scenario="s", test_id="t", run_id=run_id, case=0, repeat=0, kind="guc",
                                           host="local", argv=["x"], status="passed", bytes=100), t=t)


def test_builder_traces_only_traced_runs():
    builder = TraceBuilder(0)
    assert builder.feed(RunStarted(spec=spec(), argv=("x",), started_at="", t=1.0)) == []
    assert builder.feed(Progress(run_id="t/0", bytes=1, rate_avg_mib_s=1, rate_inst_mib_s=1, elapsed_s=1)) == []
    assert builder.feed(finished()) == []


def test_builder_spans_samples_and_worker_states():
    builder = TraceBuilder(1_000, lambda s: GucPhases())
    events = [RunStarted(spec=spec(trace={"level": "run"}), argv=("x",), started_at="", t=1.0),
              WorkerProgress(run_id="t/0", host="h1", thread=0, state="preparing", t=1.0),
              WorkerProgress(run_id="t/0", host="h1", thread=0, state="ready", t=2.0),
              WorkerProgress(run_id="t/0", host="h1", thread=0, state="running", bytes=0, t=3.0),
              WorkerProgress(run_id="t/0", host="h1", thread=0, state="running", bytes=50, t=4.0),
              OutputLine(run_id="t/0", stream="stderr", text="debug: connecting to ftp://h/x", t=4.5),
              Progress(run_id="t/0", bytes=60, rate_avg_mib_s=1.0, rate_inst_mib_s=2.0, elapsed_s=4, t=5.0),
              TraceLevelChanged(run_id="t/0", host="h1", level="io", source="signal", t=5.5),
              WorkerProgress(run_id="t/0", host="h1", thread=0, state="done", bytes=100, t=6.0),
              finished(t=7.0)]
    records = [r for e in events for r in builder.feed(e)]
    spans = {(r["name"], r["track"]): (r["ts"], r["dur"]) for r in records if r["type"] == "span"}
    assert spans[("worker.prepare", "thread 0")] == (1_000_001_000, 1_000_000_000)
    assert spans[("worker.wait", "thread 0")] == (2_000_001_000, 1_000_000_000)
    assert spans[("worker.run", "thread 0")] == (3_000_001_000, 3_000_000_000)
    assert spans[("guc.connect", "ftp://h/x")] == (4_500_001_000, 2_500_000_000)  # open until the run ended
    assert spans[("run", "run")] == (1_000_001_000, 6_000_000_000)
    assert [r["values"]["bytes"] for r in records if r["type"] == "sample" and r["track"] == "thread 0"] == [0, 50, 100]
    assert [r["values"]["bytes"] for r in records if r["type"] == "sample" and r["track"] == "total"] == [60]
    assert [r["args"] for r in records if r["type"] == "mark"] == [{"level": "io", "source": "signal"}]
    assert records[-1]["args"]["status"] == "passed"
    assert builder.runs == {}


def synthetic_trace():
    records = [{"type": "meta", "version": 1},
               {"type": "span", "name": "run", "run": "t/0", "host": "local", "track": "run", "ts": 10**18,
                "dur": 5 * 10**9, "args": {"status": "passed", "trace": {"level": "io"}}},
               {"type": "span", "name": "guc.connect", "run": "t/0", "host": "local", "track": "ftp://h/a b",
                "ts": 10**18 + 10, "dur": 1000, "args": {}},
               {"type": "mark", "name": "guc.command", "run": "t/0", "host": "local", "track": "ftp://h/a b",
                "ts": 10**18 + 20, "args": {"command": "ERET"}},
               {"type": "sample", "name": "progress", "run": "t/0", "host": "local", "track": "total",
                "ts": 10**18 + 10**9, "values": {"bytes": 0, "rate_avg_mib_s": None}},
               {"type": "sample", "name": "progress", "run": "t/0", "host": "local", "track": "total",
                "ts": 10**18 + 2 * 10**9, "values": {"bytes": 2 * 1048576}},
               {"type": "sample", "name": "progress", "run": "t/0", "host": "local", "track": "total",
                "ts": 10**18 + 3 * 10**9, "values": {"bytes": 3 * 1048576}},
               {"type": "iofile", "run": "t/0", "host": "h1", "process": 0, "path": "trace/x.bin",
                "clock_offset_ns": 500}]
    text = "\n".join(json.dumps(r) for r in records) + "\n{torn"
    header = Header(every=2, pid=7, thread_base=0, mono_base=100, real_base=10**18)
    data = encode(header, [IoEvent(200, 4000, 0, 0, 0), IoEvent(5000, 64_000, 65536, 0, 2),
                           IoEvent(6000, 0, 1, 2**32 - 1, 0xFFFF), IoEvent(70_000, 300, 0, 1, 4, flags=1)])
    return load_trace(text, lambda path: {"trace/x.bin": data}[path])


def test_reader_puts_io_on_the_controller_clock():
    trace = synthetic_trace()
    assert trace.problems == ["trace.jsonl line 9: not JSON (skipped)"]
    first = trace.io[0]
    assert (first.op, first.ts, first.dur, first.host) == ("open", 10**18 + 100 - 500, 4000, "h1")
    assert [e.op for e in trace.io] == ["open", "write", "level", "close"]
    assert trace.io[-1].error and trace.every == {"trace/x.bin": 2}


def test_bp_export_parses():
    lines = bp_lines(synthetic_trace())
    parsed = [parse_bp(line) for line in lines]
    names = [p["event"] for p in parsed]
    # the host's clock is 500 ns ahead of the controller's: its first I/O comes first
    assert names[:3] == ["gfapi.io.open.start", "gftpwb.run.start", "guc.connect.start"]
    assert "gfapi.io.write.end" in names and "gftpwb.trace.level" in names
    connect = next(p for p in parsed if p["event"] == "guc.connect.start")
    assert connect["track"] == "ftp://h/a b"  # quoted on the line, given back whole
    write = next(p for p in parsed if p["event"] == "gfapi.io.write.end")
    assert (write["bytes"], write["level"], write["dur"]) == ("65536", "Debug", "6.4e-05")
    assert next(p for p in parsed if p["event"] == "gfapi.io.close.end")["status"] == "error"
    assert [p["ts"] for p in parsed] == sorted(p["ts"] for p in parsed)


def test_perfetto_export_is_valid_trace_event_json():
    doc = perfetto(synthetic_trace())
    events = validate_trace_events(doc)
    threads = {e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert {"run", "ftp://h/a b", "thread 0", "thread 1"} <= threads
    assert {e["args"]["name"] for e in events if e["name"] == "process_name"} == {"local", "h1"}
    write = next(e for e in events if e["name"] == "write")
    assert (write["ph"], write["dur"], write["args"]["bytes"]) == ("X", 64.0, 65536)
    assert min(e["ts"] for e in events if "ts" in e) == 0


def test_summary_histograms_and_slowest_intervals():
    text = "\n".join(summary_lines(synthetic_trace(), top=2))
    assert "Latency per I/O operation (sampled: one event in 2 per thread)" in text
    assert "write" in text and "64 µs" in text
    assert "Slowest intervals" in text and "1.0\n" in text + "\n"
    assert "trace.jsonl line 9: not JSON (skipped)" in text


def test_percentiles_and_histogram():
    assert percentile([1, 2, 3, 4], 50) == 2 and percentile([1, 2, 3, 4], 99) == 4
    assert log2_histogram([1, 3, 9]) == [(2, 1), (4, 1), (8, 0), (16, 1)]


def test_parse_records_skips_meta():
    records, problems = parse_records('{"type":"meta"}\n{"type":"span"}\n[1]\n')
    assert records == [{"type": "span"}] and problems == ["trace.jsonl line 3: not a trace record (skipped)"]


def test_a_traced_autotune_traces_its_transfers():
    from gftpwb.kinds.autotune.plan import TuneSettings, transfer_spec

    text = textwrap.dedent("""\
        version: 1
        name: s
        trace: run
        tests:
          - id: tune
            kind: autotune
            source: ftp://127.0.0.1:2811/dev/zero
            target: ftp://127.0.0.1:2811/dev/null
            candidates: [{}, {parallel: 4}]
        """)
    (spec,) = plan(load_scenario_text(text, "s.yaml"))
    transfer = transfer_spec(spec, TuneSettings.of(spec).candidates[1], 0, 1 << 20)
    assert transfer.details["trace"] == {"level": "run"}


# --- the live stream's wire format -----------------------------------------------------------------

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from gftpwb.core.trace.stream import (  # noqa: E402
    Blob,
    Hello,
    Record,
    StreamError,
    StreamReader,
    blob_header,
    hello,
    line,
    parse_address,
    safe_component,
)


@given(st.lists(st.one_of(st.dictionaries(st.sampled_from(["type", "ts", "name"]), st.integers(), min_size=1),
                          st.binary(max_size=300)), max_size=8),
       st.lists(st.integers(1, 64), min_size=1, max_size=20))
def test_stream_round_trip_in_any_chunks(items, cuts):
    wire = hello("h", "r", "s")
    expected: list = [Hello("h", "r", "s")]
    for n, item in enumerate(items):
        if isinstance(item, bytes):
            wire += blob_header(f"trace/x/{n}.bin", len(item)) + item
            expected.append(Blob(f"trace/x/{n}.bin", item))
        else:
            wire += line(item)
            expected.append(Record(item))
    reader, got, at, i = StreamReader(), [], 0, 0
    while at < len(wire):
        step = cuts[i % len(cuts)]
        got += reader.feed(wire[at:at + step])
        at, i = at + step, i + 1
    assert got == expected and not reader.pending


@pytest.mark.parametrize("wire, message", [
    (b'{"type":"span"}\n', "expected a version 1 hello"),
    (b"GET / HTTP/1.1\r\n", "not a gftpwb trace stream"),
    (hello("h", "r", "s") + blob_header("../etc/passwd", 1), "not under trace/"),
    (hello("h", "r", "s") + blob_header("/etc/passwd", 1), "not under trace/"),
])
def test_stream_refuses_what_is_not_ours(wire, message):
    with pytest.raises(StreamError, match=message):
        StreamReader().feed(wire)


def test_addresses_and_names():
    assert parse_address("h:1") == ("h", 1) and parse_address("h") == ("h", 14380)
    assert parse_address(":9", default_host="0.0.0.0") == ("0.0.0.0", 9)
    assert parse_address("[::1]:7") == ("::1", 7)
    with pytest.raises(ValueError, match="port"):
        parse_address("h:99999")
    assert safe_component("../x y") == "_x_y" and safe_component("") == "unnamed"


def test_trace_commands_explain_what_is_missing(tmp_path):
    out = gftpwb("trace", "summary", str(tmp_path / "nothing"))
    assert out.returncode == 2 and "no such results directory" in out.stderr and "Traceback" not in out.stderr
    out = gftpwb("trace", "export", str(tmp_path), "--format", "bp")
    assert out.returncode == 2 and "no trace.jsonl: its runs were not traced" in out.stderr
    out = gftpwb("trace", "collect", "--listen", "h:0x")
    assert out.returncode == 2 and "the port is a number" in out.stderr


def test_a_stored_trace_file_outside_the_directory_is_not_read(tmp_path):
    (tmp_path / "trace.jsonl").write_text('{"type":"meta"}\n{"type":"iofile","path":"../../etc/passwd","run":"r"}\n')
    out = gftpwb("trace", "summary", str(tmp_path))
    assert out.returncode == 0 and "../../etc/passwd is outside the results directory" in out.stdout


def test_an_unreachable_collector_stops_the_run_before_anything_is_written(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    out = gftpwb("run", str(path), "--trace-to", "127.0.0.1:1", "--results", str(tmp_path / "r"))
    assert out.returncode == 3 and "cannot reach the trace collector" in out.stderr
    assert not (tmp_path / "r").exists()


def test_monitor_samples_go_alongside_traced_runs():
    from gftpwb.core.events import MonitorSample

    builder = TraceBuilder(0)
    sample = MonitorSample(monitor="cpu", type="cpu", host="h1", sampled_t=2.0, utc="", span_s=1.0,
                           values={"busy_pct": 50.0})
    assert builder.feed(sample) == []  # nothing traced in flight
    builder.feed(RunStarted(spec=spec(trace={"level": "run"}), argv=("x",), started_at="", t=1.0))
    (record,) = builder.feed(sample)
    assert (record["name"], record["host"], record["track"], record["ts"], record["values"]) == (
        "monitor.cpu", "h1", "monitor cpu", 2_000_000_000, {"busy_pct": 50.0})


def test_a_local_io_trace_is_read_and_removed_without_a_pipe(tmp_path):
    """The gfapi runner takes a worker's trace file on this machine directly: its bytes when the run
    was at io, nothing when it never was; the file is gone afterwards either way."""
    from gftpwb.kinds.gfapi.run.runner import _take_file

    path = tmp_path / "t.bin"
    path.write_bytes(b"x" * 96)
    assert _take_file(str(path), True) == b"x" * 96 and not path.exists()
    path.write_bytes(b"x" * 64)
    assert _take_file(str(path), False) == b"" and not path.exists()
    assert _take_file(str(path), False) == b""  # never created: nothing to take
    with pytest.raises(FileNotFoundError):
        _take_file(str(path), True)
