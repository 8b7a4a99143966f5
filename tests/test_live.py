"""The live aggregator behind the TUI (gftpwb.core.live): statuses, rates, per-thread rows, rankings, history.

Pure and clock-free, so every figure here is exact: events carry their own monotonic ``t``.
"""

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.live_events import PLAN, RANKING, by_id, record, spec, started

from gftpwb.core.events import (
    OutputLine,
    Progress,
    RunFinished,
    RunStarted,
    ScenarioFinished,
    TuneUpdate,
    WorkerProgress,
)
from gftpwb.core.live import read
from gftpwb.core.live.cells import sort_thread_rows, tune_mark
from gftpwb.core.live.models import MIB, ThreadRow
from gftpwb.core.live.state import LiveState
from gftpwb.core.records import Summary
from gftpwb.core.specs import RunSpec


def test_statuses_follow_the_runs():
    live = LiveState()
    live.show_plan("s", PLAN)
    assert {r.test_id: r.status for r in read.test_rows(live)} == {"a": "queued", "b": "queued", "c": "queued"}
    assert not live.active
    live(started())
    assert live.active
    live(RunStarted(spec=PLAN[0], argv=PLAN[0].argv, started_at="", t=101.0))
    assert by_id(live)["a"].status == "running"
    live(RunFinished(record=record(PLAN[0]), t=103.0))
    row = by_id(live)["a"]
    assert (row.status, row.done, row.total, row.passed) == ("queued", 1, 2, 1)
    assert row.last_rate_mib_s == pytest.approx(512.0)
    live(RunStarted(spec=PLAN[1], argv=PLAN[1].argv, started_at="", t=104.0))
    live(RunFinished(record=record(PLAN[1], nbytes=1 << 29, seconds=1.0), t=105.0))
    assert by_id(live)["a"].status == "passed"
    assert by_id(live)["a"].last_rate_mib_s == pytest.approx(512.0)  # the last finished run's rate
    live(RunStarted(spec=PLAN[2], argv=PLAN[2].argv, started_at="", t=106.0))
    live(RunFinished(record=record(PLAN[2], status="timeout", error="timed out after 2s"), t=108.0))
    assert (by_id(live)["b"].status, by_id(live)["b"].note) == ("timeout", "1 timeout")
    live(RunStarted(spec=PLAN[3], argv=PLAN[3].argv, started_at="", t=109.0))
    live(RunFinished(record=record(PLAN[3], status="interrupted"), t=110.0))
    live(ScenarioFinished(summary=Summary(total=4, counts={"passed": 2, "timeout": 1, "interrupted": 1},
                                          interrupted=True, results_dir="results/x"), t=110.5))
    assert by_id(live)["c"].status == "interrupted"
    assert by_id(live)["a"].status == "passed"
    assert not live.active
    panel = read.run_panel(live, now=200.0)
    assert (panel.state, panel.runs_done, panel.runs_total) == ("interrupted", 4, 4)


def test_runs_a_stop_left_unstarted_become_skipped():
    live = LiveState()
    live(started())
    live(RunStarted(spec=PLAN[0], argv=PLAN[0].argv, started_at="", t=101.0))
    live(RunFinished(record=record(PLAN[0], status="interrupted"), t=102.0))
    live(ScenarioFinished(summary=Summary(total=4, counts={"interrupted": 1}, interrupted=True), t=102.1))
    rows = by_id(live)
    assert (rows["a"].status, rows["a"].note) == ("interrupted", "1 interrupted, 1 not run (stopped)")
    assert (rows["c"].status, rows["c"].note, rows["c"].done) == ("skipped", "1 not run (stopped)", 0)
    panel = read.run_panel(live, now=103.0)
    assert (panel.state, panel.runs_done, panel.runs_total) == ("interrupted", 1, 4)


def test_failed_beats_queued_and_running_beats_failed():
    live = LiveState()
    live(started())
    live(RunStarted(spec=PLAN[0], argv=PLAN[0].argv, started_at="", t=101.0))
    live(RunFinished(record=record(PLAN[0], status="failed", error="globus_xio: refused"), t=102.0))
    assert by_id(live)["a"].status == "failed"
    live(RunStarted(spec=PLAN[1], argv=PLAN[1].argv, started_at="", t=103.0))
    assert by_id(live)["a"].status == "running"


