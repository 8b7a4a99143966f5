"""The live state's monitors board, trace levels and thresholds : what the
run view's monitors panel, trace key and expect line are drawn from. Pure."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st
from support.live_events import PLAN, by_id, record, started

from gftpwb.core.checks import Check
from gftpwb.core.events import (
    ExpectationsChecked,
    MonitorSample,
    RunFinished,
    RunStarted,
    SamplerEnded,
    SamplerStarted,
    ScenarioFinished,
    TraceLevelChanged,
)
from gftpwb.core.live import read
from gftpwb.core.live.monitors import SPARK, MonitorBoard, sparkline
from gftpwb.core.live.state import LiveState
from gftpwb.core.records import Summary


def sample(monitor: str, kind: str, host: str, t: float, error: str = "", **values: float) -> MonitorSample:
    return MonitorSample(monitor=monitor, type=kind, host=host, sampled_t=t, utc="", span_s=1.0,
                         values={k.replace("__", "."): v for k, v in values.items()}, error=error, t=t)


def test_each_type_has_a_headline_history_and_the_latest_figures():
    board = MonitorBoard(history=3)
    for n in range(5):
        board.sample(sample("cpu", "cpu", "h1", n, busy_pct=10.0 * n, iowait_pct=1.0, load1=0.5))
        board.sample(sample("nic", "net", "h1", n, eth0__rx_mib_s=100.0 + n, eth0__tx_mib_s=2.0,
                            lo__rx_mib_s=500.0 if n == 4 else 0.0, lo__tx_mib_s=0.0, eth0__rx_drops_s=0.0))
        board.sample(sample("disk", "disk", "h2", n, sda__util_pct=40.0, sdb__util_pct=90.0,
                            sda__read_mib_s=1.0, sdb__read_mib_s=2.0, sda__write_mib_s=3.0, sdb__write_mib_s=4.5))
        board.sample(sample("tcp", "tcp", "h2", n, connections=4.0, retrans_s=float(n), rtt_ms_mean=0.25))
        board.sample(sample("mem", "memory", "h2", n, used_mib=2048.0, dirty_mib=0.0))
        board.sample(sample("q", "command", "h2", n, queue=7.0))
    rows = {(r.monitor, r.host): r for r in board.rows()}
    assert [(r.monitor, r.host) for r in board.rows()] == [("cpu", "h1"), ("nic", "h1"), ("disk", "h2"),
                                                           ("tcp", "h2"), ("mem", "h2"), ("q", "h2")]
    cpu = rows[("cpu", "h1")]
    assert cpu.series == (20.0, 30.0, 40.0) and cpu.scale_max == 100.0 and cpu.samples == 5  # bounded history
    assert cpu.figures == (("busy", "40.0 %"), ("iowait", "1 %"), ("load", "0.5"))
    nic = rows[("nic", "h1")]
    assert nic.figures[0] == ("lo", "rx 500 tx 0 MiB/s")  # the busiest interface of the latest sample
    assert nic.series == (102.0 + 2.0, 103.0 + 2.0, 500.0)
    disk = rows[("disk", "h2")]
    assert disk.figures == (("sdb", "90.0 % busy"), ("r", "3 MiB/s"), ("w", "7.5 MiB/s"))
    assert rows[("tcp", "h2")].figures == (("conns", "4"), ("retrans", "4/s"), ("rtt", "0.25 ms"))
    assert rows[("tcp", "h2")].series == (2.0, 3.0, 4.0)
    assert rows[("mem", "h2")].figures[0] == ("used", "2048 MiB")
    assert rows[("q", "h2")].figures == (("queue", "7"),) and rows[("q", "h2")].series == (7.0, 7.0, 7.0)


def test_a_failed_reading_and_an_ended_sampler_are_said_not_drawn_as_zero():
    board = MonitorBoard()
    board.started(SamplerStarted(host="h1", monitors=("cpu",), clock_offset_s=0.0, clock_uncertainty_s=0.0, t=0))
    board.sample(sample("cpu", "cpu", "h1", 1, busy_pct=50.0))
    board.sample(sample("cpu", "cpu", "h1", 2, error="cannot read /proc/stat"))
    (row,) = board.rows()
    assert row.error == "cannot read /proc/stat" and row.series == (50.0,)
    board.sample(sample("cpu", "cpu", "h1", 3, busy_pct=60.0))
    board.stopped(SamplerEnded(host="h1", reason="the host was lost", t=4))
    (row,) = board.rows()
    assert row.error == "" and row.series == (50.0, 60.0) and row.ended == "the host was lost" and row.stopped
    board.started(SamplerStarted(host="h1", monitors=("cpu",), clock_offset_s=0.0, clock_uncertainty_s=0.0, t=5))
    board.stopped(SamplerEnded(host="h1", reason="", t=6))  # stopped after the last run: nothing went wrong
    (row,) = board.rows()
    assert row.stopped and row.ended == "" and row.series == (50.0, 60.0)


def test_the_board_of_a_finished_run_stays_until_the_next_run_samples():
    """Samplers start before the scenario's ScenarioStarted, so that event cannot clear the board."""
    live = LiveState()
    live(SamplerStarted(host="h1", monitors=("cpu",), clock_offset_s=0.0, clock_uncertainty_s=0.0, t=0))
    live(sample("cpu", "cpu", "h1", 0.5, busy_pct=5.0))
    live(started(t=1.0))
    live(sample("cpu", "cpu", "h1", 1.5, busy_pct=6.0))
    assert read.monitor_rows(live)[0].series == (5.0, 6.0)
    live(ScenarioFinished(summary=Summary(total=4, counts={}, results_dir="results/x", interrupted=True), t=2))
    assert read.monitor_rows(live)[0].series == (5.0, 6.0)  # still shown after the end
    live(SamplerStarted(host="h2", monitors=("cpu",), clock_offset_s=0.0, clock_uncertainty_s=0.0, t=3))
    live(SamplerStarted(host="h3", monitors=("cpu",), clock_offset_s=0.0, clock_uncertainty_s=0.0, t=3))
    live(sample("cpu", "cpu", "h2", 3.5, busy_pct=7.0))
    assert [(r.host, r.series) for r in read.monitor_rows(live)] == [("h2", (7.0,))]
    assert set(live.monitors.hosts) == {"h2", "h3"}  # the second sampler's start did not clear the first


