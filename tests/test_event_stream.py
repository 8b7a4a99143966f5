"""The live event stream (``gftpwb run --events jsonl``): every event the TUI hears has a line, every
line follows schemas/events.schema.json, passwords are masked, a reader that goes away ends the
stream and never the run. Fast: the fake guc; tests/test_live_results_real.py runs the real ones."""

from __future__ import annotations

import dataclasses
import inspect
import io
import json
import os
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import jsonschema
import pytest
from support.clihelp import gftpwb

from gftpwb.core import event_stream, events
from gftpwb.core.checks import Check
from gftpwb.core.errors import UsageError
from gftpwb.core.event_stream import EVENT_NAMES, LEFT_OUT, EventEncoder, encode
from gftpwb.core.events import (
    CopiesFinished,
    ExpectationsChecked,
    MonitorSample,
    MonitorsFinished,
    MonitorSummary,
    Notice,
    OutputLine,
    Progress,
    RankingRow,
    RunDelayed,
    RunFinished,
    RunStarted,
    SamplerEnded,
    SamplerStarted,
    ScenarioFinished,
    ScenarioStarted,
    TraceLevelChanged,
    TuneUpdate,
    WorkerProgress,
)
from gftpwb.core.harness.aggregate import aggregate
from gftpwb.core.live.state import LiveState
from gftpwb.core.records import ResultRecord, Summary
from gftpwb.core.specs import RunSpec
from gftpwb.shell.sinks.events import EventStreamSink

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "schemas" / "events.schema.json").read_text())
VALIDATOR = jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
URL = "ftp://anne:s3cret@127.0.0.1:2811/dev/zero"


def encoder() -> EventEncoder:
    return EventEncoder(100.0, datetime(2026, 11, 27, 12, 0, tzinfo=UTC), generator="gftpwb test")


def spec(run_id="t/0", **kw) -> RunSpec:
    return RunSpec(run_id=run_id, scenario="s", test_id="t", case=0, repeat=0, kind="guc", host="local",
                   argv=("globus-url-copy", "-vb", URL, "file:///dev/null"), params={"parallel": 4}, **kw)


def record(run_id="t/0", status="passed") -> ResultRecord:
    return ResultRecord(scenario="s", test_id="t", run_id=run_id, case=0, repeat=0, kind="guc", host="local",
                        argv=["globus-url-copy", URL, "file:///dev/null"], status=status, seconds=2.0,
                        bytes=1 << 30, rate_incl_setup_mib_s=512.0, output=f"Source: {URL}")