def test_filtered_out_tests_and_resumed_runs_show_as_skipped():
    live = LiveState()
    live.show_plan("s", PLAN)
    # An attempt of tests a and b only (the TUI's filter, --only), where a/0 was done in an earlier attempt.
    live(started(plan=PLAN[:3], skipped=frozenset({"a/0"})))
    rows = by_id(live)
    assert (rows["c"].status, rows["c"].note) == ("skipped", "not selected")
    assert (rows["a"].status, rows["a"].done, rows["a"].note) == ("queued", 1, "1 done earlier")
    assert read.run_panel(live, now=100.0).runs_total == 2  # a/1 and b/0
    assert [r.test_id for r in read.test_rows(live)] == ["a", "b", "c"]


def test_run_panel_rates_progress_and_eta():
    live = LiveState()
    live(started())
    live(RunStarted(spec=PLAN[0], argv=PLAN[0].argv, started_at="", t=101.0))
    live(Progress(run_id="a/0", bytes=256 * MIB, rate_avg_mib_s=128.0, rate_inst_mib_s=150.0, elapsed_s=2.0,
                  length_bytes=1 << 30, t=103.0))
    panel = read.run_panel(live, now=104.0)
    (line,) = panel.running
    assert line.elapsed_s == pytest.approx(3.0)
    assert line.fraction == pytest.approx(0.25)
    assert line.eta_s == pytest.approx(768 / 128)  # what is left at the average so far
    assert panel.rate_inst_mib_s == 150.0 and panel.rate_avg_mib_s == 128.0
    assert panel.bytes_moved == 256 * MIB
    assert by_id(live)["a"].last_rate_mib_s == 128.0  # live while running
    live(RunFinished(record=record(PLAN[0]), t=105.0))
    panel = read.run_panel(live, now=106.0)
    assert panel.running == () and panel.rate_inst_mib_s is None
    assert panel.bytes_moved == 1 << 30 and panel.last.status == "passed" and panel.last.eta_s is None


def test_channels_add_up_unless_a_run_wide_sample_exists():
    live = LiveState()
    live(started())
    live(RunStarted(spec=PLAN[0], argv=PLAN[0].argv, started_at="", t=101.0))
    for channel, nbytes, rate in (("s0", 100 * MIB, 50.0), ("s1", 60 * MIB, 30.0), ("s0", 120 * MIB, 60.0)):
        live(Progress(run_id="a/0", bytes=nbytes, rate_avg_mib_s=rate, rate_inst_mib_s=rate, elapsed_s=2.0,
                      channel=channel, t=102.0))
    panel = read.run_panel(live, now=102.0)
    assert panel.bytes_moved == 180 * MIB and panel.rate_inst_mib_s == pytest.approx(90.0)
    rows = read.thread_rows(live)
    assert [(r.thread, r.mib) for r in rows] == [("s0", 120.0), ("s1", 60.0)]
    live(Progress(run_id="a/0", bytes=500 * MIB, rate_avg_mib_s=200.0, rate_inst_mib_s=210.0, elapsed_s=3.0, t=103.0))
    panel = read.run_panel(live, now=103.0)
    assert panel.bytes_moved == 500 * MIB and panel.rate_inst_mib_s == pytest.approx(210.0)


def worker(run_id, host, thread, state, files, nbytes, ios, elapsed, t, **kw):
    return WorkerProgress(run_id=run_id, host=host, thread=thread, state=state, files=files, bytes=nbytes, ios=ios,
                          elapsed_s=elapsed, t=t, **kw)