@given(st.lists(st.floats(0, 1e6, allow_nan=False), max_size=50), st.integers(0, 30),
       st.one_of(st.none(), st.floats(1, 1e6)))
def test_sparkline_is_as_wide_as_asked_newest_at_the_right(values, width, top):
    line = sparkline(values, width, top)
    assert len(line) == width
    shown = values[-width:] if width else []
    assert line[len(line) - len(shown):] == "".join(c for c in line[len(line) - len(shown):] if c in SPARK)
    peak = top if top is not None else max(shown, default=0.0)
    if shown and peak > 0 and shown[-1] >= peak:
        assert line[-1] == SPARK[-1]
    assert line[: width - len(shown)] == " " * (width - len(shown))


def traced(s, level: str = "run"):
    return replace(s, details={**s.details, "trace": {"level": level}})


def test_trace_levels_of_the_runs_in_flight_and_what_the_key_does():
    live = LiveState()
    live(started())
    assert read.trace_target(read.trace_levels(live))[0] is None  # nothing in flight
    a0 = PLAN[0]
    live(RunStarted(spec=a0, argv=a0.argv, started_at="", t=101))
    target, why = read.trace_target(read.trace_levels(live))
    assert target is None and "trace: off" in why and "--trace run" in why
    live(RunFinished(record=record(a0), t=102))
    a1 = traced(PLAN[1])
    live(RunStarted(spec=a1, argv=a1.argv, started_at="", t=103))
    assert read.trace_levels(live) == {a1.run_id: "run"}
    assert read.trace_target(read.trace_levels(live)) == ("io", "")
    live(TraceLevelChanged(run_id=a1.run_id, host="local", level="io", source="tui key t", t=104))
    assert read.trace_levels(live) == {a1.run_id: "io"}
    assert read.trace_target(read.trace_levels(live)) == ("run", "")  # the key switches back
    assert "trace: a/1 on local now at level io (tui key t)" in live.log.since(0)[1]


def test_violated_thresholds_are_kept_logged_and_noted_on_their_test():
    live = LiveState()
    live(started())
    ok = Check("a", 0, "#000", "median_rate", ">= 900MiB/s", 950.0, "950.0 MiB/s", True)
    bad = Check("b", 1, "#001", "cv", "< 5%", 7.4, "7.4 %", False)
    live(ExpectationsChecked(test_id="a", checks=(ok,), t=110))
    live(ExpectationsChecked(test_id="b", checks=(bad,), t=111))
    assert live.checks == [ok, bad] and read.violations(live) == [bad]
    assert "expect: 1 violated" in by_id(live)["b"].note and "expect" not in by_id(live)["a"].note
    assert "expect: b #001: cv < 5%: 7.4 %: VIOLATED" in live.log.since(0)[1]
    live(started(t=200))  # a new run starts afresh
    assert live.checks == [] and read.violations(live) == []