def one_of_each() -> list[events.Event]:
    """An event of every type the stream writes."""
    check = Check("t", 0, "#000 -p 4", "median_rate", ">= 900MiB/s", 512.0, "512.0 MiB/s", False)
    rec = record()
    return [
        ScenarioStarted(scenario="s", results_dir="r", plan=(spec(),), t=100.5),
        RunDelayed(spec=spec(), delay_s=1.5, t=101.0),
        RunStarted(spec=spec(), argv=spec().argv, started_at="2026-11-27T12:00:01+00:00", t=101.0),
        Progress(run_id="t/0", bytes=1 << 20, rate_avg_mib_s=float("nan"), rate_inst_mib_s=None, elapsed_s=1.0,
                 t=102.0),
        Progress(run_id="t/0", bytes=1 << 19, rate_avg_mib_s=1.0, rate_inst_mib_s=2.0, elapsed_s=1.0,
                 channel="stream 1", t=102.0),
        WorkerProgress(run_id="t/0", host="local", thread=3, state="running", files=5, bytes=4096, ios=9,
                       elapsed_s=0.25, files_total=10, t=102.1),
        OutputLine(run_id="t/0", stream="stdout", text=f"Source: {URL}", t=102.2),
        RunFinished(record=rec, t=103.0),
        Notice(level="warning", text=f"cannot reach {URL}", t=103.1),
        ExpectationsChecked(test_id="t", checks=(check,), checked_at="2026-11-27T12:00:03+00:00", t=103.2),
        CopiesFinished(group="t[0]/0", run_ids=("t/0",), aggregate=aggregate("t[0]/0", [rec]), t=103.3),
        TuneUpdate(test_id="t", strategy="exhaustive", engine="real", transfers_used=1, budget=4, margin_mib_s=5.0,
                   rows=(RankingRow(1, "-p 4", 512.0, 500.0, 520.0, 1, 0),), leader="-p 4", t=103.4),
        TraceLevelChanged(run_id="t/0", host="local", level="io", source="signal", t=103.5),
        SamplerStarted(host="local", monitors=("load",), clock_offset_s=0.0, clock_uncertainty_s=0.001, t=100.2),
        MonitorSample(monitor="load", type="cpu", host="local", sampled_t=102.5, utc="2026-11-27T12:00:02.5+00:00",
                      span_s=0.5, values={"busy_pct": 12.5, "eth0.rx_mib_s": 1.0}, t=102.6),
        MonitorSample(monitor="load", type="cpu", host="local", sampled_t=103.0, utc="2026-11-27T12:00:03+00:00",
                      span_s=0.5, values={}, error="cannot read /proc/stat", t=103.0),
        MonitorSummary(run_id="t/0", started_utc="a", ended_utc="b", figures={"load": {"local": {"busy_pct": {
            "mean": 12.5, "min": 12.5, "max": 12.5, "n": 1}}}}, t=103.0),
        SamplerEnded(host="local", t=103.6),
        MonitorsFinished(samples=1, figures={}, types={"load": "cpu"}, t=103.7),
        ScenarioFinished(summary=Summary.of([rec], planned=1, interrupted=False, results_dir="r", violations=1),
                         t=104.0),
    ]


def event_types() -> set[type]:
    return {obj for _, obj in inspect.getmembers(events, inspect.isclass)
            if issubclass(obj, events.Event) and obj is not events.Event and obj.__module__ == events.__name__}


def test_every_event_type_has_a_line_or_a_reason_to_be_left_out():
    mapped = encoder().mapped
    assert event_types() - mapped == set(LEFT_OUT)
    assert {type(e) for e in one_of_each()} == mapped  # and the test below writes one of each


def test_every_event_the_tui_hears_is_in_the_stream():
    assert set(LiveState()._handlers) <= encoder().mapped


def test_event_names_are_the_schemas():
    assert SCHEMA["properties"]["event"]["enum"] == list(EVENT_NAMES)
    assert [branch["if"]["properties"]["event"]["const"] for branch in SCHEMA["allOf"]] == list(EVENT_NAMES)
    assert event_stream.schema() == SCHEMA  # shipped with the package


def test_every_line_follows_the_schema_and_masks_passwords():
    enc = encoder()
    lines = [encode(enc.started())] + [enc.line(e) for e in one_of_each()]
    names = []
    for line in lines:
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        assert b"s3cret" not in line
        data = json.loads(line)
        errors = sorted(VALIDATOR.iter_errors(data), key=str)
        assert not errors, (data["event"], [e.message for e in errors])
        names.append(data["event"])
    assert set(names) == set(EVENT_NAMES)
    progress = json.loads(lines[4])
    assert progress["rate_avg_mib_s"] is None and progress["t"] == 2.0  # NaN is null; t counts from the start
    assert progress["utc"] == "2026-11-27T12:00:02+00:00".replace("+", ".000000+")
    sample = json.loads(lines[15])
    assert sample["sampled_t"] == 2.5 and sample["values"]["eth0.rx_mib_s"] == 1.0
    finished = json.loads(lines[8])
    assert finished["record"] == json.loads(record().to_json()) | {"argv": ["globus-url-copy",
                                                                            URL.replace("s3cret", "***"),
                                                                            "file:///dev/null"],
                                                                   "output": "Source: " + URL.replace("s3cret", "***")}