def test_worker_threads_give_elbencho_rows_and_an_aggregate():
    g = spec("g", 0, 0, kind="gfapi", host="c1")
    live = LiveState()
    live(started(plan=(g,)))
    live(RunStarted(spec=g, argv=g.argv, started_at="", t=100.0))
    assert read.thread_rows(live) == []  # a gfapi run has no row until its workers report
    live(worker("g/0", "c1", 0, "running", 10, 20 * MIB, 40, 2.0, 102.0, files_total=100))
    live(worker("g/0", "c2", 1, "running", 5, 10 * MIB, 20, 2.0, 102.0, bytes_total=40 * MIB))
    live(worker("g/0", "c1", 0, "running", 30, 60 * MIB, 120, 4.0, 104.0, files_total=100))
    rows = {(r.host, r.thread): r for r in read.thread_rows(live)}
    r0 = rows[("c1", "0")]
    assert r0.percent == pytest.approx(30.0) and r0.mib == 60.0 and r0.mib_s == pytest.approx(15.0)
    assert r0.iops == pytest.approx(30.0) and r0.files_s == pytest.approx(7.5) and r0.state == "running"
    assert rows[("c2", "1")].percent == pytest.approx(25.0)
    panel = read.run_panel(live, now=104.0)
    # Aggregate instantaneous rate: c1/0 moved 40 MiB in the last 2 s (20 MiB/s), c2/1 5 MiB/s.
    assert panel.rate_inst_mib_s == pytest.approx(25.0)
    assert panel.bytes_moved == 70 * MIB
    live(worker("g/0", "c2", 1, "failed", 5, 10 * MIB, 20, 2.5, 104.5, error="EIO on /vol/f5"))
    live(RunFinished(record=record(g, status="failed", nbytes=70 * MIB, error="1 worker failed"), t=105.0))
    rows = {(r.host, r.thread): r for r in read.thread_rows(live)}
    assert rows[("c2", "1")].state == "failed" and rows[("c2", "1")].error == "EIO on /vol/f5"
    assert rows[("c1", "0")].state == "failed"  # a thread still running when its run ended takes the run's status


def test_thread_sorting_is_numeric_with_missing_values_last():
    rows = [ThreadRow(key=str(i), run_id="r", host=h, thread=t, percent=p, mib=m, mib_s=s, iops=None, files_s=None,
                      state="running") for i, (h, t, p, m, s) in enumerate([
                          ("c2", "10", 50.0, 5.0, None), ("c1", "2", None, 7.0, 30.0), ("c1", "10", 20.0, 1.0, 10.0)])]
    assert [(r.host, r.thread) for r in sort_thread_rows(rows, "host")] == [("c1", "2"), ("c1", "10"), ("c2", "10")]
    assert [r.thread for r in sort_thread_rows(rows, "thread")] == ["2", "10", "10"]
    assert [r.mib for r in sort_thread_rows(rows, "mib", reverse=True)] == [7.0, 5.0, 1.0]
    assert [r.mib_s for r in sort_thread_rows(rows, "mib_s", reverse=True)] == [30.0, 10.0, None]
    assert [r.percent for r in sort_thread_rows(rows, "percent")] == [20.0, 50.0, None]
    with pytest.raises(ValueError, match="unknown sort column"):
        sort_thread_rows(rows, "bogus")


def test_rate_history_counts_bytes_moved_per_second():
    """Each point is the MiB moved in that second: a report's new bytes are spread back over the time
    since the previous report, and the last known rate stands in for the time not yet reported."""
    live = LiveState(history_step_s=1.0)
    live(started(t=100.0))
    live(RunStarted(spec=PLAN[0], argv=PLAN[0].argv, started_at="", t=100.2))
    live(Progress(run_id="a/0", bytes=0, rate_avg_mib_s=0.0, rate_inst_mib_s=0.0, elapsed_s=2.4, t=102.6))
    live(Progress(run_id="a/0", bytes=1 << 30, rate_avg_mib_s=200.0, rate_inst_mib_s=200.0, elapsed_s=3.9,
                  t=104.1))
    # 1024 MiB over 102.6..104.1 s: 0.4 s in second 2, 1 s in second 3, 0.1 s in second 4; and from
    # 104.1 s to now the last rate, 200 MiB/s, stands in (0.4 s in second 4). Second 4 is half gone:
    # its rate is what moved in it over that half second.
    series = read.rate_series(live, now=104.5, points=10)
    assert series == pytest.approx([0.0, 0.0, 1024 * 0.4 / 1.5, 1024 / 1.5, (1024 * 0.1 / 1.5 + 200 * 0.4) / 0.5])
    assert read.rate_series(live, now=104.5, points=2) == pytest.approx(series[-2:])
    live(RunFinished(record=record(PLAN[0], nbytes=1 << 30), t=105.0))
    # Finished and nothing new: the estimate is gone, and the real bytes say nothing moved after 104.1 s.
    assert read.rate_series(live, now=108.0, points=10)[4:] == pytest.approx([1024 * 0.1 / 1.5, 0.0, 0.0, 0.0, 0.0])


