"""Progress samples: thinning, the size cap, stalls and gaps (gftpwb.core.samples), and the sink that
writes samples.jsonl from events (gftpwb.shell.sinks.samples)."""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from gftpwb.core.events import Progress, RunFinished, RunStarted, WorkerProgress
from gftpwb.core.records import ResultRecord
from gftpwb.core.samples import (
    RunSampler,
    Series,
    SeriesBuilder,
    gaps,
    parse_samples,
    rates,
    stalls,
)
from gftpwb.core.specs import RunSpec
from gftpwb.shell.sinks.samples import SamplesSink, read_samples


def test_a_partial_series_keeps_one_sample_a_second_and_its_last():
    b = SeriesBuilder(interval_s=1.0)
    for i in range(11):  # every 250 ms for 2.5 s
        b.add(i * 0.25, i * 100)
    s = b.finish()
    assert s.t == [0, 1000, 2000, 2500] and s.b == [0, 400, 800, 1000]


def test_late_samples_are_ignored_and_files_line_up():
    b = SeriesBuilder()
    b.add(1.0, 10)
    b.add(0.5, 5)  # out of order
    b.add(2.0, 20, files=3)
    assert b.finish().to_dict() == {"t": [1000, 2000], "b": [10, 20], "f": [0, 3]}


@given(st.integers(min_value=1, max_value=3000), st.integers(min_value=8, max_value=64))
@settings(max_examples=40, deadline=None)
def test_a_long_series_is_halved_to_fit_and_keeps_its_end(count, cap):
    b = SeriesBuilder(max_points=cap)
    for i in range(count):
        b.add(i * 2.0, i * 1000)
    s = b.finish()
    assert len(s) <= cap
    assert s.t[-1] == (count - 1) * 2000 and s.b[-1] == (count - 1) * 1000  # the end survives
    assert s.t == sorted(s.t) and s.t[0] == 0


def test_stalls_gaps_and_rates():
    s = Series([2000, 4000, 6000, 8000, 16000, 18000], [2 << 20, 4 << 20, 4 << 20, 4 << 20, 9 << 20, 10 << 20])
    assert stalls(s) == [(4.0, 8.0)]
    assert gaps(s) == [(8.0, 16.0)]
    assert rates(s)[0] == (4.0, 1.0) and rates(s)[3] == (16.0, 0.625)
    assert stalls(Series([0, 500], [1, 1])) == []  # shorter than a second
    assert gaps(Series([0, 2000], [0, 1])) == []  # too few intervals to know what is typical


def test_parse_takes_the_last_line_of_a_run_and_reports_bad_ones():
    one = RunSampler("a/0")
    one.add("", 1.0, 5)
    line = one.finish().to_json()
    found, problems = parse_samples(line + "\n" + line.replace("[5]", "[7]") + "\n{broken\n")
    assert found["a/0"].series[""].b == [7] and problems == ["line 3: unreadable samples skipped "
                                                             "(Expecting property name enclosed in double quotes: "
                                                             "line 1 column 2 (char 1))"]
    assert RunSampler("b/0").finish() is None


def spec(run_id: str) -> RunSpec:
    return RunSpec(run_id=run_id, scenario="s", test_id=run_id.split("/")[0], case=0, repeat=0, kind="guc",
                   host="local", argv=("globus-url-copy",))


def record(run_id: str) -> ResultRecord:
    return ResultRecord(scenario="s", test_id="t", run_id=run_id, case=0, repeat=0, kind="guc", host="local",
                        argv=[], status="passed")


def test_the_sink_writes_one_line_per_run_that_reported_progress(tmp_path):
    sink = SamplesSink(str(tmp_path))
    sink(RunStarted(spec=spec("g/0"), argv=(), started_at=""))
    for i in (1, 2, 3):
        sink(Progress(run_id="g/0", bytes=i << 20, rate_avg_mib_s=1.0, rate_inst_mib_s=1.0, elapsed_s=2.0 * i))
    sink(RunFinished(record=record("g/0")))
    sink(RunStarted(spec=spec("quiet/0"), argv=(), started_at=""))  # guc without -vb: nothing to keep
    sink(RunFinished(record=record("quiet/0")))
    sink(RunStarted(spec=spec("w/0"), argv=(), started_at=""))
    for i in range(1, 9):
        sink(WorkerProgress(run_id="w/0", host="h1", thread=i % 2, state="running", files=i * 10, bytes=i << 16,
                            elapsed_s=i * 0.25))
    sink(WorkerProgress(run_id="w/0", host="h1", thread=0, state="preparing"))  # before the start: not a sample
    sink(RunFinished(record=record("w/0")))
    lines = (tmp_path / "samples.jsonl").read_text().splitlines()
    assert [json.loads(line)["run_id"] for line in lines] == ["g/0", "w/0"]
    found, problems = read_samples(str(tmp_path))
    assert problems == [] and found["g/0"].series[""].t == [2000, 4000, 6000]
    assert set(found["w/0"].series) == {"h1/0", "h1/1"} and found["w/0"].series["h1/1"].f == [10, 50, 70]
    assert sink.bytes_written == sum(len(line) + 1 for line in lines)


def test_bytes_per_run_stay_small():
    """The sizes docs/benchmarks/samples.md states: a 60 s guc run reporting every 2 s, and 30 s of 8 gfapi threads."""
    guc = RunSampler("sweep[3]/12")
    for i in range(1, 31):
        guc.add("", i * 2.0 + 0.013, i * 224_395_264)
    guc_bytes = len(guc.finish().to_json()) + 1
    gfapi = RunSampler("files[1]/3")
    for i in range(1, 121):
        gfapi.add("", i * 0.25, i * 4_000_000, i * 61)
        for thread in range(8):
            gfapi.add(f"client{thread % 2}/{thread}", i * 0.25 + 0.001, i * 500_000, i * 8)
    gfapi_bytes = len(gfapi.finish().to_json()) + 1
    assert guc_bytes < 1024 and gfapi_bytes < 8 * 1024  # bench/samples_size.py gives the sizes of more cases