def test_a_line_is_json_of_every_value_orjson_knows_or_not():
    line = encode({"v": 1, "big": 1 << 70, "nan": float("inf"), "when": datetime(2026, 1, 1, tzinfo=UTC),
                   "keys": {1: "one"}})
    data = json.loads(line)
    assert data["big"] == 1 << 70 and data["nan"] is None and data["when"].startswith("2026-01-01")


def test_the_sink_flushes_each_line_and_survives_a_reader_that_went_away():
    read_end, write_end = os.pipe()
    out = os.fdopen(write_end, "wb")
    sink = EventStreamSink(out, name="stdout")
    first = os.read(read_end, 65536)  # the stream-started line is there at once: flushed, not buffered
    assert json.loads(first)["event"] == "stream-started"
    os.close(read_end)
    for event in one_of_each():
        sink(event)  # EPIPE on the first: the stream ends, the run would go on
    assert sink.error.startswith("the event stream to stdout ended after 1 line(s): Broken pipe")
    out.close()  # nothing buffered is left to raise


def test_an_events_file_that_cannot_be_made_is_refused(tmp_path):
    with pytest.raises(UsageError, match=r"--events-file .*nowhere/x.jsonl: cannot write it: No such file"):
        EventStreamSink.to_file(str(tmp_path / "nowhere" / "x.jsonl"))


def test_sink_writes_to_a_file(tmp_path):
    sink = EventStreamSink.to_file(str(tmp_path / "e.jsonl"))
    sink(Notice(level="info", text="hello"))
    assert [json.loads(line)["event"] for line in (tmp_path / "e.jsonl").read_text().splitlines()] == [
        "stream-started", "notice"]  # on disk before close
    sink.close()


SCENARIO = """\
    version: 1
    name: fake
    tests:
      - id: a
        kind: guc
        source: ftp://anne:s3cret@127.0.0.1:1/dev/zero
        target: file:///dev/null
        repeat: 2
        expect: {median_rate: ">= 1000000MiB/s"}
"""


def scenario(tmp_path: Path) -> str:
    path = tmp_path / "fake.yaml"
    path.write_text(textwrap.dedent(SCENARIO))
    return str(path)


def test_run_events_jsonl_on_stdout_and_the_console_on_stderr(tmp_path, fake_guc):
    results = tmp_path / "r"
    out = gftpwb("run", scenario(tmp_path), "--results", str(results), "--events", "jsonl", "--progress", "never")
    assert out.returncode == 8, out.stderr  # the threshold is not met
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    for data in lines:
        assert not list(VALIDATOR.iter_errors(data))
    names = [d["event"] for d in lines]
    assert names[0] == "stream-started" and names[-1] == "scenario-finished"
    assert names.count("run-started") == names.count("run-finished") == 2 and "progress" in names
    assert "s3cret" not in out.stdout and "s3cret" not in out.stderr
    # The console went to stderr, whole: the runs, the thresholds, the summary.
    assert "ok   a/0" in out.stderr and "expect: a #000" in out.stderr and "2 passed of 2 planned" in out.stderr
    # What the stream says of each run is what the journal keeps.
    journal = [json.loads(line) for line in (results / "results.jsonl").read_text().splitlines()]
    assert [d["record"] for d in lines if d["event"] == "run-finished"] == journal
    (thresholds,) = [d for d in lines if d["event"] == "thresholds"]
    assert thresholds["violations"] == 1 and lines[-1]["violations"] == 1 and lines[-1]["counts"] == {"passed": 2}


def test_events_and_tui_cannot_share_stdout(tmp_path, fake_guc):
    out = gftpwb("run", scenario(tmp_path), "--events", "jsonl", "--tui")
    assert out.returncode == 2 and "use --events-file PATH with --tui" in out.stderr and not out.stdout
    out = gftpwb("run", scenario(tmp_path), "--events", "jsonl", "--events-file", str(tmp_path / "e"))
    assert out.returncode == 2 and "choose one" in out.stderr