def test_a_transfer_that_reports_only_at_its_end_is_spread_over_its_run():
    """guc prints its one -vb line at exit for short third-party transfers (or none at all): the
    bytes still show in the seconds they moved in."""
    live = LiveState(history_step_s=1.0)
    live(started(t=100.0))
    live(RunStarted(spec=PLAN[0], argv=PLAN[0].argv, started_at="", t=100.5))
    live(Progress(run_id="a/0", bytes=2 << 30, rate_avg_mib_s=2048.0, rate_inst_mib_s=2048.0, elapsed_s=1.0,
                  t=101.5))
    live(RunFinished(record=record(PLAN[0], nbytes=2 << 30, seconds=1.0), t=101.5))
    live(RunStarted(spec=PLAN[1], argv=PLAN[1].argv, started_at="", t=102.0))
    live(RunFinished(record=record(PLAN[1], nbytes=1 << 30, seconds=0.5), t=102.5))  # no -vb line at all
    assert read.rate_series(live, now=103.5, points=10) == pytest.approx([1024.0, 1024.0, 1024.0, 0.0])


def test_rate_chart_has_a_time_axis_and_one_line_per_host_when_there_are_several():
    one = (spec("g", host="h1"),)
    live = LiveState(history_step_s=1.0)
    live(started(plan=one, t=100.0))
    live(RunStarted(spec=one[0], argv=one[0].argv, started_at="", t=100.0))
    live(Progress(run_id="g/0", bytes=100 * MIB, rate_avg_mib_s=50.0, rate_inst_mib_s=50.0, elapsed_s=2.0, t=102.0))
    chart = read.rate_chart(live, 102.0, 10)  # the second begun at 102.0 is not drawn until it is whole
    assert chart.seconds == (1.0, 2.0) and chart.total == pytest.approx((50.0, 50.0))
    assert chart.hosts == {}  # one host: the aggregate line says it all

    two = (spec("g", host="h1"), spec("g", host="h2", repeat=1))
    live = LiveState(history_step_s=1.0)
    live(started(plan=two, t=100.0))
    for s in two:
        live(RunStarted(spec=s, argv=s.argv, started_at="", t=100.0))
    live(Progress(run_id="g/0", bytes=100 * MIB, rate_avg_mib_s=50.0, rate_inst_mib_s=50.0, elapsed_s=2.0, t=102.0))
    live(Progress(run_id="g/1", bytes=20 * MIB, rate_avg_mib_s=10.0, rate_inst_mib_s=10.0, elapsed_s=2.0, t=102.0))
    chart = read.rate_chart(live, 102.0, 10)
    assert list(chart.hosts) == ["h1", "h2"]
    assert chart.hosts["h1"][:2] == pytest.approx((50.0, 50.0)) and chart.hosts["h2"][:2] == pytest.approx((10.0, 10.0))
    assert [a + b for a, b in zip(chart.hosts["h1"], chart.hosts["h2"], strict=True)] == pytest.approx(chart.total)
    assert chart.peak == pytest.approx(60.0)