def test_events_file_refused_before_anything_runs(tmp_path, fake_guc):
    results = tmp_path / "r"
    out = gftpwb("run", scenario(tmp_path), "--results", str(results), "--events-file", str(tmp_path / "no" / "e"))
    assert out.returncode == 2 and "cannot write it" in out.stderr and "Traceback" not in out.stderr
    assert not results.exists()


async def test_the_stream_carries_every_event_the_tui_and_the_console_hear(tmp_path, fake_guc):
    """One scenario run, three subscribers on the same bus: the TUI's live state, the console and
    the stream. Every event the live state takes is a line, in the same order."""
    from rich.console import Console

    from gftpwb.shell.frontend import load
    from gftpwb.shell.session import RunRequest, execute, prepare_run
    from gftpwb.shell.sinks.console import ConsoleSink

    heard: list[events.Event] = []
    live = LiveState()

    def tui(event: events.Event) -> None:
        if type(event) in live._handlers:
            heard.append(event)
        live(event)

    buffer = io.BytesIO()
    stream = EventStreamSink(buffer)
    console_text = io.StringIO()
    console = ConsoleSink(Console(file=console_text, width=200), live=False)
    loaded = load(scenario(tmp_path))
    from gftpwb.core.plan import plan

    request = RunRequest(scenario=loaded, specs=plan(loaded), results_dir=str(tmp_path / "r"), command=["gftpwb"],
                         subscribers=[tui, stream, console], record_environment=False)
    outcome = await execute(prepare_run(request), install_signal_handlers=False)
    lines = [json.loads(line) for line in buffer.getvalue().splitlines()][1:]
    expected = [stream.encoder.fields(event)["event"] for event in heard]
    assert [d["event"] for d in lines if d["event"] in set(expected)] == expected
    assert lines[-1]["counts"] == live.summary.counts == outcome.summary.counts
    for d in lines:
        if d["event"] == "run-finished":
            assert live.runs[d["run_id"]].status == d["status"]
            assert f"ok   {d['run_id']}" in console_text.getvalue()


def test_mapped_fields_are_dataclass_fields():
    """Each event's line names the event's own fields (no invented ones beyond the envelope)."""
    enc = encoder()
    envelope = {"v", "event", "t", "utc"}
    derived = {"run_id", "test_id", "case", "repeat", "kind", "host", "engine", "argv", "params", "group",
               "length_bytes", "timeout_s", "status", "record", "planned", "skipped", "earlier", "runs",
               "violations", "counts", "all_passed", "interrupted", "stopped_by", "results_dir", "sampled_utc"}
    for event in one_of_each():
        own = {f.name for f in dataclasses.fields(event)}
        extra = set(enc.fields(event)) - envelope - own - derived
        assert not extra, (type(event).__name__, extra)


def test_a_reader_that_stops_reading_ends_the_stream_and_never_the_run(tmp_path, fake_guc):
    import subprocess
    import sys

    results = tmp_path / "r"
    proc = subprocess.Popen([sys.executable, "-m", "gftpwb", "run", scenario(tmp_path), "--results", str(results),
                             "--events", "jsonl", "--progress", "never"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "FAKE_GUC_STEP": "0.2"})
    assert json.loads(proc.stdout.readline())["event"] == "stream-started"
    proc.stdout.close()  # as `| head -n 1` does
    err = proc.stderr.read().decode()
    assert proc.wait() == 8, err  # the run's own outcome: every run passed, the threshold was not met
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert "2 passed of 2 planned" in err
    if "the event stream to stdout ended" in err:  # unless every line was out before the pipe closed
        assert "Broken pipe; the run went on and its results directory has everything" in err
    assert len((results / "results.jsonl").read_text().splitlines()) == 2