def test_thread_totals_sum_spread_and_first_and_last_done():
    from gftpwb.core.live.cells import thread_totals, totals_text

    rows = [ThreadRow(key=f"k{n}", run_id="r", host="h", thread=str(n), percent=None, mib=mib, mib_s=rate, iops=None,
                      files_s=None, state=state) for n, (mib, rate, state) in
            enumerate(((10.0, 5.0, "done"), (30.0, 15.0, "done"), (20.0, 10.0, "running"), (0.0, None, "ready")))]
    totals = thread_totals(rows, {"k0": 2.0, "k1": 3.5})
    assert (totals.rows, totals.mib, totals.mib_s, totals.min_mib_s, totals.max_mib_s) == (4, 60.0, 30.0, 5.0, 15.0)
    assert totals.cv == pytest.approx(0.5)  # stdev 5 of mean 10
    assert (totals.done, totals.first_done_s, totals.last_done_s) == (2, 2.0, 3.5)
    assert totals_text(totals) == ("4 row(s)  ·  60.0 MiB  ·  30.0 MiB/s in all  ·  per row 5.0 to 15.0 MiB/s "
                                   "(CV 50.0 %)  ·  2 done: first 2.0s after the start, last 3.5s after")


def test_thread_totals_of_runs_one_after_another_say_each_ones_duration():
    """"10 done: first after 0.8s, last after 1.1s" of runs made one after another read as times since
    the scenario's start: they are each run's duration, and say so."""
    from gftpwb.core.live.cells import thread_totals, totals_text

    rows = [ThreadRow(key=f"k{n}", run_id=f"r/{n}", host="h", thread="all", percent=100.0, mib=64.0, mib_s=500.0 + n,
                      iops=None, files_s=None, state="passed") for n in range(10)]
    one_after_another = {f"r/{n}": n for n in range(10)}
    totals = thread_totals(rows, {f"k{n}": 0.8 + n / 30 for n in range(10)}, one_after_another)
    text = totals_text(totals)
    assert text.endswith("(10 runs one after another)  ·  per row 500.0 to 509.0 MiB/s (CV 0.6 %)  ·  "
                         "10 done, each in 0.8s to 1.1s"), text
    same = thread_totals(rows[:3], {"k0": 0.8, "k1": 0.8, "k2": 0.8}, one_after_another)
    assert totals_text(same).endswith("3 done, each in 0.8s")
    assert totals_text(thread_totals(rows[:1], {"k0": 0.8})).endswith("1 done in 0.8s")


def test_simulated_runs_are_marked_in_the_scenario_run_and_thread_rows():
    simulated = (replace(spec("sim"), engine="simulated"),)
    live = LiveState()
    live(started(plan=simulated))
    live(RunStarted(spec=simulated[0], argv=simulated[0].argv, started_at="", t=100.0))
    assert by_id(live)["sim"].engine == "SIMULATED"
    assert read.run_panel(live, 101.0).running[0].engine == "SIMULATED"
    live(Progress(run_id="sim/0", bytes=MIB, rate_avg_mib_s=1.0, rate_inst_mib_s=1.0, elapsed_s=1.0, t=101.0))
    assert [r.engine for r in read.thread_rows(live)] == ["SIMULATED"]
    live = LiveState()
    live(started(plan=(spec("real"),)))
    assert by_id(live)["real"].engine == ""


def test_log_keeps_the_tail_and_says_what_it_dropped():
    live = LiveState(log_lines=3)
    live(started())
    seq, lines, dropped = read.log_since(live, 0)
    assert lines == ["# s: 4 run(s) -> results/x"] and dropped == 0
    for n in range(5):
        live(OutputLine(run_id="a/0", stream="stdout", text=f"line {n}"))
    seq, lines, dropped = read.log_since(live, seq)
    assert lines == ["line 2", "line 3", "line 4"] and dropped == 2
    assert read.log_since(live, seq) == (seq, [], 0)


def test_tune_panel_marks_leader_ties_and_eliminations():
    tune_spec = spec("tune", 0, 0, kind="autotune")
    live = LiveState()
    live(started(plan=(tune_spec,)))
    assert read.tune(live) is None
    live(TuneUpdate(test_id="tune", strategy="adaptive", engine="simulated", transfers_used=12, budget=40,
                    margin_mib_s=20.0, rows=RANKING, leader="-vb -p 16 -tcp-bs 8M", t=101.0))
    panel = read.tune(live)
    assert [(r.rank, r.style) for r in panel.rows] == [(1, "leader"), (2, "tied"), (3, "eliminated"), (4, "failed")]
    assert panel.rows[1].mark == "tied with #1 (±20 MB/s)"
    assert (panel.rows[2].mark, panel.rows[2].note) == ("eliminated after 9", "hopeless: < 50 % of the best")
    assert (panel.rows[3].mark, panel.rows[3].note) == ("failed", "1 failed; guc failed: 500 Command failed")
    assert panel.rows[0].ci == "[1150, 1210]" and panel.rows[3].ci == "-"
    assert panel.guc_line == "globus-url-copy -vb -p 16 -tcp-bs 8M ftp://x/zero ftp://y/null"
    assert (panel.transfers_used, panel.budget, panel.finished) == (12, 40, False)


def test_tune_mark_without_a_leader_name_takes_rank_one():
    assert tune_mark(RANKING[0], 10.0, None) == ("leader", "leader")
    assert tune_mark(RANKING[1], 10.0, None)[0] == "tied with #1 (±10 MB/s)"


def test_several_tune_tests_default_to_the_latest_update():
    live = LiveState()
    live(started(plan=(spec("t1", 0, 0, kind="autotune"), spec("t2", 1, 0, kind="autotune"))))
    for test_id, t in (("t1", 1.0), ("t2", 2.0)):
        live(TuneUpdate(test_id=test_id, strategy="exhaustive", engine="real", transfers_used=1, budget=9,
                        margin_mib_s=20.0, rows=RANKING[:1], leader=RANKING[0].candidate, t=t))
    assert read.tune(live).test_id == "t2" and read.tune(live, "t1").test_id == "t1"
    assert read.tune_test_ids(live) == ("t1", "t2")


def test_version_moves_only_on_events_it_knows():
    live = LiveState()
    before = live.version
    live(object())  # type: ignore[arg-type]
    assert live.version == before
    live(started())
    assert live.version == before + 1


@given(st.lists(st.tuples(st.floats(0, 1e4), st.floats(0, 1e5), st.sampled_from(["s0", "s1", "s2"])), max_size=60))
def test_channel_sums_never_drift_from_the_last_samples(samples):
    live = LiveState()
    live(started())
    live(RunStarted(spec=PLAN[0], argv=PLAN[0].argv, started_at="", t=100.0))
    last: dict[str, tuple[int, float]] = {}
    for n, (rate, nbytes, channel) in enumerate(samples):
        live(Progress(run_id="a/0", bytes=int(nbytes), rate_avg_mib_s=rate, rate_inst_mib_s=rate, elapsed_s=1.0,
                      channel=channel, t=100.0 + n))
        last[channel] = (int(nbytes), rate)
    panel = read.run_panel(live, now=200.0)
    assert panel.bytes_moved == sum(b for b, _ in last.values())
    if last:
        assert panel.rate_inst_mib_s == pytest.approx(sum(r for _, r in last.values()), abs=1e-6)


def test_runs_of_one_group_on_several_hosts_add_up_while_in_flight():
    # `on: [c1, c2]`: the same run on two hosts at once (host groups); rows per host, one aggregate.
    a, b = spec("g", 0, 0, host="c1", length=1 << 30), spec("g", 0, 0, host="c2", length=1 << 30)
    a, b = (RunSpec(**{**s.__dict__, "run_id": f"g@{s.host}/0"}) for s in (a, b))
    live = LiveState()
    live(started(plan=(a, b)))
    for s in (a, b):
        live(RunStarted(spec=s, argv=s.argv, started_at="", t=100.0))
    live(Progress(run_id=a.run_id, bytes=100 * MIB, rate_avg_mib_s=50.0, rate_inst_mib_s=60.0, elapsed_s=2, t=102.0))
    live(Progress(run_id=b.run_id, bytes=300 * MIB, rate_avg_mib_s=150.0, rate_inst_mib_s=140.0, elapsed_s=2, t=102.0))
    panel = read.run_panel(live, now=103.0)
    assert [line.host for line in panel.running] == ["c1", "c2"]
    assert (panel.rate_inst_mib_s, panel.rate_avg_mib_s, panel.bytes_moved) == (200.0, 200.0, 400 * MIB)
    assert by_id(live)["g"].hosts == "c1, c2" and by_id(live)["g"].status == "running"
    assert [(r.host, r.thread, r.mib) for r in read.thread_rows(live)] == [("c1", "all", 100.0), ("c2", "all", 300.0)]
    live(RunFinished(record=record(a), t=104.0))
    assert read.run_panel(live, now=104.0).rate_inst_mib_s == 140.0  # what is still in flight


def test_thread_totals_leave_failed_rows_out_and_say_how_many():
    """A lost host's rows froze at their last figures: they count as failed, never as done, and add to no
    total (its 4 rows made "31.6 MiB/s in all ... 4 done" while the other host still ran)."""
    from gftpwb.core.live.cells import error_groups, thread_totals, totals_text

    lost = ("h2 p0: lost the worker's connection: node5 (node n5, task 4 of step 2.5): its stdout connection "
            "broke: [Errno 104] Connection reset by peer")
    rows = [ThreadRow(key=f"h1{n}", run_id="w/0", host="h1", thread=str(n), percent=50.0, mib=10.0, mib_s=5.0,
                      iops=None, files_s=None, state="running") for n in range(4)]
    rows += [ThreadRow(key=f"h2{n}", run_id="w/0", host="h2", thread=str(n), percent=20.0, mib=4.0, mib_s=2.9,
                       iops=None, files_s=None, state="failed", error=lost) for n in range(4)]
    totals = thread_totals(rows, {f"h2{n}": 3.6 for n in range(4)})
    assert (totals.rows, totals.mib, totals.mib_s, totals.done, totals.failed) == (8, 40.0, 20.0, 0, 4)
    assert totals_text(totals) == ("8 row(s)  ·  40.0 MiB  ·  20.0 MiB/s in all  ·  per row 5.0 to 5.0 MiB/s "
                                   "(CV 0.0 %)  ·  4 failed (in no total)")
    assert error_groups(rows) == [("h2 threads 0, 1, 2, 3 (w/0)", lost)]  # once, and whole


@pytest.mark.parametrize("time_scale", [0, 0.001])
def test_the_run_chart_of_a_simulated_tune_shows_the_simulated_rates(tmp_path, time_scale):
    """The simulated engine finishes a 4 GiB transfer in no time (or in a thousandth of its simulated
    time, with progress): the chart's figures are the simulated rates, never more than the link carries,
    not a hundred transfers' bytes over one second of wall clock."""
    import asyncio

    from gftpwb.core.dsl.loader import load_scenario_text
    from gftpwb.core.plan import plan
    from gftpwb.core.units import parse_rate
    from gftpwb.shell.session import RunRequest, execute, prepare_run

    scenario = load_scenario_text(f"""\
version: 1
name: simchart
tests:
  - id: tune
    kind: autotune
    strategy: adaptive
    budget: 60
    source: gsiftp://dtn1.example.org/
    target: gsiftp://dtn2.example.org/
    engine: simulated
    link: {{bandwidth: 10Gbit/s, rtt: 20ms, buffer_cap: 16M, noise: 40%, seed: 1, time_scale: {time_scale}}}
""", "simchart.yaml")
    live = LiveState(history_step_s=0.05)  # many points, so a short run is drawn over several of them
    request = RunRequest(scenario=scenario, specs=plan(scenario), results_dir=str(tmp_path / "r"),
                         command=["gftpwb", "run"], subscribers=[live])
    outcome = asyncio.run(execute(prepare_run(request), install_signal_handlers=False))
    transfers = [r for r in outcome.journal.records if r.kind == "guc" and r.status == "passed"]
    assert len(transfers) > 30
    chart = read.rate_chart(live, live.history.last_t, 900)
    link = parse_rate("10Gbit/s")
    assert 0 < chart.peak <= link, chart.peak
    assert chart.peak >= min(r.rate_incl_setup_mib_s for r in transfers)  # the simulated runs' own rates
